import type { DocumentRef } from './document-store.js';

export interface SectionRow {
  ord: number;
  title: string;
  anchor: string | null;
  text: string;
  hash: string;
  vector: Float32Array | null;
}

/** A document version ready to go live: sections null removes it (a delete). */
export interface PublishItem extends DocumentRef {
  sections: SectionRow[] | null;
}

export interface KeywordHit {
  uid: string;
  sectionId: number;
  title: string;
  score: number;
}

export interface PublishResult {
  /** Live now (or already were, when a job runs twice). */
  published: DocumentRef[];
  removed: DocumentRef[];
  /** Older than what is already live: left alone. */
  stale: number;
}

/**
 * Keyword and vector index of the sections. publish() swaps a document's keyword and vector
 * entries together; a version older than the live one never replaces it.
 */
export interface SearchIndex {
  publish(indexId: number, items: PublishItem[], model: string): PublishResult;
  /** Vectors already computed by `model` for these section hashes, so identical text is not embedded again. */
  reusableVectors(hashes: string[], model: string): Map<string, Float32Array>;
  keywordSearch(indexId: number, query: string, limit: number): KeywordHit[];
  vectorSearch(indexId: number, vector: Float32Array, limit: number): KeywordHit[];
  ensureIndex(indexId: number): void;
}
