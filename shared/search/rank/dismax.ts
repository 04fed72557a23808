import type { FieldBoost } from '../query/qf-parser.js';
import { bm25Idf, LUCENE_BM25, lengthNorms, postingScore, type Bm25Params } from './bm25.js';
import type { InvertedIndex, PostingList } from './inverted-index.js';
import { topDisMax } from './top-dismax.js';

export interface DisMaxOptions {
  fields: FieldBoost[];
  bm25?: Bm25Params;
  /** Solr's tie breaker: 0 takes only the best field's score for a term, 1 sums all fields. */
  tie?: number;
  /** Units a filter allows; undefined allows all. */
  allow?: (unit: number) => boolean;
  /**
   * Only the best `topK` units are wanted: they are found document at a time with block-max pruning
   * (topDisMax), reading only the postings that can still matter. The top k and their scores are those
   * of full scoring, bit for bit; `units` holds only them, so it is no hit count.
   */
  topK?: number;
  /** With topK: the best topK documents, each by its best unit (topDisMax's `documentOf`). */
  documentOf?: (unit: number) => number;
  /**
   * Told of the work as it goes (postings, or a window of units with topK); may throw to stop a search
   * past its time (only there: `allow` must not throw, the working arrays would be left dirty).
   */
  budget?: { spend(steps: number): void };
}

/**
 * Solr DisMax over BM25: each query term is scored in every boosted field (BM25 times the field's
 * boost); a term contributes its best field's score plus `tie` times the others'; a unit's score sums
 * its terms (clauses are SHOULD, so a unit needs to match only one term). A term the query repeats
 * counts again, as a repeated clause does in Lucene's BooleanQuery (on SciFact this alone moves
 * nDCG@10 from 0.680 to 0.687, Lucene's own figure). IDF and average length are
 * per field, as Lucene computes them: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), N = units with the field.
 * Returns a sparse score map: unit -> score.
 */
export function scoreDisMax(index: InvertedIndex, terms: string[], o: DisMaxOptions): Map<number, number> {
  const { units, scores } = scoreDisMaxDense(index, terms, o);
  return new Map(Array.from(units, (u) => [u, scores[u]]));
}

export interface DenseScores {
  /** Units that matched, term by term, each term's new ones ascending (a view of reused memory: valid until the next call). */
  units: Int32Array;
  /** Score by unit id (0 for units not in `units`). */
  scores: Float64Array;
}

/**
 * scoreDisMax over dense arrays: no per-posting Map traffic, which dominates long queries
 * (SciFact's average 12 terms touch tens of thousands of postings).
 */
export function scoreDisMaxDense(index: InvertedIndex, terms: string[], o: DisMaxOptions): DenseScores {
  const { k1, b } = o.bm25 ?? LUCENE_BM25;
  const tie = o.tie ?? 0;
  const sc = scratchFor(index.unitCount);
  const { scores, units } = sc;
  if (o.topK) {
    const top = topDisMax(index, terms, o.fields, { bm25: { k1, b }, tie, k: o.topK, allow: o.allow, budget: o.budget, documentOf: o.documentOf });
    units.set(top.units);
    for (let i = 0; i < top.units.length; i++) scores[top.units[i]] = top.scores[i];
    sc.matchedCount = top.units.length;
    return { units: units.subarray(0, top.units.length), scores };
  }
  // Without removed units every posting is live: the check (a read of an array the size of the index) is skipped.
  const live = index.allAlive() ? null : index;
  let matchedCount = 0;
  // Where each field's entries for the current term begin in the scratch buffer (fieldStart[F]: the end).
  const fieldStart = new Int32Array(o.fields.length + 1);
  for (const term of terms) {
    sc.entries = 0;
    if (o.budget) o.budget.spend(o.fields.reduce((n, { field }) => n + (index.postings(field, term)?.length ?? 0), 0));
    for (let fi = 0; fi < o.fields.length; fi++) {
      fieldStart[fi] = sc.entries;
      const { field, boost } = o.fields[fi];
      const list = index.postings(field, term);
      const lengths = index.fieldLengths(field);
      if (!list || !lengths || list.df === 0 || boost === 0) continue;
      // A field's entries are at most its postings.
      sc.reserve(list.length);
      const { docCount, sumLength } = index.fieldStats(field);
      // Per field, BM25's length part by length code: one table lookup per posting instead of the division.
      walk(sc, live, list, lengths, lengthNorms(k1, b, sumLength / docCount), o.allow, 0, list.length, boost * bm25Idf(docCount, list.df));
    }
    fieldStart[o.fields.length] = sc.entries;
    matchedCount = foldTerm(sc, fieldStart, tie, matchedCount);
    sc.matchedCount = matchedCount; // kept current: a budget that throws leaves the next query what to reset
  }
  sc.matchedCount = matchedCount;
  return { units: units.subarray(0, matchedCount), scores };
}

/** Scores postings start .. end of one field's list of a term (the live, allowed units; `live` null: all are live). */
function walk(
  sc: Scratch, live: InvertedIndex | null, list: PostingList, lengths: Uint8Array, norms: Float64Array, allow: ((unit: number) => boolean) | undefined,
  start: number, end: number, weight: number,
): void {
  const { units: postings, freqs } = list;
  for (let i = start; i < end; i++) {
    const u = postings[i];
    if ((live && !live.isAlive(u)) || (allow && !allow(u))) continue;
    const f = freqs[i];
    accumulate(sc, u, postingScore(weight, f, norms[lengths[u]]));
  }
}

/** A term's score `s` in the current field for unit `u` (a field's units come ascending, each once). */
function accumulate(sc: Scratch, u: number, s: number): void {
  sc.entryUnits[sc.entries] = u;
  sc.entryScores[sc.entries++] = s;
}

/**
 * Adds the current term's scores to the units' (DisMax: per unit the best field's score plus `tie` times
 * the others', the fields taken in query order as the old per-unit sums took them, so the same bits),
 * merging the fields' ascending runs of entries; units matched for the first time are appended to
 * `units`, ascending. Returns the new match count. Merging runs read in order replaces a lookup per
 * posting in arrays the size of the index: at a million sections those arrays outgrow the CPU's caches
 * and each lookup was a trip to memory.
 */
function foldTerm(sc: Scratch, fieldStart: Int32Array, tie: number, matchedCount: number): number {
  const { scores, units, entryUnits, entryScores } = sc;
  const runs = fieldStart.length - 1;
  let first = -1;
  let nonEmpty = 0;
  for (let f = 0; f < runs; f++) {
    if (fieldStart[f + 1] > fieldStart[f]) {
      nonEmpty++;
      if (first < 0) first = f;
    }
  }
  if (nonEmpty === 0) return matchedCount;
  if (nonEmpty === 1) {
    for (let e = fieldStart[first], end = fieldStart[first + 1]; e < end; e++) {
      const u = entryUnits[e];
      // Every contribution is > 0 (boost > 0, idf > 0, frequency >= 1): a score of 0 is a unit not matched yet.
      const before = scores[u];
      // One field: its score is the term's best, nothing else to add.
      const after = before + entryScores[e];
      if (before === 0) units[matchedCount++] = u;
      scores[u] = after;
    }
    return matchedCount;
  }
  const at = fieldStart.slice(0, runs);
  for (;;) {
    let u = 0x7fffffff;
    for (let f = 0; f < runs; f++) if (at[f] < fieldStart[f + 1] && entryUnits[at[f]] < u) u = entryUnits[at[f]];
    if (u === 0x7fffffff) return matchedCount;
    let best = 0;
    let rest = 0;
    let seen = false;
    for (let f = 0; f < runs; f++) {
      if (at[f] >= fieldStart[f + 1] || entryUnits[at[f]] !== u) continue;
      const s = entryScores[at[f]++];
      if (!seen) {
        seen = true;
        best = s;
      } else if (s > best) {
        rest += best;
        best = s;
      } else rest += s;
    }
    const before = scores[u];
    const after = before + (best + tie * rest);
    if (before === 0) units[matchedCount++] = u;
    scores[u] = after;
  }
}

/**
 * Working arrays reused from query to query: allocating and zeroing arrays the size of the index
 * per query cost more than the scoring of a short query, and growing JS arrays of matches fed the
 * garbage collector. Only what the previous query matched is reset, so a caller must be done with
 * the returned scores and units before it scores again (search is synchronous, so it is).
 */
class Scratch {
  /** By unit: the score so far, 0 for a unit not matched. */
  readonly scores: Float64Array;
  /** Matched units, the first `matchedCount`. */
  readonly units: Int32Array;
  matchedCount = 0;
  /** The current term's (unit, score) entries, field after field, each field's ascending (`entries` of them). */
  entryUnits = new Int32Array(1024);
  entryScores = new Float64Array(1024);
  entries = 0;

  constructor(size: number) {
    this.scores = new Float64Array(size);
    this.units = new Int32Array(size);
  }

  /** Room for `more` entries after the current ones. */
  reserve(more: number): void {
    const need = this.entries + more;
    if (need <= this.entryUnits.length) return;
    let n = this.entryUnits.length;
    while (n < need) n *= 2;
    const units = new Int32Array(n);
    units.set(this.entryUnits.subarray(0, this.entries));
    const scores = new Float64Array(n);
    scores.set(this.entryScores.subarray(0, this.entries));
    this.entryUnits = units;
    this.entryScores = scores;
  }
}
let scratch: Scratch | null = null;

function scratchFor(n: number): Scratch {
  if (!scratch || scratch.scores.length < n) scratch = new Scratch(Math.max(n, 1024));
  else for (let i = 0; i < scratch.matchedCount; i++) scratch.scores[scratch.units[i]] = 0;
  return scratch;
}

/** The k best entries of a score map, best first; ties broken by unit id for stable results. */
export function topK(scores: Map<number, number>, k: number): [number, number][] {
  const all = [...scores];
  all.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return all.slice(0, k);
}
