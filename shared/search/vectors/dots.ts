import { join } from 'node:path';
import { loadAddon } from '../../native/load-addon.js';

/** out[j] = q . data[j * dims .. (j + 1) * dims) for j < rows. */
export type Dots = (q: Float64Array, data: Float32Array, dims: number, rows: number, out: Float64Array) => void;

/**
 * The JavaScript dot products: each product in double precision, summed in order, one sum per vector,
 * four vectors per pass so each query component is loaded once for four products. native/dot does
 * exactly this arithmetic, so both give the same scores to the last bit.
 */
export const dotsInJs: Dots = (q, data, dims, rows, out) => {
  let j = 0;
  for (; j + 4 <= rows; j += 4) {
    const b0 = j * dims;
    const b1 = b0 + dims;
    const b2 = b1 + dims;
    const b3 = b2 + dims;
    let d0 = 0;
    let d1 = 0;
    let d2 = 0;
    let d3 = 0;
    for (let i = 0; i < dims; i++) {
      const x = q[i];
      d0 += data[b0 + i] * x;
      d1 += data[b1 + i] * x;
      d2 += data[b2 + i] * x;
      d3 += data[b3 + i] * x;
    }
    out[j] = d0;
    out[j + 1] = d1;
    out[j + 2] = d2;
    out[j + 3] = d3;
  }
  for (; j < rows; j++) {
    const b0 = j * dims;
    let d = 0;
    for (let i = 0; i < dims; i++) d += data[b0 + i] * q[i];
    out[j] = d;
  }
};

/** out[j] = q . data[j * dims .. (j + 1) * dims) for j < rows, of int8 codes, in integers (exact in any order). */
export type Dots8 = (q: Int8Array, data: Int8Array, dims: number, rows: number, out: Int32Array) => void;

/** The JavaScript int8 dot products (small integers: exact, as the addon's are). */
export const dots8InJs: Dots8 = (q, data, dims, rows, out) => {
  for (let j = 0; j < rows; j++) {
    const b = j * dims;
    let d = 0;
    for (let i = 0; i < dims; i++) d += data[b + i] * q[i];
    out[j] = d;
  }
};

/**
 * dots8 over several lists, rows[i] rows of lists[i], written one list after another into out, on a thread of
 * libuv's pool: the promise settles once out holds them all. The lists must not lose rows meanwhile.
 */
export type Dots8Lists = (q: Int8Array, lists: Int8Array[], rows: Int32Array, dims: number, out: Int32Array) => Promise<void>;

/** The addon's hold on one IVF list's arrays (listHandle): what dots8ListsTop takes per list. */
export type ListHandle = object;

/** A handle on a list's arrays (int8 codes, scales, units, float vectors) for dots8ListsTop; the handle keeps them alive. */
export type MakeListHandle = (codes: Int8Array, scales: Float32Array, units: Int32Array, vectors: Float32Array, dims: number) => ListHandle;

/** The number dots8ListsTop names a handle by, valid while the handle is reachable (ids of collected handles are reused). */
export type ListHandleId = (handle: ListHandle) => number;

/**
 * dots8Lists, the choice of a scan's candidates and their exact scores in one call off the event loop: the `k`
 * best rows by code product times the row's scale (units not -1 and present), each with its float score (qd .
 * its vector, as vector-set.ts's dot computes it), its list (an index into `lists`, the lists' ListHandleIds)
 * and its row, in heap order;
 * the promise settles with how many there are. VectorSet.takeCodes chooses the same k (see its TopK).
 */
export type Dots8ListsTop = (
  q8: Int8Array, qd: Float64Array, lists: Int32Array, rows: Int32Array, dims: number, present: Uint8Array, k: number,
  outUnits: Int32Array, outScores: Float64Array, outLists: Int32Array, outRows: Int32Array,
) => Promise<number>;

/** Vectors per block of a blocked copy (blockedCopy). */
export const BLOCK = 32;

/** out[c] = q . vector c for c < count, the vectors as blockedCopy lays them out: the same sums as dots(), bit for bit. */
export type BlockedDots = (q: Float64Array, blocked: Float32Array, dims: number, count: number, out: Float64Array) => void;

/**
 * The `count` row-major vectors of `data` in blocks of BLOCK, component by component (a block's i-th
 * components side by side), the last block padded with zeros: blockedDots then sums BLOCK vectors in the
 * lanes of one register instead of one at a time.
 */
export function blockedCopy(data: Float32Array, dims: number, count: number): Float32Array {
  const out = new Float32Array(Math.ceil(count / BLOCK) * BLOCK * dims);
  for (let c = 0; c < count; c++) {
    const base = Math.floor(c / BLOCK) * BLOCK * dims + (c % BLOCK);
    for (let i = 0; i < dims; i++) out[base + i * BLOCK] = data[c * dims + i];
  }
  return out;
}

const addon = loadAddon<{ dots: Dots; dots8?: Dots8; dots8Lists?: Dots8Lists; dots8ListsTop?: Dots8ListsTop; listHandle?: MakeListHandle; listHandleId?: ListHandleId; blockedDots?: BlockedDots }>(join('native', 'dot', 'build', 'Release', 'quarry_dot.node'));

/** The addon's dot products (C, several times faster on the vector leg's scans), or null when it was not built. */
export const nativeDots: Dots | null = addon?.dots ?? null;
/** The addon's int8 dot products (vectorised C), or null when it was not built (or built before it had them). */
export const nativeDots8: Dots8 | null = addon?.dots8 ?? null;

/** The addon's int8 products off the event loop, or null without the addon (scans then run on the event loop). */
export const nativeDots8Lists: Dots8Lists | null = addon?.dots8Lists ?? null;

/** The addon's scan with its choice and scoring of candidates off the event loop, or null (then dots8Lists and takeCodes). */
export const nativeDots8ListsTop: Dots8ListsTop | null = (addon?.listHandle && addon?.listHandleId && addon?.dots8ListsTop) ?? null;

/** The addon's handles on lists for nativeDots8ListsTop (null exactly when it is). */
export const nativeListHandle: MakeListHandle | null = (addon?.dots8ListsTop && addon?.listHandleId && addon?.listHandle) ?? null;
export const nativeListHandleId: ListHandleId | null = (addon?.dots8ListsTop && addon?.listHandle && addon?.listHandleId) ?? null;

/** The addon's products over a blocked copy (the IVF probe), or null: then dots over the row-major vectors. */
export const nativeBlockedDots: BlockedDots | null = addon?.blockedDots ?? null;

/** The dot products the vector structures use: the addon's when built, else JavaScript's (same answers). */
export const dots: Dots = nativeDots ?? dotsInJs;
/** The int8 dot products: the addon's when built, else JavaScript's (same answers). */
export const dots8: Dots8 = nativeDots8 ?? dots8InJs;
