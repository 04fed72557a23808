import type { FieldSpec, IndexRecord } from '../../indexes/index-schema.js';

export interface IndexRegistry {
  /** Creates the index or updates its language and fields; returns the stored record and whether it is new. */
  upsert(uid: string, languageCode: string, fields: Record<string, FieldSpec>): Promise<{ index: IndexRecord; created: boolean }>;
  get(uid: string): Promise<IndexRecord | null>;
  getById(id: number): Promise<IndexRecord | null>;
  list(): Promise<IndexRecord[]>;
  setEmbedder(id: number, embedder: string): Promise<void>;
}
