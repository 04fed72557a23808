import { LENGTH_OF_CODE } from './lucene-length.js';

export interface Bm25Params {
  /** Term-frequency saturation; Lucene's default 1.2 (Anserini uses 0.9). */
  k1: number;
  /** Length normalisation; Lucene's default 0.75 (Anserini uses 0.4). */
  b: number;
}

export const LUCENE_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

/**
 * lengthNorm for each length code (LENGTH_OF_CODE): one table lookup per posting instead of the division.
 * The last few tables are kept (a field's average length stays the same from query to query until the
 * index changes): building one cost a short query a seventh of its time. Callers must not write to it.
 */
export function lengthNorms(k1: number, b: number, avgdl: number): Float64Array {
  for (const t of recentNorms) if (t.k1 === k1 && t.b === b && t.avgdl === avgdl) return t.norms;
  const norms = new Float64Array(256);
  for (let c = 0; c < 256; c++) norms[c] = lengthNorm(LENGTH_OF_CODE[c], k1, b, avgdl);
  recentNorms[nextNorms] = { k1, b, avgdl, norms };
  nextNorms = (nextNorms + 1) % RECENT_NORMS;
  return norms;
}

/** Tables kept by lengthNorms: a few fields of a few indexes. */
const RECENT_NORMS = 16;
const recentNorms: { k1: number; b: number; avgdl: number; norms: Float64Array }[] = [];
let nextNorms = 0;

/** BM25's length part of a field of `length` tokens. */
export function lengthNorm(length: number, k1: number, b: number, avgdl: number): number {
  return k1 * (1 - b + (b * length) / avgdl);
}

/** A posting's BM25 score from its field's length part `norm` (lengthNorm); bm25() is this too, so the table gives the same bits. */
export function postingScore(weight: number, f: number, norm: number): number {
  return (weight * f) / (f + norm);
}

/** A posting's BM25 score in a field: `weight` (boost times idf) times the saturated, length-normalised frequency. */
export function bm25(weight: number, f: number, length: number, k1: number, b: number, avgdl: number): number {
  return postingScore(weight, f, lengthNorm(length, k1, b, avgdl));
}

/** Lucene's BM25 idf: ln(1 + (N - df + 0.5) / (df + 0.5)). */
export function bm25Idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}
