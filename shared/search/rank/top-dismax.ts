import type { FieldBoost } from '../query/qf-parser.js';
import { bm25, bm25Idf, lengthNorm, lengthNorms, postingScore, type Bm25Params } from './bm25.js';
import { BLOCK_SHIFT, type InvertedIndex } from './inverted-index.js';
import { seek } from './seek.js';

/**
 * The best k units of a DisMax query, document at a time: the query's posting lists (one per term and
 * field) are walked together in ascending unit order, each unit is scored in full at once, and a min-heap
 * of k keeps the best. Block-max MaxScore (Turtle & Flood 1995 for the essential/non-essential split,
 * Ding & Suel 2011 for the block bounds, in the windowed form of Lucene's MaxScoreBulkScorer):
 *
 * - Seeds: the units of the shortest list are scored first (seed), so the k-th best starts near its
 *   final value. A list the seeds took whole then leaves the walk: it holds no other unit.
 * - Lists whose bounds together stay below the k-th best are left out of the windows (their bound is the
 *   list's). The others cut the units into windows (at most ACC units) that end where the first of their
 *   current blocks ends, so each has one block there, whose best posting (highest frequency at shortest
 *   length) bounds it. A window whose bounds, combined as DisMax combines scores, stay below the k-th best
 *   is skipped without reading a posting.
 * - Otherwise the lists with the lowest bounds, as many as together stay below it, are non-essential: only
 *   the other lists' postings bring candidates, and of those only postings at a frequency that can still
 *   reach the k-th best (neededFrequency). A candidate is looked up in the non-essential lists (galloping
 *   search) only while its score so far plus what they can add still reaches the k-th best. With many
 *   essential lists, a window adds their scores up term at a time first (accumulated).
 *
 * A query of few postings (SCORE_ALL_MAX) has them all scored instead (scoreAll): there the set-up
 * above cost more than the postings it spares.
 *
 * Nothing the size of the index is read or written per posting (term-at-a-time scoring keeps a score per
 * unit: at a million sections, a trip to memory each). Each unit's score is summed term by term in query
 * order (per term its fields in query order, the best plus `tie` times the others), as full scoring sums
 * it, so the top k and their scores are the same bits. Ties at the k-th score go to the lower unit id, as
 * topUnits breaks them.
 */
export function topDisMax(
  index: InvertedIndex, terms: string[], fields: FieldBoost[],
  o: {
    bm25: Bm25Params; tie: number; k: number; allow?: (unit: number) => boolean; budget?: { spend(steps: number): void };
    /**
     * Each unit's document: the best k documents are kept instead, each by its best unit (ties: the lower
     * unit), so a search that answers one section per document asks for as many as it shows, not a few
     * times more in case a document holds several of them.
     */
    documentOf?: (unit: number) => number;
  },
): { units: Int32Array; scores: Float64Array } {
  const { k1, b } = o.bm25;
  const { tie, allow } = o;
  const live = index.allAlive() ? null : index;
  // Lists term by term in query order, each term's in field order: the order scores are combined in.
  const lists: Cursor[] = [];
  const termStart = new Int32Array(terms.length + 1);
  // BM25's length part by length code, one table per field (lengthNorms).
  const norms = new Map<string, Float64Array>();
  terms.forEach((term, j) => {
    termStart[j] = lists.length;
    fields.forEach(({ field, boost }) => {
      const lengths = index.fieldLengths(field);
      const list = index.postings(field, term);
      if (!lengths || boost <= 0 || !list || list.df === 0 || list.length === 0) return;
      const { docCount, sumLength } = index.fieldStats(field);
      const avgdl = sumLength / docCount;
      const weight = boost * bm25Idf(docCount, list.df);
      let table = norms.get(field);
      if (!table) norms.set(field, (table = lengthNorms(k1, b, avgdl)));
      const bounds = list.blockBounds();
      lists.push({
        units: list.units, freqs: list.freqs, length: list.length, blocks: (list.length + BLOCK - 1) >> BLOCK_SHIFT,
        blockMaxFreq: bounds.maxFreq, blockMinLength: bounds.minLength, lengths, norms: table,
        weight, avgdl, term: j, index: lists.length, pos: 0, next: 0, blk: 0, bound: 0, boundFreq: 0, boundLength: 0, needed: 0, seeded: false,
        maxFreq: list.maxFreq, minLength: list.minLength, global: bm25(weight, list.maxFreq, list.minLength, k1, b, avgdl),
      });
    });
  });
  termStart[terms.length] = lists.length;
  const n = lists.length;
  const heap = new Heap(o.k, o.documentOf ?? null);
  let postings = 0;
  for (const c of lists) postings += c.length;
  if (postings <= SCORE_ALL_MAX) {
    scoreAll(lists, termStart, tie, heap, live, allow, o.budget);
    return heap.sorted();
  }
  // The candidate's score in each list (0: not there, or not looked up yet).
  const scores = new Float64Array(n);
  // Lists by bound in the current window, ascending; the first `cut` are non-essential.
  const byBound: Cursor[] = lists.slice();
  // Per term, the largest and the sum of the bounds counted so far (see `below`).
  const termMax = new Float64Array(terms.length);
  const termSum = new Float64Array(terms.length);
  // The essential lists of the window in the order they bring candidates; which of them come before.
  const sources: Cursor[] = [];
  const excluded = new Uint8Array(n);
  // One term's essential lists (accumulated).
  const termLists: Cursor[] = [];
  // below[i]: the most a unit can score in the i lists of lowest bound in the window (byBound order).
  const below = new Float64Array(n + 1);
  const seeds = seed(lists, termStart, scores, o.bm25, tie, heap, live, allow);
  // A list the seeds took whole holds no unit the walk meets (seeds are skipped): it adds nothing to any
  // candidate, so it is left out, bound 0. A rare word's title list, say, whose bound would otherwise
  // make every posting of its body list a candidate to be looked up there.
  for (const c of lists) if (c.seeded) retire(c);
  if (o.budget) o.budget.spend(seeds.length);
  // Lists by their bound over the whole list, ascending: those of them that together stay below the
  // k-th best (`global` of them) neither end windows nor have their blocks read, their bound is the
  // list's. Lists of common words have many short blocks whose bounds are all near the list's own; ending
  // a window at each was most of the work.
  const byGlobal = lists.slice().sort((x, y) => x.global - y.global);
  let global = 0;
  // The next seed at or after the current candidate: seeds are in the heap already.
  let nextSeed = 0;
  // The current window's split: byBound[0 .. nonEssential) are non-essential; sources[0 .. sourceCount) the others.
  let nonEssential = 0;
  let sourceCount = 0;
  /** Scores candidate `u` in full when it can still make the top k, and offers it to the heap. */
  const evaluate = (u: number): void => {
    // A filter's verdict is one read: before any look-up.
    if ((live && !live.isAlive(u)) || (allow && !allow(u))) return;
    zero(scores);
    for (let e = 0; e < sourceCount; e++) {
      const c = sources[e];
      c.pos = seek(c.units, c.length, c.pos, u);
      if (c.pos < c.length && c.units[c.pos] === u) scores[c.index] = postingScore(c.weight, c.freqs[c.pos], c.norms[c.lengths[u]]);
    }
    // What the non-essential lists can add: below[e] for those before e (DisMax of their bounds per term).
    const kth = heap.floor();
    if (known(scores, termStart, tie) + below[nonEssential] < kth) return;
    // The non-essential lists, the highest bound first, while the unit can still make the top k.
    for (let e = nonEssential - 1; e >= 0; e--) {
      const c = byBound[e];
      c.pos = seek(c.units, c.length, c.pos, u);
      if (c.pos < c.length && c.units[c.pos] === u) scores[c.index] = postingScore(c.weight, c.freqs[c.pos], c.norms[c.lengths[u]]);
      if (e > 0 && known(scores, termStart, tie) + below[e] < kth) return;
    }
    heap.offer(u, known(scores, termStart, tie));
  };
  /**
   * A window of many essential lists, term at a time: their postings' scores are added up per unit in
   * buffers the size of the window (they stay in the CPU's caches), DisMax per term, and only the units
   * whose sum plus what the non-essential lists can add reaches the k-th best are scored in full (each
   * unit taken once, not once per list it is in). Returns the candidates.
   */
  const accumulated = (ws: number, we: number): number => {
    const { acc, hits } = windowScratch();
    const length = we - ws;
    acc.fill(0, 0, length);
    hits.fill(0, 0, (length + 31) >> 5);
    for (let j = 0; j < terms.length; j++) {
      let fields = 0;
      for (let e = 0; e < sourceCount; e++) if (sources[e].term === j) termLists[fields++] = sources[e];
      if (fields > 0) addTerm(termLists, 0, fields, ws, we, allow, tie, acc, hits);
    }
    let candidates = 0;
    for (let w = 0, words = (length + 31) >> 5; w < words; w++) {
      let bits = hits[w];
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const at = (w << 5) + 31 - Math.clz32(low);
        const u = ws + at;
        candidates++;
        while (nextSeed < seeds.length && seeds[nextSeed] < u) nextSeed++;
        if (nextSeed < seeds.length && seeds[nextSeed] === u) continue;
        if (acc[at] + below[nonEssential] < heap.floor()) continue;
        evaluate(u);
      }
    }
    return candidates;
  };
  let ws = 0;
  for (;;) {
    const least = heap.floor();
    while (global < n && boundOf(byGlobal, global + 1, termMax, termSum, tie) < least) global++;
    if (global === n) break;
    // The window [ws, we): up to the end of the first current block to end among the other lists.
    let we = 0x7fffffff;
    for (let g = global; g < n; g++) {
      const c = byGlobal[g];
      while (c.blk < c.blocks && c.units[Math.min(c.length, (c.blk + 1) << BLOCK_SHIFT) - 1] < ws) c.blk++;
      if (c.blk < c.blocks) {
        const end = c.units[Math.min(c.length, (c.blk + 1) << BLOCK_SHIFT) - 1] + 1;
        if (end < we) we = end;
      }
    }
    if (we === 0x7fffffff) break;
    if (we > ws + ACC) we = ws + ACC;
    for (let g = 0; g < n; g++) {
      const c = byGlobal[g];
      if (g < global) {
        c.boundFreq = c.maxFreq;
        c.boundLength = c.minLength;
      } else if (c.blk < c.blocks && c.units[c.blk << BLOCK_SHIFT] < we) {
        c.boundFreq = c.blockMaxFreq[c.blk];
        c.boundLength = c.blockMinLength[c.blk];
      } else c.boundFreq = 0;
      c.bound = c.boundFreq ? bm25(c.weight, c.boundFreq, c.boundLength, k1, b, c.avgdl) : 0;
    }
    const floor = least;
    // Lists by bound, lowest first (few lists: an insertion sort); the lowest are non-essential while
    // a unit found in them only stays below the k-th best: per term the DisMax of their bounds, summed.
    for (let i = 1; i < n; i++) {
      const c = byBound[i];
      let at = i;
      while (at > 0 && byBound[at - 1].bound > c.bound) byBound[at] = byBound[--at];
      byBound[at] = c;
    }
    zero(termMax);
    zero(termSum);
    let bounded = 0;
    let cut = 0;
    for (; cut < n; cut++) {
      const c = byBound[cut];
      const j = c.term;
      const before = termMax[j] + tie * (termSum[j] - termMax[j]);
      termSum[j] += c.bound;
      if (c.bound > termMax[j]) termMax[j] = c.bound;
      bounded += termMax[j] + tie * (termSum[j] - termMax[j]) - before;
      if (!(bounded < floor)) break;
      below[cut + 1] = bounded;
    }
    if (cut === n) {
      // Every list non-essential: nothing in the window can reach the k-th best.
      ws = we;
      continue;
    }
    // The essential lists bring the candidates, the shortest first. A posting of one of them is passed
    // over when its frequency is below what a unit found in none of the earlier ones needs to reach the
    // k-th best (a unit found in an earlier one is a candidate there, or was shown to stay below):
    // most postings of a long list hold its word once, and the units that make the top k hold it more
    // often, or in a short field the earlier list covers.
    const count = n - cut;
    for (let e = 0; e < count; e++) {
      const c = byBound[cut + e];
      let at = e;
      while (at > 0 && sources[at - 1].length > c.length) sources[at] = sources[--at];
      sources[at] = c;
    }
    zero(excluded);
    const accumulate = count >= ACC_SOURCES;
    for (let e = 0; e < count; e++) {
      const c = sources[e];
      c.needed = neededFrequency(c, lists, excluded, termMax, termSum, tie, floor, k1, b);
      excluded[c.index] = 1;
      if (c.next < c.length && c.units[c.next] < ws) c.next = seek(c.units, c.length, c.next, ws);
      if (!accumulate) passOver(c, we);
    }
    nonEssential = cut;
    sourceCount = count;
    let candidates = 0;
    if (accumulate) {
      candidates = accumulated(ws, we);
      if (o.budget) o.budget.spend(candidates + 1);
      ws = we;
      continue;
    }
    for (;;) {
      // The next candidate: the lowest unit the sources hold in the window, at a frequency that may count.
      let u = we;
      for (let e = 0; e < count; e++) {
        const c = sources[e];
        if (c.next < c.length && c.units[c.next] < u) u = c.units[c.next];
      }
      if (u >= we) break;
      candidates++;
      for (let e = 0; e < count; e++) {
        const c = sources[e];
        if (c.next < c.length && c.units[c.next] === u) {
          c.next++;
          passOver(c, we);
        }
      }
      while (nextSeed < seeds.length && seeds[nextSeed] < u) nextSeed++;
      if (nextSeed < seeds.length && seeds[nextSeed] === u) continue;
      evaluate(u);
    }
    if (o.budget) o.budget.spend(candidates + 1);
    ws = we;
  }
  return heap.sorted();
}

const BLOCK = 1 << BLOCK_SHIFT;

/**
 * Up to this many postings in the query's lists, every posting is scored (scoreAll): the bounds, windows
 * and look-ups of the walk cost more than the postings they spare.
 */
export const SCORE_ALL_MAX = 4096;

/**
 * Scores every posting, term at a time in window buffers of ACC units (windows where no list has a
 * posting are skipped), and offers every matched unit to the heap. A term's lists are added in query
 * order, as `known` and full scoring add them: the same bits.
 */
function scoreAll(
  lists: Cursor[], termStart: Int32Array, tie: number, heap: Heap, live: InvertedIndex | null,
  allow: ((unit: number) => boolean) | undefined, budget: { spend(steps: number): void } | undefined,
): void {
  // Its own sums and hits, zero between windows: each window clears what it set, no more.
  const { acc, hits } = (allScratch ??= { acc: new Float64Array(ACC), hits: new Int32Array(ACC >> 5) });
  for (;;) {
    let ws = 0x7fffffff;
    for (const c of lists) if (c.next < c.length && c.units[c.next] < ws) ws = c.units[c.next];
    if (ws === 0x7fffffff) return;
    let last = 0;
    let before = 0;
    for (const c of lists) before += c.next;
    for (let j = 0; j + 1 < termStart.length; j++) last = Math.max(last, addTerm(lists, termStart[j], termStart[j + 1], ws, ws + ACC, allow, tie, acc, hits));
    if (budget) {
      let after = 0;
      for (const c of lists) after += c.next;
      budget.spend(after - before);
    }
    for (let w = 0, words = (last >> 5) + 1; w < words; w++) {
      let bits = hits[w];
      hits[w] = 0;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const at = (w << 5) + 31 - Math.clz32(low);
        const score = acc[at];
        acc[at] = 0;
        const u = ws + at;
        if (live && !live.isAlive(u)) continue;
        heap.offer(u, score);
      }
    }
  }
}

/**
 * Adds the postings in [ws, we) of one term's lists (`lists[from .. to)`, each from its `next`, which
 * moves past them) to `acc`, by unit - ws: per unit the best list's score plus `tie` times the others',
 * taken in the order given (query order: the same bits as `known`). Marks in `hits` the units at a
 * frequency of at least a list's `needed`; a unit the filter leaves out is neither summed nor marked.
 * Returns the highest offset added to.
 */
function addTerm(
  lists: Cursor[], from: number, to: number, ws: number, we: number, allow: ((unit: number) => boolean) | undefined, tie: number,
  acc: Float64Array, hits: Int32Array,
): number {
  const { best, rest, seen, touched } = windowScratch();
  let count = 0;
  let last = 0;
  const single = to - from === 1;
  for (let e = from; e < to; e++) {
    const c = lists[e];
    const { units, freqs, norms, lengths, weight, needed } = c;
    let i = c.next;
    for (; i < c.length && units[i] < we; i++) {
      const u = units[i];
      // A unit the filter leaves out needs no score (the verdict is one read).
      if (allow && !allow(u)) continue;
      const at = u - ws;
      const score = postingScore(weight, freqs[i], norms[lengths[u]]);
      if (freqs[i] >= needed) hits[at >> 5] |= 1 << (at & 31);
      if (at > last) last = at;
      if (single) acc[at] += score;
      else if (!seen[at]) {
        seen[at] = 1;
        best[at] = score;
        rest[at] = 0;
        touched[count++] = at;
      } else if (score > best[at]) {
        rest[at] += best[at];
        best[at] = score;
      } else rest[at] += score;
    }
    c.next = i;
  }
  for (let t = 0; t < count; t++) {
    const at = touched[t];
    acc[at] += best[at] + tie * rest[at];
    seen[at] = 0;
  }
  return last;
}

/** Windows span at most this many units (the buffers of `accumulated`). */
const ACC = 4096;
/** From this many essential lists on, a window adds their scores up term at a time (`accumulated`). */
const ACC_SOURCES = 3;

interface WindowScratch {
  acc: Float64Array;
  best: Float64Array;
  rest: Float64Array;
  seen: Uint8Array;
  touched: Int32Array;
  hits: Int32Array;
}
let scratch: WindowScratch | null = null;
let allScratch: { acc: Float64Array; hits: Int32Array } | null = null;

/** The window buffers, reused from query to query (scoring is synchronous; each window clears what it uses). */
function windowScratch(): WindowScratch {
  return (scratch ??= {
    acc: new Float64Array(ACC), best: new Float64Array(ACC), rest: new Float64Array(ACC),
    seen: new Uint8Array(ACC), touched: new Int32Array(ACC), hits: new Int32Array(ACC >> 5),
  });
}

/** Below this many postings in all the query's lists a search starts without seeds. */
const SEED_MIN_POSTINGS = 4096;
/** Seeds: at most this many postings of the shortest lists. */
const SEED_MAX = 1024;

/**
 * Fills the heap from the units of the shortest lists (of their blocks with the highest bounds when they
 * are long), each scored in full, and returns them ascending. Units that match several terms make the top
 * k, and they are in every list of those terms, the shortest too: the k-th best of the seeds is at once
 * near the final one, so the walk prunes from its first window on instead of raising its floor unit by unit.
 */
function seed(
  lists: Cursor[], termStart: Int32Array, scores: Float64Array, bm: Bm25Params, tie: number, heap: Heap, live: InvertedIndex | null, allow: ((unit: number) => boolean) | undefined,
): Int32Array {
  const { k1, b } = bm;
  let postings = 0;
  for (const c of lists) postings += c.length;
  if (postings < SEED_MIN_POSTINGS || lists.length < 2) return NO_SEEDS;
  // The shortest lists whole, until they hold k postings (a rare word's fields: a common word's list
  // would otherwise fill the heap first with scores far below the final k-th); a list longer than the
  // postings left to take gives its blocks of the highest bounds.
  let budget = SEED_MAX;
  let all = new Int32Array(0);
  let count = 0;
  for (const c of lists.slice().sort((x, y) => x.length - y.length)) {
    if (count >= heap.k || budget < BLOCK) break;
    let chosen = Array.from({ length: c.blocks }, (_, i) => i);
    c.seeded = c.length <= budget;
    if (c.length > budget) {
      const bounds = Float64Array.from(chosen, (blk) => bm25(c.weight, c.blockMaxFreq[blk], c.blockMinLength[blk], k1, b, c.avgdl));
      chosen = chosen.sort((x, y) => bounds[y] - bounds[x]).slice(0, budget >> BLOCK_SHIFT);
    }
    const grown = new Int32Array(count + Math.min(c.length, chosen.length << BLOCK_SHIFT));
    grown.set(all.subarray(0, count));
    all = grown;
    for (const blk of chosen) {
      for (let i = blk << BLOCK_SHIFT, end = Math.min(c.length, i + BLOCK); i < end; i++) {
        budget--;
        const u = c.units[i];
        // Only units that may be answered count toward k (a filter may allow few).
        if ((live && !live.isAlive(u)) || (allow && !allow(u))) continue;
        all[count++] = u;
      }
    }
    // Units of several lists once, so `count` counts units.
    all.subarray(0, count).sort();
    let n = 0;
    for (let i = 0; i < count; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i];
    count = n;
  }
  const seeds = all.subarray(0, count);
  const n = count;
  // Each list sought from where the previous seed left it: seeds are ascending. The walk's cursors stay at 0.
  const from = new Int32Array(lists.length);
  for (let i = 0; i < n; i++) {
    const u = seeds[i];
    for (let l = 0; l < lists.length; l++) {
      const c = lists[l];
      const at = (from[l] = seek(c.units, c.length, from[l], u));
      scores[l] = at < c.length && c.units[at] === u ? postingScore(c.weight, c.freqs[at], c.norms[c.lengths[u]]) : 0;
    }
    heap.offer(u, known(scores, termStart, tie));
  }
  return seeds.subarray(0, n);
}

const NO_SEEDS = new Int32Array(0);

interface Cursor {
  units: Int32Array;
  freqs: Uint16Array | Int32Array;
  length: number;
  blocks: number;
  blockMaxFreq: Int32Array;
  blockMinLength: Int32Array;
  lengths: Uint8Array;
  norms: Float64Array;
  weight: number;
  avgdl: number;
  /** Index of its term in the query. */
  term: number;
  /** Current posting: where the candidate was last looked up. */
  pos: number;
  /** The next posting that brings a candidate (essential lists). */
  next: number;
  /** Frequencies below this bring no candidate in the current window (neededFrequency). */
  needed: number;
  /** The block holding the current window's first units (the first whose last unit is >= the window's start). */
  blk: number;
  /** Its best score in the current window. */
  bound: number;
  /** The frequency and length `bound` is the score of (boundFreq 0: no block in the window). */
  boundFreq: number;
  boundLength: number;
  /** Its best score anywhere (maxFreq at minLength, the list's). */
  global: number;
  maxFreq: number;
  minLength: number;
  /** Its place in the query's lists (in `scores`). */
  index: number;
  /** Every unit of it is a seed (or one the filter leaves out): it is left out of the walk (retire). */
  seeded: boolean;
}

/** Leaves a list out of the walk: no postings, no blocks, bound 0 (its `units` stay for nothing). */
function retire(c: Cursor): void {
  c.length = 0;
  c.blocks = 0;
  c.maxFreq = 0;
  c.global = 0;
}

/** Moves `c.next` past the postings before `we` whose frequency is below `c.needed`. */
function passOver(c: Cursor, we: number): void {
  const { units, freqs, length, needed } = c;
  let i = c.next;
  while (i < length && units[i] < we && freqs[i] < needed) i++;
  c.next = i;
}

/**
 * The lowest frequency at which a posting of `c` in the current window may belong to a unit that reaches
 * `floor`, for a unit in none of the `excluded` lists: the lists' bounds combined as DisMax combines
 * scores, with c's own at that frequency and its block's shortest length (Infinity: none may). The other
 * lists' part is summed once; only c's term is combined again per frequency tried (a few hundred calls a
 * query at a million sections: a closure and typed-array fills per try were most of a window's set-up).
 * The sums run in another order than `known` adds scores: `floor` is a hair below the k-th best for that.
 */
function neededFrequency(
  c: Cursor, lists: Cursor[], excluded: Uint8Array, termMax: Float64Array, termSum: Float64Array, tie: number, floor: number, k1: number, b: number,
): number {
  if (c.boundFreq === 0) return Infinity;
  const norm = lengthNorm(c.boundLength, k1, b, c.avgdl);
  zero(termMax);
  zero(termSum);
  for (const l of lists) {
    if (excluded[l.index] || l === c) continue;
    termSum[l.term] += l.bound;
    if (l.bound > termMax[l.term]) termMax[l.term] = l.bound;
  }
  const own = c.term;
  let others = 0;
  for (let j = 0; j < termMax.length; j++) if (j !== own) others += termMax[j] + tie * (termSum[j] - termMax[j]);
  const max = termMax[own];
  const sum = termSum[own];
  const reaches = (f: number): boolean => {
    const v = postingScore(c.weight, f, norm);
    const best = v > max ? v : max;
    return !(others + best + tie * (sum + v - best) < floor);
  };
  if (!reaches(c.boundFreq)) return Infinity;
  let lo = 0;
  let hi = c.boundFreq;
  // reaches(hi), not reaches(lo) (lo 0: no posting has it).
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Zeroes a few entries: TypedArray#fill is a call into the runtime, several times a loop's cost at this size. */
function zero(a: Float64Array | Uint8Array): void {
  for (let i = 0; i < a.length; i++) a[i] = 0;
}

/**
 * The most a unit found only in lists[0 .. count) can score: per term the DisMax of their bounds
 * (`global`), summed. termMax and termSum are scratch, one entry per term.
 */
function boundOf(lists: Cursor[], count: number, termMax: Float64Array, termSum: Float64Array, tie: number): number {
  zero(termMax);
  zero(termSum);
  for (let i = 0; i < count; i++) {
    const { term, global } = lists[i];
    termSum[term] += global;
    if (global > termMax[term]) termMax[term] = global;
  }
  let total = 0;
  for (let j = 0; j < termMax.length; j++) total += termMax[j] + tie * (termSum[j] - termMax[j]);
  return total;
}

/**
 * The candidate's score from the lists looked up so far (`scores`, by list): term by term in query order,
 * each term's fields in query order, the best plus `tie` times the others; with every list looked up, its score.
 * foldTerm (dismax.ts) combines a term's fields the same way, step for step: the same bits depend on it.
 */
function known(scores: Float64Array, termStart: Int32Array, tie: number): number {
  let total = 0;
  for (let j = 0; j + 1 < termStart.length; j++) {
    let best = 0;
    let rest = 0;
    let seen = false;
    for (let i = termStart[j]; i < termStart[j + 1]; i++) {
      const s = scores[i];
      if (s === 0) continue;
      if (!seen) {
        seen = true;
        best = s;
      } else if (s > best) {
        rest += best;
        best = s;
      } else rest += s;
    }
    if (seen) total += best + tie * rest;
  }
  return total;
}

/**
 * The best k (unit, score) pairs so far: a min-heap whose root is the worst kept (lower score, or the
 * same score and a higher unit).
 */
class Heap {
  private readonly units: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;
  /** Per-document mode: the slot of each kept document (`documentOf` of its unit). */
  private readonly slots: Map<number, number> | null;

  constructor(
    readonly k: number,
    private readonly documentOf: ((unit: number) => number) | null = null,
  ) {
    this.units = new Int32Array(k);
    this.scores = new Float64Array(k);
    this.slots = documentOf ? new Map() : null;
  }

  /**
   * What a unit must beat to enter, a hair lower than the k-th best: bounds are summed in another order
   * than scores, so a unit exactly at the bound must not be cut by rounding (0 until k are kept). In
   * per-document mode it is the k-th best document's: a unit below it neither enters nor betters its
   * document, which is kept at a score at least that.
   */
  floor(): number {
    return this.size < this.k ? 0 : this.scores[0] * (1 - 1e-9);
  }

  offer(u: number, s: number): void {
    if (this.slots) {
      const doc = this.documentOf!(u);
      const at = this.slots.get(doc);
      if (at !== undefined) {
        // Its document is kept: a better unit takes its place, which can only move away from the root.
        if (worse(this.scores[at], this.units[at], s, u)) this.down(at, u, s);
        return;
      }
    }
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(s, u, this.scores[p], this.units[p])) break;
        this.put(i, this.units[p], this.scores[p]);
        i = p;
      }
      this.put(i, u, s);
      return;
    }
    if (!worse(this.scores[0], this.units[0], s, u)) return;
    this.slots?.delete(this.documentOf!(this.units[0]));
    this.down(0, u, s);
  }

  /** Puts (u, s) at slot i, or below it where it belongs (it ranks at least as high as what slot i held). */
  private down(i: number, u: number, s: number): void {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const m = r < this.size && worse(this.scores[r], this.units[r], this.scores[l], this.units[l]) ? r : l;
      if (!worse(this.scores[m], this.units[m], s, u)) break;
      this.put(i, this.units[m], this.scores[m]);
      i = m;
    }
    this.put(i, u, s);
  }

  private put(i: number, u: number, s: number): void {
    this.units[i] = u;
    this.scores[i] = s;
    this.slots?.set(this.documentOf!(u), i);
  }

  /** The kept units, ascending, with their scores in parallel. */
  sorted(): { units: Int32Array; scores: Float64Array } {
    // Units are distinct: sorting unit * 2^bits + slot (exact in a double) sorts slots by unit, natively.
    const bits = 32 - Math.clz32(this.size);
    const keys = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) keys[i] = this.units[i] * 2 ** bits + i;
    keys.sort();
    const units = new Int32Array(this.size);
    const scores = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) {
      const slot = keys[i] % 2 ** bits;
      units[i] = this.units[slot];
      scores[i] = this.scores[slot];
    }
    return { units, scores };
  }
}

/** Whether (unit a, score sa) ranks below (b, sb): a lower score, or the same and a higher unit. */
function worse(sa: number, a: number, sb: number, b: number): boolean {
  return sa < sb || (sa === sb && a > b);
}
