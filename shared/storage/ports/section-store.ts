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

export interface PublishResult {
  /** Live now (or already were, when a job runs twice). */
  published: DocumentRef[];
  removed: DocumentRef[];
  /** Older than what is already live: left alone. */
  stale: number;
}

/** A live section as search reads it. */
export interface SectionView {
  id: number;
  uid: string;
  version: number;
  ord: number;
  field: string;
  title: string;
  anchor: string | null;
  text: string;
  /** null when the section has none, or when it was read without vectors. */
  vector: Float32Array | null;
  /** The embedding model the vector came from. */
  vectorModel: string | null;
}

export interface ChangeEntry {
  seq: number;
  uid: string;
}

/**
 * Copies of the sections kept outside the section store (an external vector index, an external keyword
 * index), which a publish writes so that the section store stays the judge of order: `prepare` reads
 * what the copies need before the publish's transaction; the write it returns runs inside it, after
 * the documents' live rows are locked and before the new versions go live, with the items newer than
 * what is live (deletes included). A write that throws aborts the publish. Built by the storage
 * factory for the mode; the callers of publish never see it.
 */
export interface SectionMirror {
  /** null: nothing to write (the index is gone). */
  prepare(indexId: number, items: PublishItem[]): Promise<MirrorWrite | null>;
}

export type MirrorWrite = (accepted: PublishItem[]) => Promise<void>;

/**
 * The live sections of every index (text and vectors) and the per-index change feed that search
 * engines tail. publish() swaps a document's sections whole; a version older than the live one
 * never replaces it, and a delete leaves its version behind so a late, older write cannot return.
 * Change entries of an index are read in commit order: a reader that has seen entry n never later
 * finds an entry below n.
 */
export interface SectionStore {
  publish(indexId: number, items: PublishItem[], model: string): Promise<PublishResult>;
  /** Vectors already computed by `model` for these section hashes, so identical text is not embedded again. */
  reusableVectors(hashes: string[], model: string): Promise<Map<string, Float32Array>>;
  /**
   * Live sections of an index (all of them, or of some documents), ordered by document and position.
   * `vectors: false` leaves the vectors out (they live in an external vector index).
   */
  sections(indexId: number, uids?: string[], options?: { vectors?: boolean }): Promise<SectionView[]>;
  /**
   * Live sections of the next `documents` documents whose uid sorts after `afterUid` (null: from the
   * first), ordered by document uid and position: an index read in parts, so reading it whole never holds
   * more than one part.
   */
  sectionsPage(indexId: number, afterUid: string | null, documents: number, options?: { vectors?: boolean }): Promise<SectionView[]>;
  /**
   * The live sections at these positions (document and `ord`), without vectors, in any order; a
   * position the store no longer has is left out. What a search reads for the few results it returns,
   * in one round trip, instead of every section of each document.
   */
  sectionsAt(indexId: number, at: readonly SectionPosition[]): Promise<SectionView[]>;
  /**
   * The live sections of an index with these ids (`SectionView.id`), without vectors, in any order; an
   * id the store no longer has (its document was published again since, or removed) is left out.
   */
  sectionsById(indexId: number, ids: readonly number[]): Promise<SectionView[]>;
  /** The live version of each of these documents that has one (deleted documents included). */
  liveVersions(indexId: number, uids: string[]): Promise<Map<string, number>>;
  /** Documents published or removed after change `seq`, in order; the feed a search engine tails. */
  changesSince(indexId: number, seq: number, limit: number): Promise<ChangeEntry[]>;
  /** The newest change of the index (0 when none). */
  lastChange(indexId: number): Promise<number>;
  /** Oldest change of the index still in the feed (0 when none): a reader behind it must reload from scratch. */
  firstChange(indexId: number): Promise<number>;
  /** Keeps about the newest `keep` changes per index (the newest always stays); returns how many went. */
  pruneChanges(keep: number): Promise<number>;
}

/** Where a section sits: its document and its position in it. */
export interface SectionPosition {
  uid: string;
  ord: number;
}
