import type { FieldBoost } from '../query/qf-parser.js';
import { BLOCK_SHIFT, type InvertedIndex, type PostingList } from './inverted-index.js';
import { LENGTH_OF_CODE } from './lucene-length.js';
import { seek } from './seek.js';
import { sortUnits } from './sort-units.js';
import { topUnits } from './top-units.js';

export interface Bm25Params {
  /** Term-frequency saturation; Lucene's default 1.2 (Anserini uses 0.9). */
  k1: number;
  /** Length normalisation; Lucene's default 0.75 (Anserini uses 0.4). */
  b: number;
}

export const LUCENE_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export interface DisMaxOptions {
  fields: FieldBoost[];
  bm25?: Bm25Params;
  /** Solr's tie breaker: 0 takes only the best field's score for a term, 1 sums all fields. */
  tie?: number;
  /** Units a filter allows; undefined allows all. */
  allow?: (unit: number) => boolean;
  /**
   * Only the best `topK` units are wanted. Terms are then scored rarest first, and once the terms
   * left cannot lift a unit above the current k-th best score, they are only looked up (galloping
   * search in their posting lists) for the units that can still reach it (MaxScore-style pruning,
   * Turtle & Flood 1995): the cost follows the rare terms' postings and the candidates, not the
   * common terms' lists. The top k and their scores are exact; other units' scores may be partial and
   * `units` lacks matches that could not make it, so it is no hit count.
   */
  topK?: number;
  /**
   * Told of each term's postings before they are scored; may throw to stop a search past its time
   * (only there: `allow` must not throw, the working arrays would be left dirty).
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
  // Without removed units every posting is live: the check (a read of an array the size of the index) is skipped.
  const live = index.allAlive() ? null : index;
  // Per field, BM25's length part by length code: one table lookup per posting instead of the division.
  const fieldNorms = o.fields.map(({ field }) => {
    const { docCount, sumLength } = index.fieldStats(field);
    return lengthNorms(k1, b, sumLength / docCount);
  });
  let matchedCount = 0;
  // Terms that matched new units: while at most one has, `units` is ascending (each term's are, see foldTerm).
  let termsAdding = 0;
  // Terms that scored any unit: while at most one has, sc.matchScores[i] is the score of units[i], read in
  // order instead of gathered from `scores` by unit (at a million sections, a trip to memory each).
  let termsScoring = 0;
  // Where each field's entries for the current term begin in the scratch buffer (fieldStart[F]: the end).
  const fieldStart = new Int32Array(o.fields.length + 1);
  const order = o.topK ? scoringOrder(index, terms, o.fields, tie, k1, b) : null;
  // Once pruning, only these units (ascending) can still reach the top k: the rest of the terms are
  // looked up for them in the posting lists instead of walking the lists.
  let candidates: Int32Array | null = null;
  // A floor for the final k-th best score: from the seeds at first, then the k-th best so far once k
  // units have matched, whichever is higher.
  let kth = order ? seedFloor(index, order.terms, o.fields, fieldNorms, tie, k1, b, o.topK!, o.allow) : 0;
  for (let j = 0; j < terms.length; j++) {
    const term = order ? order.terms[j] : terms[j];
    sc.entries = 0;
    if (o.budget) o.budget.spend(candidates ? candidates.length * o.fields.length : o.fields.reduce((n, { field }) => n + (index.postings(field, term)?.length ?? 0), 0));
    // Walking this term's lists with a k-th best known: the units already matched that can still make
    // the top k (ascending), for the blocks the walk skips (block-max, below).
    const possible = order && kth > 0 && !candidates
      ? termsScoring <= 1
        ? reaching(units, sc.matchScores, matchedCount, kth - order.remaining[j])
        : stillPossible(units.subarray(0, matchedCount), scores, kth - order.remaining[j], termsAdding > 1)
      : null;
    for (let fi = 0; fi < o.fields.length; fi++) {
      fieldStart[fi] = sc.entries;
      const { field, boost } = o.fields[fi];
      const list = index.postings(field, term);
      const lengths = index.fieldLengths(field);
      if (!list || !lengths || list.df === 0 || boost === 0) continue;
      // A field's entries are at most its postings.
      sc.reserve(list.length);
      const { docCount, sumLength } = index.fieldStats(field);
      const weight = boost * bm25Idf(docCount, list.df);
      const avgdl = sumLength / docCount;
      const norms = fieldNorms[fi];
      const { units: postings, freqs, length } = list;
      if (candidates) {
        // Each candidate found by galloping forward from the last one: candidates x log(list), not the list.
        let at = 0;
        for (let c = 0; c < candidates.length && at < length; c++) {
          const u = candidates[c];
          at = seek(postings, length, at, u);
          if (at >= length || postings[at] !== u || (live && !live.isAlive(u)) || (o.allow && !o.allow(u))) continue;
          const f = freqs[at];
          accumulate(sc, u, postingScore(weight, f, norms[lengths[u]]));
        }
        continue;
      }
      if (possible) {
        // Block-max (Ding & Suel 2011): a block whose best possible posting (its highest frequency at its
        // shortest length, with the bounds of this term's fields not yet scored), plus all the later terms
        // can add, stays below the k-th best holds no new unit of the top k. Such a block is only searched
        // for the units of `possible` and those this term's earlier fields found; the others are walked.
        // A unit left out of a skipped block keeps a score below its true one, and both below the k-th
        // best: the top k and their scores stay exact.
        const floor = kth - order!.remaining[j + 1];
        const { max: otherMax, sum: otherSum } = laterFields(order!.fieldBounds[j], fi);
        const lookup = sc.entries ? withTouched(possible, sc.entryUnits.subarray(0, sc.entries)) : possible;
        const blocks = (length + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
        let pc = 0;
        for (let blk = 0; blk < blocks; blk++) {
          const start = blk << BLOCK_SHIFT;
          const end = Math.min(length, start + (1 << BLOCK_SHIFT));
          const last = postings[end - 1];
          const bf = list.blockMaxFreq[blk];
          const bound = bm25(weight, bf, list.blockMinLength[blk], k1, b, avgdl);
          const top = bound > otherMax ? bound : otherMax;
          if (top + tie * (bound + otherSum - top) >= floor) {
            walk(sc, live, list, lengths, norms, o.allow, start, end, weight);
            while (pc < lookup.length && lookup[pc] <= last) pc++;
            continue;
          }
          let at = start;
          while (pc < lookup.length && lookup[pc] <= last) {
            const u = lookup[pc++];
            at = seek(postings, end, at, u);
            if (postings[at] !== u || (live && !live.isAlive(u)) || (o.allow && !o.allow(u))) continue;
            const f = freqs[at];
            accumulate(sc, u, postingScore(weight, f, norms[lengths[u]]));
          }
        }
        continue;
      }
      walk(sc, live, list, lengths, norms, o.allow, 0, length, weight);
    }
    fieldStart[o.fields.length] = sc.entries;
    const before = matchedCount;
    if (sc.entries > 0) termsScoring++;
    matchedCount = foldTerm(sc, fieldStart, tie, matchedCount);
    if (matchedCount > before) termsAdding++;
    sc.matchedCount = matchedCount; // kept current: a budget that throws leaves the next query what to reset
    // Scores only grow (every contribution is >= 0), so the k-th best so far is a floor for the final
    // k-th best: a unit whose score plus all the remaining terms can add stays below it cannot make the top k.
    if (order && j + 1 < terms.length && matchedCount >= o.topK!) {
      const parallel = termsScoring <= 1;
      kth = Math.max(kth, parallel ? kthBest(sc.matchScores, matchedCount, o.topK!) : scores[topUnits(units.subarray(0, matchedCount), scores, o.topK!)[o.topK! - 1]]);
      const remaining = order.remaining[j + 1];
      if (remaining < kth) {
        candidates = parallel && !candidates
          ? reaching(units, sc.matchScores, matchedCount, kth - remaining)
          : stillPossible(candidates ?? units.subarray(0, matchedCount), scores, kth - remaining, !candidates && termsAdding > 1);
      }
    }
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
  const { scores, units, matchScores, entryUnits, entryScores } = sc;
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
      if (before === 0) {
        matchScores[matchedCount] = after;
        units[matchedCount++] = u;
      }
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
    if (before === 0) {
      matchScores[matchedCount] = after;
      units[matchedCount++] = u;
    }
    scores[u] = after;
  }
}

/** Below this many postings in the first (rarest) term's lists a search walks them without seeding a floor first. */
const SEED_MIN_POSTINGS = 4096;
/** Seeds: at most this many postings of the shortest list. */
const SEED_SHORTEST_MAX = 8192;

/**
 * A floor for the k-th best score of the whole query, before any list is walked: the units of the
 * shortest list (of its best blocks when it is long) are scored in full over every term and field, and
 * the k-th best of them is at most the final k-th best (0 when fewer than k were found). Without it the
 * first term's list was walked whole before any bound applied: at a million sections the rarer of two
 * common words still has 50,000-190,000 postings, and that walk was most of a search. With it the first
 * term's blocks that cannot lift a unit to the floor are skipped like the later terms'.
 */
function seedFloor(
  index: InvertedIndex, terms: string[], fields: FieldBoost[], fieldNorms: Float64Array[], tie: number, k1: number, b: number, k: number,
  allow: ((unit: number) => boolean) | undefined,
): number {
  const lists: { list: PostingList; lengths: Uint8Array; norms: Float64Array; weight: number; avgdl: number; term: number; field: number }[] = [];
  let firstTerm = 0;
  terms.forEach((term, j) => fields.forEach(({ field, boost }, fi) => {
    const list = index.postings(field, term);
    const lengths = index.fieldLengths(field);
    if (!list || !lengths || list.df === 0 || boost <= 0) return;
    const { docCount, sumLength } = index.fieldStats(field);
    const avgdl = sumLength / docCount;
    lists.push({ list, lengths, norms: fieldNorms[fi], weight: boost * bm25Idf(docCount, list.df), avgdl, term: j, field: fi });
    if (j === 0) firstTerm += list.length;
  }));
  // A short first list is walked at once; the floor pays where it is long.
  if (firstTerm < SEED_MIN_POSTINGS) return 0;
  // Units matching several terms make the top k: the shortest list's units are the seeds (when it is
  // long, those of its blocks with the highest bounds), so those of them that match the other terms too
  // are found.
  const { list, weight, avgdl } = lists.reduce((a, l) => (l.list.length < a.list.length ? l : a));
  const blocks = (list.length + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
  let chosen = Array.from({ length: blocks }, (_, i) => i);
  if (list.length > SEED_SHORTEST_MAX) {
    const bounds = new Float64Array(blocks);
    for (let blk = 0; blk < blocks; blk++) {
      bounds[blk] = bm25(weight, list.blockMaxFreq[blk], list.blockMinLength[blk], k1, b, avgdl);
    }
    chosen = topUnits(chosen, bounds, SEED_SHORTEST_MAX >> BLOCK_SHIFT).sort((x, y) => x - y);
  }
  // In block order: ascending, each once.
  const sorted = new Int32Array(Math.min(list.length, chosen.length << BLOCK_SHIFT));
  let n = 0;
  for (const blk of chosen) {
    for (let i = blk << BLOCK_SHIFT, end = Math.min(list.length, i + (1 << BLOCK_SHIFT)); i < end; i++) {
      const u = list.units[i];
      if (index.isAlive(u) && (!allow || allow(u))) sorted[n++] = u;
    }
  }
  if (n < k) return 0;
  // Each seed's full score, as the walk would sum it: per term its best field plus `tie` times the others.
  const totals = new Float64Array(n);
  const fieldScores = new Float64Array(fields.length);
  const from = new Int32Array(lists.length);
  for (let s = 0; s < n; s++) {
    const u = sorted[s];
    let total = 0;
    for (let j = 0, l = 0; j < terms.length; j++) {
      fieldScores.fill(0);
      for (; l < lists.length && lists[l].term === j; l++) {
        const { list, lengths, norms, weight, field } = lists[l];
        const i = (from[l] = seek(list.units, list.length, from[l], u));
        if (i >= list.length || list.units[i] !== u) continue;
        fieldScores[field] = postingScore(weight, list.freqs[i], norms[lengths[u]]);
      }
      let best = 0;
      let sum = 0;
      for (const x of fieldScores) {
        sum += x;
        if (x > best) best = x;
      }
      total += best + tie * (sum - best);
    }
    totals[s] = total;
  }
  // Summed in another order than the walk sums them: a hair lower, so a tie at the k-th best is never cut.
  return totals[topUnits(Array.from(totals.keys()), totals, k)[k - 1]] * (1 - 1e-9);
}

/** `possible` and the units the current term's earlier fields scored (`touched`), ascending, each once. */
function withTouched(possible: Int32Array, touched: Int32Array): Int32Array {
  const all = new Int32Array(possible.length + touched.length);
  all.set(possible);
  all.set(touched, possible.length);
  sortUnits(all);
  let n = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i];
  return all.subarray(0, n);
}

/** The k-th best of values[0 .. n) (n >= k): a min-heap of the k best, values read in order. */
function kthBest(values: Float64Array, n: number, k: number): number {
  const heap = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let at = i;
    const v = values[i];
    while (at > 0 && heap[(at - 1) >> 1] > v) {
      heap[at] = heap[(at - 1) >> 1];
      at = (at - 1) >> 1;
    }
    heap[at] = v;
  }
  for (let i = k; i < n; i++) {
    const v = values[i];
    if (v <= heap[0]) continue;
    let at = 0;
    for (;;) {
      const l = 2 * at + 1;
      if (l >= k) break;
      const m = l + 1 < k && heap[l + 1] < heap[l] ? l + 1 : l;
      if (heap[m] >= v) break;
      heap[at] = heap[m];
      at = m;
    }
    heap[at] = v;
  }
  return heap[0];
}

/** units[i] (i < n, ascending) whose value[i] reaches `floor`, ascending. */
function reaching(units: Int32Array, values: Float64Array, n: number, floor: number): Int32Array {
  let count = 0;
  for (let i = 0; i < n; i++) if (values[i] >= floor) count++;
  const kept = new Int32Array(count);
  for (let i = 0, c = 0; c < count; i++) if (values[i] >= floor) kept[c++] = units[i];
  return kept;
}

/** The units of `from` whose score reaches `floor`, ascending (`from` is sorted first when `unsorted`). */
function stillPossible(from: Int32Array, scores: Float64Array, floor: number, unsorted: boolean): Int32Array {
  let n = 0;
  for (let i = 0; i < from.length; i++) if (scores[from[i]] >= floor) n++;
  const kept = new Int32Array(n);
  for (let i = 0, k = 0; k < n; i++) if (scores[from[i]] >= floor) kept[k++] = from[i];
  return unsorted ? sortUnits(kept) : kept;
}

/**
 * The query's terms, the shortest posting lists first (the rarest terms, which also tend to weigh
 * most), with `remaining[j]`: the most that terms j.. can add to one unit. Rare terms first give a
 * top k early from few postings, so the long lists of common terms are only looked up for the units
 * still in the running. In a field, f / (f + k1 * (1 - b + b * len / avgdl)) grows with f
 * and shrinks with len, so the list's highest f and shortest len bound every posting's score;
 * DisMax takes the best field plus `tie` times the others.
 */
function scoringOrder(index: InvertedIndex, terms: string[], fields: FieldBoost[], tie: number, k1: number, b: number): ScoringOrder {
  const bounds = terms.map((term) => {
    let max = 0;
    let sum = 0;
    let postings = 0;
    const perField = new Float64Array(fields.length);
    fields.forEach(({ field, boost }, fi) => {
      const list = index.postings(field, term);
      if (!list || list.df === 0 || boost <= 0) return;
      postings += list.length;
      const { docCount, sumLength } = index.fieldStats(field);
      const norm = k1 * (1 - b + (b * list.minLength) / (sumLength / docCount));
      const w = (boost * bm25Idf(docCount, list.df) * list.maxFreq) / (list.maxFreq + norm);
      perField[fi] = w;
      sum += w;
      if (w > max) max = w;
    });
    return { term, bound: max + tie * (sum - max), postings, perField };
  });
  bounds.sort((a, b) => a.postings - b.postings || b.bound - a.bound);
  const remaining = new Float64Array(bounds.length + 1);
  for (let j = bounds.length - 1; j >= 0; j--) remaining[j] = remaining[j + 1] + bounds[j].bound;
  return { terms: bounds.map((b) => b.term), remaining, fieldBounds: bounds.map((b) => b.perField) };
}

interface ScoringOrder {
  terms: string[];
  /** remaining[j]: the most terms j.. can add to one unit. */
  remaining: Float64Array;
  /** fieldBounds[j][f]: the most term j can score in field f (0 where it has no postings). */
  fieldBounds: Float64Array[];
}

/**
 * The largest and the sum of a term's bounds in the fields after `fi`: a unit the earlier fields did not
 * find has no score there (the units they found are looked up in every block, see withTouched).
 */
function laterFields(bounds: Float64Array, fi: number): { max: number; sum: number } {
  let max = 0;
  let sum = 0;
  for (let f = fi + 1; f < bounds.length; f++) {
    sum += bounds[f];
    if (bounds[f] > max) max = bounds[f];
  }
  return { max, sum };
}

/** lengthNorm for each length code (LENGTH_OF_CODE): one table lookup per posting instead of the division. */
function lengthNorms(k1: number, b: number, avgdl: number): Float64Array {
  const norms = new Float64Array(256);
  for (let c = 0; c < 256; c++) norms[c] = lengthNorm(LENGTH_OF_CODE[c], k1, b, avgdl);
  return norms;
}

/** BM25's length part of a field of `length` tokens. */
function lengthNorm(length: number, k1: number, b: number, avgdl: number): number {
  return k1 * (1 - b + (b * length) / avgdl);
}

/** A posting's BM25 score from its field's length part `norm` (lengthNorm); bm25() is this too, so the table gives the same bits. */
function postingScore(weight: number, f: number, norm: number): number {
  return (weight * f) / (f + norm);
}

/** A posting's BM25 score in a field: `weight` (boost times idf) times the saturated, length-normalised frequency. */
function bm25(weight: number, f: number, length: number, k1: number, b: number, avgdl: number): number {
  return postingScore(weight, f, lengthNorm(length, k1, b, avgdl));
}

/** Lucene's BM25 idf: ln(1 + (N - df + 0.5) / (df + 0.5)). */
function bm25Idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
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
  /** By place in `units`: the score the unit had when it first matched (its score while one term has scored). */
  readonly matchScores: Float64Array;
  matchedCount = 0;
  /** The current term's (unit, score) entries, field after field, each field's ascending (`entries` of them). */
  entryUnits = new Int32Array(1024);
  entryScores = new Float64Array(1024);
  entries = 0;

  constructor(size: number) {
    this.scores = new Float64Array(size);
    this.units = new Int32Array(size);
    this.matchScores = new Float64Array(size);
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
