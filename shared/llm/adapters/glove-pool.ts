import { join } from 'node:path';
import { loadAddon } from '../../native/load-addon.js';

/** acc[d] += weights[r] * vectors[r * dims + d] for the first `count` rows r of `rows`, in order. */
export type WeightedRows = (acc: Float64Array, vectors: Float32Array, weights: Float32Array, dims: number, rows: Int32Array, count: number) => void;

/**
 * The pooling of word vectors in JavaScript: per element in row order, each product in double precision.
 * native/dot's weightedRows does exactly this arithmetic, so both give the same embeddings to the last bit.
 * Unrolled by 4 because V8 does not vectorise and it measured ~15% faster; `dims` is a multiple of 4.
 */
export const weightedRowsInJs: WeightedRows = (acc, vectors, weights, dims, rows, count) => {
  for (let k = 0; k < count; k++) {
    const r = rows[k];
    const w = weights[r];
    for (let d = 0, o = r * dims; d < dims; d += 4, o += 4) {
      acc[d] += w * vectors[o];
      acc[d + 1] += w * vectors[o + 1];
      acc[d + 2] += w * vectors[o + 2];
      acc[d + 3] += w * vectors[o + 3];
    }
  }
};

const addon = loadAddon<{ weightedRows?: WeightedRows }>(join('native', 'dot', 'build', 'Release', 'quarry_dot.node'));

/** The addon's pooling (vectorised C, ~60% of an embedding in JavaScript) when built, else JavaScript's (same vectors). */
export const nativeWeightedRows: WeightedRows | null = addon?.weightedRows ?? null;
export const weightedRows: WeightedRows = nativeWeightedRows ?? weightedRowsInJs;
