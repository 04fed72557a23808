import type { FieldSpec, IndexRecord } from '../../indexes/index-schema.js';
import type { ListPage } from './list-page.js';

/** Thrown by `upsert` when creating the index would make more than `maxIndexes`. */
export class IndexLimitReached extends Error {
  constructor(readonly max: number) {
    super(`There are ${max} indexes already`);
  }
}

export interface IndexRegistry {
  /**
   * Creates the index or updates its language and fields; returns the stored record and whether it is new.
   * Creating one when `maxIndexes` exist already throws IndexLimitReached (counted in the same transaction,
   * so concurrent creations from any process cannot pass it).
   */
  upsert(uid: string, languageCode: string, fields: Record<string, FieldSpec>, maxIndexes?: number): Promise<{ index: IndexRecord; created: boolean }>;
  get(uid: string): Promise<IndexRecord | null>;
  getById(id: number): Promise<IndexRecord | null>;
  /** By uid (code point order); a page of them after the uid `page.after`, or every index without `page`. */
  list(page?: ListPage<string>): Promise<IndexRecord[]>;
  setEmbedder(id: number, embedder: string): Promise<void>;
}
