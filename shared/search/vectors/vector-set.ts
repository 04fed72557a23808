import { blockedCopy, dots, dots8, nativeBlockedDots, nativeDots8Lists, nativeDots8ListsTop, nativeListHandle, nativeListHandleId, type ListHandle } from './dots.js';
import { sortInSteps } from './sort-in-steps.js';
import { topUnits } from '../rank/top-units.js';
import type { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-codec.js';

/** A vector set as a snapshot stores it (numbers name blobs). */
export interface VectorSetSnapshot {
  dims: number;
  count: number;
  present: number;
  data: number;
  ivf: {
    coarse: number; centroids: number; firstList: number; trainedOn: number; listOf: number; rowOf: number;
    /** codes and scales: absent in snapshots written before the int8 scan (computed on restore). */
    lists: { units: number; vectors: number; codes?: number; scales?: number }[];
  } | null;
}

/** Below this many vectors an exact scan is fast enough (a few ms) and needs no training. */
export const ANN_MIN_VECTORS = 4_000;
/** Coarse clusters of the first k-means (about the square root of the set, at most this many). */
const MAX_COARSE = 128;
/** Vectors per list (on average) once coarse clusters are split: a query's scan is a number of these. */
const LIST_SIZE = 128;
const TRAIN_ITERATIONS = 5;
const SAMPLE_PER_LIST = 40;
/** At least this many vectors (on average) are scanned per query: recall@10 0.98 on 5,000 bench:search documents (GloVe). */
const MIN_PROBED = 3000;
/**
 * ... and this many times the root of the set when that is more: the scan grows with the root of the
 * corpus. On 100,000 bench:search documents: 10,100 vectors, recall@10 0.83 (a flat 15% of 128 lists
 * scanned 15,600 for 0.85; 16 per root: 5,060 for 0.67).
 */
const PROBED_PER_ROOT = 32;
/**
 * A trained set's scan reads int8 codes (quantize) and keeps this many times k candidates by their
 * approximate score; those are scored again exactly from the float vectors. The answer is the exact
 * scan's whenever its top k are among the candidates (int8 rounding moves a score by ~1e-3).
 */
const RESCORE = 3;
/** Fewer rows than this to scan: their products are computed on the event loop, not handed to a thread. */
export const OFF_THREAD_MIN_ROWS = 16_384;
/** Growth since the last training that retrains a set nothing is arriving in (trainingDue). */
const SETTLED_GROWTH = 1.25;
/** Lists trimmed between two steps of a training (~128 rows each: a fraction of a ms). */
const TRIM_STEP = 64;
/** Units looked at, or vectors copied, between two steps of a training's gathering of the live vectors. */
const GATHER_STEP = 10_000;
/** Vectors given their nearest centroid between two steps of a training (~128 centroids each: a few ms). */
const ASSIGN_STEP = 500;

/**
 * Unit vectors of an index, packed in one Float32Array (unit-major), unit-normalised on insert so
 * a dot product is the cosine.
 *
 * Small sets are searched exactly. From ANN_MIN_VECTORS on, an inverted-file index (IVF, as in
 * FAISS's IndexIVFFlat) takes over: spherical k-means puts every vector in the list of its nearest
 * centroid (two levels: coarse clusters, each split into lists), and a query scans only the lists of
 * its nearest centroids, a number of vectors that grows with the root of the set.
 * Once trained, the lists hold the vectors, each list's contiguously (as IndexIVFFlat stores its codes
 * per list); a retraining gathers them back for its time. Each list also holds its vectors as int8
 * codes (a scale per vector): a query scans the codes, keeps RESCORE times k candidates, and scores
 * those again from the float vectors, so the scores are the float scan's (at a million GloVe vectors,
 * 0.60x the time; none of 500 queries' top 50 differed from the float scan's).
 * An exact scan of 100,000 x 100 dimensions costs ~15 ms in JavaScript on a small machine, too much
 * for a search box that also runs the keyword leg. Training (1.4 s for 100,000 vectors of 100 dimensions, 14 s for a million, on a slow 2-core host) is due
 * from ANN_MIN_VECTORS on and again when the set has doubled since; vectors added between trainings go
 * to their nearest list, deleted ones are skipped until the next training drops them. A server trains
 * in the background (`trainInSteps`, a few milliseconds at a time) and searches the current lists, or
 * every vector exactly, until the new lists are ready; with `trainOnQuery` the query that finds
 * training due does it.
 */
export class VectorSet {
  dims = 0;
  count = 0;
  /** Unit-major vectors (row u is unit u) until the inverted-file index is trained; then the lists hold them. */
  private data = new Float32Array(0);
  private present = new Uint8Array(0);
  private ivf: Ivf | null = null;
  /** While a training runs in steps: the units set (their vector) or deleted (null) since it began. */
  private changedDuringTraining: Map<number, Float32Array | null> | null = null;
  /** Restored from a snapshot without int8 codes: they were computed (a snapshot written now would hold them). */
  completedOnRestore = false;

  /**
   * `trainOnQuery`: a query that finds training due does it (else only prepare/trainInSteps do).
   * `offThreadMinRows`: the fewest rows topAsync hands to a thread (default OFF_THREAD_MIN_ROWS).
   * `sampleOrder`: the order a training samples units in (default: unit id); an order by what the
   * units stand for makes the lists independent of the order the vectors arrived in.
   */
  constructor(private readonly options: { trainOnQuery?: boolean; sampleOrder?: (a: number, b: number) => number; offThreadMinRows?: number } = {}) {}

  set(unit: number, vector: Float32Array): void {
    if (this.dims === 0) this.dims = vector.length;
    // Vectors of another size come from another model: they cannot be compared, so they are left out.
    if (vector.length !== this.dims) return;
    this.ensure(unit);
    const v = normalised(vector);
    if (!this.present[unit]) this.count++;
    this.present[unit] = 1;
    this.changedDuringTraining?.set(unit, v);
    if (this.ivf) this.ivf.assign(unit, v, 0);
    else this.data.set(v, unit * this.dims);
  }

  delete(unit: number): void {
    if (unit < this.present.length && this.present[unit]) {
      this.present[unit] = 0;
      this.count--;
      this.changedDuringTraining?.set(unit, null);
      this.ivf?.unassign(unit);
    }
  }

  /**
   * Whether the inverted-file index should be (re)trained: none yet from ANN_MIN_VECTORS on, or the set
   * doubled since. Once the set has `settled` (nothing arrived for a while), a quarter more is enough:
   * lists trained while vectors were still streaming in then get trained again on the whole set.
   */
  trainingDue(settled = false): boolean {
    if (this.changedDuringTraining !== null || this.count < ANN_MIN_VECTORS) return false;
    return !this.ivf || this.count > (settled ? SETTLED_GROWTH : 2) * this.ivf.trainedOn;
  }

  /**
   * The set as blobs of `w`. Marks and unit lists change in place, so they are copied; list vectors
   * are only appended to, so views of them hold. Not while a training runs (it would miss its changes).
   */
  snapshot(w: SnapshotWriter): VectorSetSnapshot | null {
    if (this.changedDuringTraining !== null) return null;
    const ivf = this.ivf;
    return {
      dims: this.dims,
      count: this.count,
      present: w.add(this.present.slice()),
      data: w.add(this.data.slice()),
      ivf: ivf && {
        coarse: w.add(ivf.coarse), centroids: w.add(ivf.centroids), firstList: w.add(ivf.firstList), trainedOn: ivf.trainedOn,
        listOf: w.add(ivf.listOf.slice()), rowOf: w.add(ivf.rowOf.slice()),
        lists: ivf.lists.map((l) => ({
          units: w.add(l.units.slice(0, l.length)), vectors: w.add(l.vectors.subarray(0, l.length * this.dims)),
          codes: w.add(new Uint8Array(l.codes.buffer, l.codes.byteOffset, l.length * this.dims)), scales: w.add(l.scales.subarray(0, l.length)),
        })),
      },
    };
  }

  static restore(r: SnapshotReader, s: VectorSetSnapshot, options: ConstructorParameters<typeof VectorSet>[0]): VectorSet {
    const set = new VectorSet(options);
    set.dims = s.dims;
    set.count = s.count;
    set.present = r.blob(s.present, 'u8');
    set.data = r.blob(s.data, 'f32');
    if (s.ivf) {
      const ivf = new Ivf(s.dims, r.blob(s.ivf.coarse, 'f32'), r.blob(s.ivf.centroids, 'f32'), r.blob(s.ivf.firstList, 'i32'), s.ivf.trainedOn);
      set.completedOnRestore = s.ivf.lists.some((l) => l.codes === undefined || l.scales === undefined);
      ivf.restore(r.blob(s.ivf.listOf, 'i32'), r.blob(s.ivf.rowOf, 'i32'), s.ivf.lists.map((l) => {
        const codes = l.codes === undefined ? undefined : r.blob(l.codes, 'u8');
        return {
          units: r.blob(l.units, 'i32'), vectors: r.blob(l.vectors, 'f32'),
          codes: codes && new Int8Array(codes.buffer, codes.byteOffset, codes.length), scales: l.scales === undefined ? undefined : r.blob(l.scales, 'f32'),
        };
      }));
      set.ivf = ivf;
    }
    return set;
  }

  /** Trains the inverted-file index now if it is due, in one go. */
  prepare(): void {
    if (!this.trainingDue()) return;
    const steps = this.train();
    while (!steps.next().done);
  }

  /**
   * Trains the inverted-file index if it is due, handing the event loop over (`pause`) between steps
   * of a few milliseconds; searches meanwhile use what there is. Changes made during the training are
   * applied to the new lists before they replace the old ones.
   */
  async trainInSteps(pause: () => Promise<void>, settled = false): Promise<void> {
    if (!this.trainingDue(settled)) return;
    const steps = this.train();
    while (!steps.next().done) await pause();
  }

  /** The k units most similar to `query`, best first, with their cosine similarity. */
  top(query: Float32Array, k: number, allow?: (unit: number) => boolean): { unit: number; score: number }[] {
    const plan = this.plan(query, k);
    return plan ? this.topNow(plan, k, allow) : [];
  }

  /**
   * `top` with the lists' int8 products computed on a thread of libuv's pool (the native addon) when they
   * are many, so the event loop is free meanwhile: the search interface scores its keyword leg then. The
   * same answers as `top` while nothing changes; a change made meanwhile is seen as after the search.
   */
  async topAsync(query: Float32Array, k: number, allow?: (unit: number) => boolean): Promise<{ unit: number; score: number }[]> {
    const plan = this.plan(query, k);
    if (!plan) return [];
    if (!plan.ivf || !nativeDots8Lists) return this.topNow(plan, k, allow);
    const { lists } = plan;
    const rows = Int32Array.from(lists, (l) => rowsOf(l, this.dims));
    const total = rows.reduce((a, b) => a + b, 0);
    // A hand-over costs more than a scan of a few thousand rows (bench:search at 100k, ~10,000 rows a query:
    // no faster at one client, 648 -> 603 searches/s at 16).
    if (total < (this.options.offThreadMinRows ?? OFF_THREAD_MIN_ROWS)) return this.topNow(plan, k, allow);
    // Rows are only ever added to a list (a deleted unit's row is marked -1, a trim keeps every row), so the
    // rows counted now are still there, with the same codes, when the products come back.
    if (!allow && nativeDots8ListsTop) {
      // The candidates chosen and scored off the event loop too: going through every row's product here took
      // half a millisecond of the event loop a query at a million sections (~32,000 rows), rescoring ~0.1 ms.
      const kk = k * RESCORE;
      const units = new Int32Array(kk);
      const exact = new Float64Array(kk);
      const at = new Int32Array(kk);
      const rowAt = new Int32Array(kk);
      const ids = Int32Array.from(lists, (l) => l.nativeId());
      const count = await nativeDots8ListsTop(plan.q8, plan.qd, ids, rows, this.dims, this.present, kk, units, exact, at, rowAt);
      // A candidate still in the row the thread scored keeps that score; one set again meanwhile is scored anew.
      return this.rescored(plan, units, count, k, (i, u) => (plan.ivf.lists[plan.ivf.listOf[u]] === lists[at[i]] && plan.ivf.rowOf[u] === rowAt[i] ? exact[i] : null));
    }
    const out = new Int32Array(total);
    await nativeDots8Lists(plan.q8, lists.map((l) => l.codes), rows, this.dims, out);
    const candidates = new TopK(k * RESCORE);
    for (let i = 0, at = 0; i < lists.length; at += rows[i], i++) this.takeCodes(out.subarray(at, at + rows[i]), rows[i], lists[i], candidates, allow);
    return this.rescored(plan, candidates.units, candidates.size, k);
  }

  private topNow(plan: Plan, k: number, allow?: (unit: number) => boolean): { unit: number; score: number }[] {
    if (!plan.ivf) {
      const heap = new TopK(k);
      this.scan(plan.qd, heap, allow);
      return heap.sorted();
    }
    const candidates = new TopK(k * RESCORE);
    for (const list of plan.lists) {
      const rows = rowsOf(list, this.dims);
      const out = intsFor(rows);
      dots8(plan.q8, list.codes, this.dims, rows, out);
      this.takeCodes(out, rows, list, candidates, allow);
    }
    return this.rescored(plan, candidates.units, candidates.size, k);
  }

  /** The query and, once the set is trained, the lists to scan (see Plan); null when nothing can match. */
  private plan(query: Float32Array, k: number): Plan | null {
    if (this.count === 0 || query.length !== this.dims || k <= 0) return null;
    // In double precision once: every dot product of the search reads it.
    const qd = Float64Array.from(normalised(query));
    if (this.options.trainOnQuery ?? true) this.prepare();
    const ivf = this.ivf;
    if (!ivf) return { qd, ivf: null };
    // The lists' int8 codes first (a quarter of the bytes, integer products), then the best candidates
    // again from their float vectors: the scores are the exact scan's, bit for bit.
    const q8 = new Int8Array(this.dims);
    quantize(qd, 0, this.dims, q8, 0);
    // Shrunk below the ANN size since training: every list, which is an exact scan.
    return { qd, q8, ivf, lists: ivf.probe(qd, this.count < ANN_MIN_VECTORS) };
  }

  /**
   * The k best of the candidates (the first `count` of `units`), scored again from their float vectors
   * (`scored`: candidate i's score when it is known already, else null).
   */
  private rescored(
    plan: Planned, units: Int32Array, count: number, k: number, scored: (i: number, unit: number) => number | null = () => null,
  ): { unit: number; score: number }[] {
    const { ivf } = plan;
    const heap = new TopK(k);
    for (let i = 0; i < count; i++) {
      const u = units[i];
      const list = ivf.listOf[u];
      // Gone from the lists while an off-thread scan ran.
      if (list < 0) continue;
      heap.push(u, scored(i, u) ?? dot(plan.qd, ivf.lists[list].vectors, ivf.rowOf[u] * this.dims));
    }
    return heap.sorted();
  }

  /** Takes into the heap the rows of `list` by their code products (approximately: the product times the row's scale). */
  private takeCodes(products: Int32Array, rows: number, list: PostingVector, heap: TopK, allow?: (unit: number) => boolean) {
    const { present } = this;
    const { scales, units } = list;
    for (let j = 0; j < rows; j++) {
      const score = products[j] * scales[j];
      if (!(score >= heap.threshold)) continue;
      const u = units[j];
      if (u < 0 || !present[u] || (allow && !allow(u))) continue;
      heap.push(u, score);
    }
  }

  /**
   * Scores into the heap every unit of the untrained set (row u is unit u). The dot products come in one
   * call for the whole run (dots.ts: the native addon when built), the heap takes what passes.
   */
  private scan(qd: Float64Array, heap: TopK, allow?: (unit: number) => boolean) {
    const { present, dims, data } = this;
    // Rows past the data have no vector (a set restored from a snapshot holds exactly its rows).
    const rows = Math.min(present.length, Math.floor(data.length / dims));
    const out = scoresFor(rows);
    dots(qd, data, dims, rows, out);
    for (let u = 0; u < rows; u++) {
      // The score first: most rows fall below the heap's threshold, and present[] is a cache miss per row.
      if (!(out[u] >= heap.threshold)) continue;
      if (!present[u] || (allow && !allow(u))) continue;
      heap.push(u, out[u]);
    }
  }

  /**
   * A new inverted-file index over the live vectors, in steps (a generator yields between them); the
   * unit-major copy is dropped once the lists hold the vectors.
   */
  private *train(): Generator<void, void, void> {
    this.changedDuringTraining = new Map();
    try {
      const { matrix, units, rows } = yield* this.liveVectors();
      const coarseCount = Math.min(MAX_COARSE, Math.max(16, Math.round(Math.sqrt(units.length))));
      // Evenly spaced samples: deterministic, and spread over the whole index.
      const byOrder = new Int32Array(units.length);
      for (let i = 0; i < byOrder.length; i++) byOrder[i] = i;
      const order = this.options.sampleOrder;
      // In steps: at a million units the comparisons of uids held the event loop most of a second.
      if (order) yield* sortInSteps(byOrder, (a, b) => order(units[a], units[b]));
      const sampleSize = Math.min(units.length, coarseCount * SAMPLE_PER_LIST);
      const sample = Array.from({ length: sampleSize }, (_, i) => rows[byOrder[Math.floor((i * units.length) / sampleSize)]]);
      const coarse = yield* kmeans(matrix, this.dims, sample, coarseCount);
      // Each coarse cluster is split by a k-means of its own members into lists of about LIST_SIZE: the
      // lists then shrink as the set grows (as FAISS's IVF with nlist ~ sqrt(N) or more), while the
      // training costs about what one k-means of MAX_COARSE clusters does.
      const coarseOf = new Int32Array(units.length);
      const coarseCentroids = new Centroids(coarse, this.dims);
      const members: number[][] = Array.from({ length: coarseCount }, () => []);
      for (let j = 0; j < byOrder.length; j++) {
        const i = byOrder[j];
        const c = coarseCentroids.nearest(matrix, rows[i] * this.dims);
        coarseOf[i] = c;
        members[c].push(rows[i]);
        if (j % ASSIGN_STEP === ASSIGN_STEP - 1) yield;
      }
      const parts: Float32Array[] = [];
      const firstList = new Int32Array(coarseCount + 1);
      for (let c = 0; c < coarseCount; c++) {
        if (c > 0) firstList[c] = firstList[c - 1] + parts[c - 1].length / this.dims;
        const rowsOfC = members[c];
        const k = Math.max(1, Math.round(rowsOfC.length / LIST_SIZE));
        if (k === 1) {
          parts.push(coarse.slice(c * this.dims, (c + 1) * this.dims));
          continue;
        }
        const size = Math.min(rowsOfC.length, k * SAMPLE_PER_LIST);
        parts.push(yield* kmeans(matrix, this.dims, Array.from({ length: size }, (_, i) => rowsOfC[Math.floor((i * rowsOfC.length) / size)]), k));
      }
      firstList[coarseCount] = firstList[coarseCount - 1] + parts[coarseCount - 1].length / this.dims;
      const centroids = new Float32Array(firstList[coarseCount] * this.dims);
      parts.forEach((part, c) => centroids.set(part, firstList[c] * this.dims));
      const ivf = new Ivf(this.dims, coarse, centroids, firstList, units.length);
      for (let i = 0; i < units.length; i++) {
        ivf.assign(units[i], matrix, rows[i] * this.dims, coarseOf[i]);
        if (i % ASSIGN_STEP === ASSIGN_STEP - 1) yield;
      }
      // Trimmed in steps, before the changes below (the last step): done in one go it was the longest step
      // of a training (40-110 ms at 100,000 vectors), and a search arriving then waited for it.
      for (let l = 0; l < ivf.lists.length; l++) {
        ivf.lists[l].trim();
        if (l % TRIM_STEP === TRIM_STEP - 1) yield;
      }
      // Vectors set or deleted while the lists were built (the matrix may hold either version of them).
      for (const [u, v] of this.changedDuringTraining) {
        if (v) ivf.assign(u, v, 0);
        else ivf.unassign(u);
      }
      this.ivf = ivf;
      this.data = new Float32Array(0);
    } finally {
      this.changedDuringTraining = null;
    }
  }

  /**
   * The live units, ascending, and where their vectors are: row rows[i] of `matrix` is unit units[i]'s. In
   * steps: at 1.3 million units a retraining's gathering (one object per vector, sorted) held the event loop
   * for 4.4 s.
   */
  private *liveVectors(): Generator<void, { matrix: Float32Array; units: Int32Array; rows: Int32Array }, void> {
    // The arrays as they are now: a vector set meanwhile may replace them (ensure), and is applied after the training.
    const { present, ivf, dims } = this;
    const found = new Int32Array(present.length);
    // Retraining: each unit's list and row, taken as the unit is found (a unit deleted after that
    // leaves its list; its row, never overwritten, still holds the vector).
    const listOf = ivf ? new Int32Array(present.length) : null;
    const rowOf = ivf ? new Int32Array(present.length) : null;
    let count = 0;
    for (let u = 0; u < present.length; u++) {
      if (present[u] && (!ivf || ivf.holds(u))) {
        if (ivf) {
          listOf![count] = ivf.listOf[u];
          rowOf![count] = ivf.rowOf[u];
        }
        found[count++] = u;
      }
      if (u % GATHER_STEP === GATHER_STEP - 1) yield;
    }
    const units = found.slice(0, count);
    if (!ivf) return { matrix: this.data, units, rows: units };
    // The lists' copies gathered into one block for the time of the training, in unit order as a first
    // training reads them (the sample, so the lists, then do not depend on the history). A vector set or
    // deleted meanwhile is read as it was (or as it is: either will do, its change is applied after the training).
    const matrix = new Float32Array(count * dims);
    for (let i = 0; i < count; i++) {
      const from = rowOf![i] * dims;
      const vectors = ivf.lists[listOf![i]].vectors;
      for (let d = 0, to = i * dims; d < dims; d++) matrix[to + d] = vectors[from + d];
      if (i % GATHER_STEP === GATHER_STEP - 1) yield;
    }
    const rows = new Int32Array(count);
    for (let i = 0; i < count; i++) rows[i] = i;
    return { matrix, units, rows };
  }

  private ensure(unit: number) {
    if (unit < this.present.length) return;
    let n = Math.max(1024, this.present.length);
    while (n <= unit) n *= 2;
    if (!this.ivf) {
      // A training in steps keeps reading the old block: vectors set since are applied from changedDuringTraining.
      const data = new Float32Array(n * this.dims);
      data.set(this.data);
      this.data = data;
    }
    const present = new Uint8Array(n);
    present.set(this.present);
    this.present = present;
  }
}

let scores = new Float64Array(1024);
let ints = new Int32Array(1024);

/** A search's query in double precision, and with lists (a trained set) the query in int8 and the lists it scans; without, every vector is scanned. */
type Plan = { qd: Float64Array; ivf: null } | Planned;
type Planned = { qd: Float64Array; q8: Int8Array; ivf: Ivf; lists: PostingVector[] };

/** A list's rows that have codes (all of them, but for a snapshot cut short). */
const rowsOf = (list: PostingVector, dims: number) => Math.min(list.length, Math.floor(list.codes.length / dims));

/** Reused room for one run's int8 dot products. */
function intsFor(n: number): Int32Array {
  if (ints.length < n) ints = new Int32Array(Math.max(n, ints.length * 2));
  return ints;
}

/** q . data[offset .. offset + q.length), as `dots` computes it (products in double precision, summed in order). */
function dot(q: Float64Array, data: Float32Array, offset: number): number {
  let d = 0;
  for (let i = 0; i < q.length; i++) d += data[offset + i] * q[i];
  return d;
}

/**
 * Writes v[offset .. offset + dims) as int8 codes at codes[at ..] (each component over the largest
 * magnitude, times 127, rounded) and returns the scale a code product is multiplied by.
 */
function quantize(v: Float32Array | Float64Array, offset: number, dims: number, codes: Int8Array, at: number): number {
  let max = 0;
  for (let i = 0; i < dims; i++) {
    const x = v[offset + i];
    if (x > max) max = x;
    else if (-x > max) max = -x;
  }
  if (max === 0) {
    codes.fill(0, at, at + dims);
    return 0;
  }
  // Int8Array stores a number by truncation: adding a half away from zero rounds to nearest.
  const inverse = 127 / max;
  for (let i = 0; i < dims; i++) {
    const x = v[offset + i] * inverse;
    codes[at + i] = x < 0 ? x - 0.5 : x + 0.5;
  }
  return max / 127;
}

/** Reused room for one run's dot products (search is synchronous: one scan at a time). */
function scoresFor(n: number): Float64Array {
  if (scores.length < n) scores = new Float64Array(Math.max(n, scores.length * 2));
  return scores;
}

function normalised(v: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
  norm = Math.sqrt(norm) || 1;
  // A loop, not Float32Array.from(v, map): that calls the map per element through the iterator protocol,
  // and every API process normalises every vector it takes in (~40x slower, the same values).
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] / norm;
  return out;
}

/**
 * One inverted list: its units and their vectors, row after row. Reading a list's vectors from one
 * contiguous block instead of gathering rows scattered over the whole set halved a query's time on
 * 100,000 GloVe vectors (1.6 ms against 3.1-4.2 ms).
 */
class PostingVector {
  // Empty until the first row: a list restored from a snapshot gets the snapshot's arrays instead.
  units: Int32Array = new Int32Array(0);
  vectors: Float32Array = new Float32Array(0);
  /** Each row's vector as int8 codes (quantize), and the scale of each row's codes. */
  codes: Int8Array = new Int8Array(0);
  scales: Float32Array = new Float32Array(0);
  length = 0;
  /**
   * The addon's handle on the four arrays (nativeDots8ListsTop), made again after they are replaced, and its id
   * (what a scan hands over; valid while this holds the handle).
   */
  private handle: ListHandle | null = null;
  private handleId = -1;

  constructor(private readonly dims: number) {}

  nativeId(): number {
    if (this.handle === null) {
      this.handle = nativeListHandle!(this.codes, this.scales, this.units, this.vectors, this.dims);
      this.handleId = nativeListHandleId!(this.handle);
    }
    return this.handleId;
  }

  /** Appends unit's vector (data[offset .. offset + dims)); returns its row. */
  push(u: number, data: Float32Array, offset: number): number {
    if (this.length === this.units.length) {
      const rows = Math.max(64, this.length * 2);
      this.handle = null;
      this.units = withLength(this.units, rows);
      this.vectors = withLength(this.vectors, rows * this.dims);
      this.codes = withLength(this.codes, rows * this.dims);
      this.scales = withLength(this.scales, rows);
    }
    this.units[this.length] = u;
    this.vectors.set(data.subarray(offset, offset + this.dims), this.length * this.dims);
    this.scales[this.length] = quantize(data, offset, this.dims, this.codes, this.length * this.dims);
    return this.length++;
  }

  /** A snapshot's rows; codes and scales are computed when it has none. */
  restore(units: Int32Array, vectors: Float32Array, codes?: Int8Array, scales?: Float32Array) {
    this.handle = null;
    this.units = units;
    this.vectors = vectors;
    this.length = units.length;
    if (codes && scales) {
      this.codes = codes;
      this.scales = scales;
      return;
    }
    this.codes = new Int8Array(this.length * this.dims);
    this.scales = new Float32Array(this.length);
    for (let j = 0; j < this.length; j++) this.scales[j] = quantize(vectors, j * this.dims, this.dims, this.codes, j * this.dims);
  }

  /** Drops the room grown for more rows (up to half the block after doublings), keeping an eighth spare. */
  trim() {
    const size = Math.max(4, Math.ceil(this.length * 1.125));
    if (size >= this.units.length) return;
    this.handle = null;
    this.units = this.units.slice(0, size);
    this.vectors = this.vectors.slice(0, size * this.dims);
    this.codes = this.codes.slice(0, size * this.dims);
    this.scales = this.scales.slice(0, size);
  }
}

/** A copy of `a` of `length` items (its own first, zeros after). */
function withLength<T extends Int32Array | Float32Array | Int8Array>(a: T, length: number): T {
  const next = new (a.constructor as new (length: number) => T)(length);
  next.set(a);
  return next;
}

/**
 * The inverted file: lists (each the vectors nearest one centroid) grouped under coarse clusters; a
 * vector goes to its nearest coarse cluster, then to the nearest list of that cluster.
 */
class Ivf {
  readonly lists: PostingVector[];
  private readonly centroidScores: Float64Array;
  /** 0 .. lists - 1, the lists a probe chooses from (made once: at a million sections there are ~8,000). */
  private readonly listIds: Int32Array;
  /**
   * Every list's centroid, for the probe: its ~8,000 products at a million sections take 0.11 ms of the event
   * loop with the addon's blocked layout, 0.27 ms one centroid at a time, with the same scores (the blocked
   * copy is 3.2 MB there).
   */
  private readonly all: Centroids;
  /** What assign looks for a vector's nearest among: the coarse centroids, and each coarse cluster's lists (made on first use). */
  private coarseCentroids: Centroids | null = null;
  private readonly listCentroids: (Centroids | undefined)[] = [];
  /** Where each unit's copy is: list and row (list -1: in none). */
  listOf: Int32Array = new Int32Array(0);
  rowOf: Int32Array = new Int32Array(0);

  /** The lists of coarse cluster c are firstList[c] .. firstList[c + 1]; centroids holds one per list. */
  constructor(
    private readonly dims: number,
    readonly coarse: Float32Array,
    readonly centroids: Float32Array,
    readonly firstList: Int32Array,
    readonly trainedOn: number,
  ) {
    const k = centroids.length / dims;
    this.lists = Array.from({ length: k }, () => new PostingVector(dims));
    this.listIds = Int32Array.from({ length: k }, (_, c) => c);
    this.centroidScores = new Float64Array(k);
    this.all = new Centroids(centroids, dims);
  }

  /**
   * Puts unit's vector (data[offset .. offset + dims)) in its list, leaving any earlier copy behind;
   * `coarse` is its coarse cluster when the caller knows it already.
   */
  assign(unit: number, data: Float32Array, offset: number, coarse = (this.coarseCentroids ??= new Centroids(this.coarse, this.dims)).nearest(data, offset)) {
    this.unassign(unit);
    if (unit >= this.listOf.length) {
      const size = Math.max(1024, 2 * unit);
      const listOf = new Int32Array(size).fill(-1);
      listOf.set(this.listOf);
      const rowOf = new Int32Array(size);
      rowOf.set(this.rowOf);
      this.listOf = listOf;
      this.rowOf = rowOf;
    }
    const first = this.firstList[coarse];
    const lists = (this.listCentroids[coarse] ??= new Centroids(this.centroids.subarray(first * this.dims, this.firstList[coarse + 1] * this.dims), this.dims));
    const l = first + lists.nearest(data, offset);
    this.listOf[unit] = l;
    this.rowOf[unit] = this.lists[l].push(unit, data, offset);
  }

  /** Takes the placement and the lists' contents from a snapshot. */
  restore(listOf: Int32Array, rowOf: Int32Array, lists: { units: Int32Array; vectors: Float32Array; codes?: Int8Array; scales?: Float32Array }[]) {
    this.listOf = listOf;
    this.rowOf = rowOf;
    lists.forEach((l, i) => this.lists[i].restore(l.units, l.vectors, l.codes, l.scales));
  }

  /** Whether the unit has a copy in a list. */
  holds(unit: number): boolean {
    const l = unit < this.listOf.length ? this.listOf[unit] : -1;
    return l >= 0 && this.lists[l].units[this.rowOf[unit]] === unit;
  }

  /** Marks the unit's copy as gone (scans skip it; the next training drops it). */
  unassign(unit: number) {
    const l = unit < this.listOf.length ? this.listOf[unit] : -1;
    if (l < 0) return;
    this.lists[l].units[this.rowOf[unit]] = -1;
    this.listOf[unit] = -1;
  }

  /**
   * The lists of the centroids nearest to q (every list when `all`): enough of them for MIN_PROBED
   * vectors, or PROBED_PER_ROOT times the root of the set when that is more.
   */
  probe(q: Float64Array, all = false): PostingVector[] {
    const k = this.lists.length;
    if (all) return this.lists;
    // In doubles: codes first and the best few again (as a list's scan) was slower here (1.69 -> 2.04 ms
    // a query at a million vectors), the heap of candidates costing more than the products it spared.
    this.all.scores(q, this.centroidScores);
    const n = Math.max(1, this.trainedOn);
    const wanted = Math.max(MIN_PROBED, PROBED_PER_ROOT * Math.sqrt(n));
    const probes = Math.min(k, Math.max(1, Math.ceil((k * wanted) / n)));
    // In no particular order: a scan's candidates are the same whatever order its lists come in (TopK).
    return topUnits(this.listIds, this.centroidScores, probes, false).map((c) => this.lists[c]);
  }

}

/**
 * Centroids to find vectors' nearest among: row-major, and laid out for the addon's blockedDots when it
 * is built (a copy of the same floats: the same sums, bit for bit, about twice as fast again as dots).
 * Finding the nearest is most of a training's time (at a million vectors 34 of 40 s as a loop here).
 */
class Centroids {
  readonly count: number;
  private readonly blocked: Float32Array | null;

  constructor(readonly rows: Float32Array, readonly dims: number) {
    this.count = rows.length / dims;
    this.blocked = nativeBlockedDots ? blockedCopy(rows, dims, this.count) : null;
  }

  /** out[c] = q . centroid c, for every centroid. */
  scores(q: Float64Array, out: Float64Array): void {
    if (this.blocked) nativeBlockedDots!(q, this.blocked, this.dims, this.count, out);
    else dots(q, this.rows, this.dims, this.count, out);
  }

  /** Index of the centroid with the largest dot product with data[offset .. offset + dims); the first on ties. */
  nearest(data: Float32Array, offset: number): number {
    const { dims, count } = this;
    if (nearestQuery.length !== dims) nearestQuery = new Float64Array(dims);
    const q = nearestQuery;
    for (let i = 0; i < dims; i++) q[i] = data[offset + i];
    if (centroidScores.length < count) centroidScores = new Float64Array(Math.max(count, centroidScores.length * 2));
    const out = centroidScores;
    this.scores(q, out);
    let best = 0;
    let bestDot = -Infinity;
    for (let c = 0; c < count; c++) {
      if (out[c] > bestDot) {
        best = c;
        bestDot = out[c];
      }
    }
    return best;
  }
}
let nearestQuery = new Float64Array(0);
let centroidScores = new Float64Array(256);

/** Spherical k-means over the sampled units: centroids are re-normalised means of their members. */
function* kmeans(data: Float32Array, dims: number, sample: number[], k: number): Generator<void, Float32Array, void> {
  const centroids = new Float32Array(k * dims);
  for (let c = 0; c < k; c++) {
    const seed = sample[Math.floor((c * sample.length) / k)] * dims;
    centroids.set(data.subarray(seed, seed + dims), c * dims);
  }
  const sums = new Float64Array(k * dims);
  const sizes = new Int32Array(k);
  for (let it = 0; it < TRAIN_ITERATIONS; it++) {
    sums.fill(0);
    sizes.fill(0);
    const current = new Centroids(centroids, dims);
    for (let j = 0; j < sample.length; j++) {
      const u = sample[j];
      const c = current.nearest(data, u * dims);
      sizes[c]++;
      for (let i = 0; i < dims; i++) sums[c * dims + i] += data[u * dims + i];
      if (j % ASSIGN_STEP === ASSIGN_STEP - 1) yield;
    }
    for (let c = 0; c < k; c++) {
      if (sizes[c] === 0) continue; // an empty cluster keeps its centroid
      let norm = 0;
      for (let i = 0; i < dims; i++) norm += sums[c * dims + i] ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < dims; i++) centroids[c * dims + i] = sums[c * dims + i] / norm;
    }
  }
  return centroids;
}

/**
 * The k best (unit, score) pairs seen, as a min-heap on score (ties: the higher unit is worse) in
 * typed arrays; `threshold` lets the caller skip the push of anything that cannot enter.
 */
class TopK {
  readonly units: Int32Array;
  readonly scores: Float64Array;
  size = 0;
  threshold = -Infinity;

  constructor(readonly k: number) {
    this.units = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  push(unit: number, score: number) {
    const { units, scores } = this;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(score, unit, scores[p], units[p])) break;
        units[i] = units[p];
        scores[i] = scores[p];
        i = p;
      }
      units[i] = unit;
      scores[i] = score;
    } else {
      if (!worse(scores[0], units[0], score, unit)) return;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.k) break;
        const r = l + 1;
        const m = r < this.k && worse(scores[r], units[r], scores[l], units[l]) ? r : l;
        if (!worse(scores[m], units[m], score, unit)) break;
        units[i] = units[m];
        scores[i] = scores[m];
        i = m;
      }
      units[i] = unit;
      scores[i] = score;
    }
    if (this.size === this.k) this.threshold = scores[0];
  }

  sorted(): { unit: number; score: number }[] {
    const out = Array.from({ length: this.size }, (_, i) => ({ unit: this.units[i], score: this.scores[i] }));
    return out.sort((a, b) => b.score - a.score || a.unit - b.unit);
  }
}

/** Lower score, or the same score and a higher unit id (ties keep the lower id, as exact ranking does). */
const worse = (s1: number, u1: number, s2: number, u2: number) => s1 < s2 || (s1 === s2 && u1 > u2);
