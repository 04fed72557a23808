import { LUCENE_BM25, type Bm25Params } from '../rank/bm25.js';
import { luceneLength } from '../rank/lucene-length.js';
import { termId } from './term-ids.js';

/** A sparse vector as Qdrant takes it: unique indices and their values, same length. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/**
 * A field's tokens as a sparse vector whose values are BM25's term-frequency part, exactly as the
 * embedded engine scores a posting (dismax.ts): f / (f + k1 (1 - b + b · len / avgLength)) with Lucene's
 * one-byte length (`length`: the length BM25 sees, when
 * it is not that of `tokens`, as for a page: the sum of its sections' lengths). A search engine that multiplies each value by the term's IDF and the query's weight
 * (Qdrant's `modifier: idf`) then computes BM25. `avgLength` is the field's average length in tokens.
 */
export function bm25Vector(tokens: readonly string[], avgLength: number, length = luceneLength(tokens.length), bm25: Bm25Params = LUCENE_BM25): SparseVector {
  const counts = termCounts(tokens);
  const norm = bm25.k1 * (1 - bm25.b + (bm25.b * length) / Math.max(avgLength, 1e-9));
  const indices: number[] = [];
  const values: number[] = [];
  for (const [id, f] of counts) {
    indices.push(id);
    values.push(f / (f + norm));
  }
  return { indices, values };
}

/** A query's terms as a sparse vector: a repeated term weighs more, as a repeated clause does in Lucene. */
export function queryVector(terms: readonly string[], weight = 1): SparseVector {
  const counts = termCounts(terms);
  return { indices: [...counts.keys()], values: [...counts.values()].map((n) => n * weight) };
}

function termCounts(tokens: readonly string[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const t of tokens) {
    const id = termId(t);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
