import type { ConfigurationStore } from './configuration-store.js';
import type { ConversationStore } from './conversation-store.js';
import type { DocumentStore } from './document-store.js';
import type { EventStore } from './event-store.js';
import type { IndexRegistry } from './index-registry.js';
import type { KeyStore } from './key-store.js';
import type { SectionStore } from './section-store.js';
import type { SessionStore } from './session-store.js';
import type { SourceStore } from './source-store.js';
import type { SearchVectors, VectorIndex } from './vector-index.js';
import type { KeywordIndex } from './keyword-index.js';
import type { SnapshotStore } from './snapshot-store.js';
import type { DiskSpace } from '../disk-guard.js';

export type StorageBackend = 'sqlite' | 'postgres';

/** Every store a process uses, built by createStorage from the configuration and nothing else. */
export interface Storage {
  readonly backend: StorageBackend;
  indexes: IndexRegistry;
  documents: DocumentStore;
  sections: SectionStore;
  /** An external vector index (Qdrant) the workers write; null: each search engine holds the vectors in memory. */
  vectors: VectorIndex | null;
  /** The keyword leg kept in Qdrant (QUARRY_KEYWORD_INDEX=qdrant), which the workers write; null: each search engine holds it. */
  keywords: KeywordIndex | null;
  /** The vectors a new search engine reads (and, when followed, fills): each call gives an engine its own. */
  searchVectors(): SearchVectors;
  /** Where search engines keep their snapshots of indexes; null: none kept (every start replays the store). */
  snapshots: SnapshotStore | null;
  keys: KeyStore;
  /** Web-app sign-in sessions. */
  sessions: SessionStore;
  configurations: ConfigurationStore;
  conversations: ConversationStore;
  events: EventStore;
  /** Website sources, their pages and crawl frontiers. */
  sources: SourceStore;
  /** Cheap liveness probe for /readyz; rejects when the store is unreachable. */
  ping(): Promise<void>;
  /**
   * Gives back the memory the store caches in this process (SQLite's page caches, which a load from the store
   * fills with pages it read once). Absent where the store caches nothing here (PostgreSQL).
   */
  releaseCache?(): void;
  /** Free space of the data folder against the minimum kept free (embedded mode; the scale-out store's disk is not ours). */
  diskSpace?(): DiskSpace;
  close(): Promise<void>;
}

/** What a backend (SQLite, PostgreSQL) builds; createStorage adds what is chosen across backends. */
export type BackendStorage = Omit<Storage, 'searchVectors' | 'snapshots'>;
