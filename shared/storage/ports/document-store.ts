import type { DocumentMetadata } from '../../documents/metadata-types.js';

export type DocumentFields = Record<string, unknown>;

/** One accepted write. `fields: null` deletes. */
export interface DocumentWrite {
  indexId: number;
  uid: string;
  /** The fields as canonical JSON (see encodeFields): serialised once, on the request's side. */
  fields: string | null;
  /** Digest of that JSON, so a re-push of identical content changes nothing. */
  hash: string | null;
  /**
   * Pipeline job enqueued for this write (assigned by the caller before the commit). Until a job
   * claims the document (claimPending), any job of its index may take it.
   */
  job: string;
  /**
   * The page's extracted HTML fragments as JSON (see encodeMetadata), kept with this version;
   * absent or null: none. Internal writers only (the crawler); `hash` must cover it.
   */
  metadata?: string | null;
}

/** version null: the write changed nothing (identical re-push, or delete of an absent document). */
export interface WriteOutcome {
  uid: string;
  version: number | null;
}

export interface DocumentRef {
  uid: string;
  version: number;
}

export interface StoredDocument extends DocumentRef {
  fields: DocumentFields | null;
}

export interface IndexProgress {
  documents: number;
  indexed: number;
  pending: number;
  pending_deletes: number;
  failed: number;
  last_error: { uid: string; message: string; at: string } | null;
}

export interface DocumentStore {
  /**
   * Applies writes in order in one durable transaction; each gets a version from one global
   * sequence, taken after the document's row is locked, so a later commit always has the higher version.
   */
  applyWrites(writes: DocumentWrite[]): Promise<WriteOutcome[]>;
  /** Documents ordered by uid, after the cursor, excluding pending deletes. */
  list(indexId: number, limit: number, afterUid: string | null): Promise<{ uid: string; fields: DocumentFields }[]>;
  /**
   * The pending documents job `job` works on, taken when it runs: its own (enqueued for it, or
   * claimed by an earlier attempt of it), then the oldest unclaimed pending documents of the index,
   * up to `limit` in all. They are marked claimed by `job` in one transaction, so no other job takes
   * them while they stay at this version (a new write makes a document unclaimed again). Returns
   * their current versions and fields (null: a delete), oldest first; a job whose documents another
   * job took gets none.
   */
  claimPending(indexId: number, job: string, limit: number): Promise<StoredDocument[]>;
  /** Versions of these documents that are still the latest accepted write (stale refs are left out). */
  currentRefs(indexId: number, refs: DocumentRef[]): Promise<DocumentRef[]>;
  /** Records that these versions are searchable, and forgets deletes that are gone from search. */
  markPublished(indexId: number, published: DocumentRef[], removed: DocumentRef[]): Promise<void>;
  markFailed(indexId: number, refs: DocumentRef[], message: string): Promise<void>;
  progress(indexId: number): Promise<IndexProgress>;
  /** The fields of the latest accepted write of each of these documents (deleted and absent ones left out). */
  fields(indexId: number, uids: string[]): Promise<Map<string, DocumentFields>>;
  /**
   * The metadata of the latest accepted write of each of these documents that has some. Read per
   * search result rather than held by search engines, whose memory it would otherwise grow.
   */
  metadata(indexId: number, uids: string[]): Promise<Map<string, DocumentMetadata>>;
  /** Which of these documents' latest accepted writes carry metadata, without reading it. */
  withMetadata(indexId: number, uids: string[]): Promise<Set<string>>;
  /** The latest accepted write of a document, pending deletes included (fields null). */
  get(indexId: number, uid: string): Promise<(StoredDocument & { status: string; error: string | null }) | null>;
  /** Distinct jobs of documents pending since `olderThan` (ms epoch) or earlier. */
  pendingJobs(olderThan: number, limit: number): Promise<{ indexId: number; job: string | null }[]>;
  pendingOfJob(indexId: number, job: string | null, limit: number): Promise<DocumentRef[]>;
  /** Gives these documents to `job`, claimed: only that job takes them (the reconciler's new jobs). */
  reassignJob(indexId: number, refs: DocumentRef[], job: string): Promise<void>;
  /** Marks every indexed or failed document of the index pending again under `job`, unclaimed (model change, re-index). */
  requeueIndex(indexId: number, jobFor: (n: number) => string, batchSize: number): Promise<{ job: string; refs: DocumentRef[] }[]>;
}
