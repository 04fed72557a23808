import type { SnapshotReader, SnapshotWriter } from '../../search/snapshot/snapshot-codec.js';
import type { DocumentRef } from './document-store.js';

/** Values a vector search can filter on: a document's string, number, boolean and date fields. */
export type FilterValue = string | number | boolean;

/** One section's vector, identified by its document version and position. */
export interface VectorPoint extends DocumentRef {
  ord: number;
  vector: Float32Array;
  /** Filterable fields of the document (arrays for multi-valued ones). */
  fields?: Record<string, FilterValue | FilterValue[]>;
}

export interface VectorHit extends DocumentRef {
  ord: number;
  /** Cosine similarity. */
  score: number;
}

/** Every condition must hold; a condition holds when the field has any of the values. */
export type VectorFilter = { field: string; anyOf: FilterValue[] }[];

/**
 * Dense vectors of live sections, per index (addressed by index uid, the tenant key in Qdrant). Writes are idempotent (a point's identity is its index,
 * document, version and position), so a replayed job changes nothing. The section store decides what
 * is live; this index follows it, and the reconciler removes points it no longer vouches for.
 */
export interface VectorIndex {
  /** Whether the vectors live outside the API processes (they then skip holding them in memory). */
  readonly external: boolean;
  /** Writes the points; when it returns they are searchable. */
  upsert(index: string, points: VectorPoint[]): Promise<void>;
  /** Removes every point of each document whose version is below the given one (a document's live version). */
  deleteOlder(index: string, refs: DocumentRef[]): Promise<void>;
  /** Removes the points of exactly these document versions. */
  deleteVersions(index: string, refs: DocumentRef[]): Promise<void>;
  /** The `limit` points nearest to `vector` (cosine), best first. */
  search(index: string, vector: Float32Array, limit: number, filter?: VectorFilter): Promise<VectorHit[]>;
  /** Document versions that have points, ordered by document uid, after `afterUid`: what the reconciler checks. */
  versions(index: string, afterUid: string | null, limit: number): Promise<DocumentRef[]>;
  /** Drops everything of an index. */
  dropIndex(index: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A vector index a search engine holds in its own memory and fills itself from the section store's
 * change feed (the embedded mode, or PostgreSQL without Qdrant); it trains its approximate lists in
 * the background, a few milliseconds at a time.
 */
export interface FollowedVectorIndex extends VectorIndex {
  /** Points held for an index. */
  count(index: string): number;
  /** Bytes the index's points take here (vectors and their bookkeeping, roughly). */
  byteLength(index: string): number;
  /** Trains the index's lists if due, handing the event loop over (`pause`) between steps. */
  train(index: string, pause: () => Promise<void>, settled: boolean): Promise<void>;
  /** The index's points as blobs of `w` and a plain description (null when none, or not now: a training runs). */
  snapshot(index: string, w: SnapshotWriter): unknown;
  /**
   * Replaces the index's points with what `snapshot` described. Returns whether the snapshot was of an
   * older layout, completed on restore (worth writing again, so the next start need not redo it).
   */
  restore(index: string, r: SnapshotReader, snapshot: unknown): boolean;
  /**
   * Moves the points held under `from` to `index`, replacing what `index` held (emptying it when `from`
   * holds none): a copy built aside (a load from the store) takes the place of the one searches read in one step.
   */
  adopt(index: string, from: string): void;
}

/**
 * The vectors searches read, chosen where storage is built: an external index the workers write
 * (Qdrant), or one each search engine holds and follows the change feed into.
 */
export type SearchVectors = { kind: 'external'; index: VectorIndex } | { kind: 'followed'; index: FollowedVectorIndex };

