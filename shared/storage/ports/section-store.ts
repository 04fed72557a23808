import type { DocumentRef } from './document-store.js';

export interface SectionRow {
  ord: number;
  /** The schema field the text came from ('' for a title-only document). */
  field: string;
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
/** A live section as search reads it. */
export interface SectionView {
  id: number;
  uid: string;
  field: string;
  title: string;
  anchor: string | null;
  text: string;
  vector: Float32Array | null;
  /** The embedding model the vector came from. */
  vectorModel: string | null;
}

export interface SearchIndex {
  publish(indexId: number, items: PublishItem[], model: string): PublishResult;
  /** Vectors already computed by `model` for these section hashes, so identical text is not embedded again. */
  reusableVectors(hashes: string[], model: string): Map<string, Float32Array>;
  keywordSearch(indexId: number, query: string, limit: number): KeywordHit[];
  vectorSearch(indexId: number, vector: Float32Array, limit: number): KeywordHit[];
  ensureIndex(indexId: number): void;
  /** Live sections of an index (all of them, or of some documents), ordered by document and position. */
  sections(indexId: number, uids?: string[]): SectionView[];
  /** Documents published or removed after change `seq`, in order; the log a search engine tails. */
  changesSince(indexId: number, seq: number, limit: number): { seq: number; uid: string }[];
  lastChange(): number;
  /** Oldest change still in the log (0 when empty): a reader behind it must reload from scratch. */
  firstChange(): number;
  /** Drops all but the newest `keep` entries of the change log. */
  pruneChanges(keep: number): number;
}
