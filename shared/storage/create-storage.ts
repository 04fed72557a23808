import type { ConfigurationStore } from './ports/configuration-store.js';
import type { ConversationStore } from './ports/conversation-store.js';
import type { EventStore } from './ports/event-store.js';
import type { DocumentStore, DocumentWrite, WriteOutcome } from './ports/document-store.js';
import type { IndexRegistry } from './ports/index-registry.js';
import type { KeyStore } from './ports/key-store.js';
import type { SearchIndex } from './ports/search-index.js';
import { CommitThread } from './sqlite/commit-thread.js';
import { openDatabase } from './sqlite/open-database.js';
import { SqliteConfigurationStore } from './sqlite/sqlite-configuration-store.js';
import { SqliteConversationStore } from './sqlite/sqlite-conversation-store.js';
import { SqliteDocumentStore } from './sqlite/sqlite-document-store.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';
import { SqliteIndexRegistry } from './sqlite/sqlite-index-registry.js';
import { SqliteKeyStore } from './sqlite/sqlite-key-store.js';
import { SqliteSearchIndex } from './sqlite/sqlite-search-index.js';

export interface Storage {
  indexes: IndexRegistry;
  documents: DocumentStore;
  search: SearchIndex;
  keys: KeyStore;
  configurations: ConfigurationStore;
  conversations: ConversationStore;
  events: EventStore;
  /** documents.applyWrites, off the event loop where the adapter can do that. */
  commitWrites(writes: DocumentWrite[]): Promise<WriteOutcome[]>;
  /** Cheap liveness probe for /readyz. */
  ping(): void;
  close(): Promise<void>;
}

export interface StorageOptions {
  dataDir: string;
  synchronous?: 'full' | 'normal';
  /** Commit document writes on a thread of their own (the API does; workers and scripts need not). */
  commitThread?: boolean;
}

/** The embedded mode: two SQLite files in the data folder (documents, search). */
export function createStorage(options: StorageOptions): Storage {
  const synchronous = options.synchronous ?? 'full';
  const db = openDatabase(options.dataDir, { synchronous });
  const searchDb = openDatabase(options.dataDir, { file: 'search', synchronous });
  const search = new SqliteSearchIndex(searchDb);
  const indexes = new SqliteIndexRegistry(db, (id) => search.ensureIndex(id));
  const documents = new SqliteDocumentStore(db);
  // Events are usage statistics: a power cut may lose the last moments of them, so they skip the fsync.
  const events = new SqliteEventStore(openDatabase(options.dataDir, { file: 'events', synchronous: 'normal' }));
  const thread = options.commitThread ? new CommitThread(options.dataDir, synchronous) : null;
  return {
    indexes,
    documents,
    search,
    keys: new SqliteKeyStore(db),
    configurations: new SqliteConfigurationStore(db),
    conversations: new SqliteConversationStore(db),
    events,
    commitWrites: thread ? (w) => thread.commit(w) : async (w) => documents.applyWrites(w),
    ping: () => {
      db.prepare('SELECT 1').get();
      searchDb.prepare('SELECT 1').get();
    },
    close: async () => {
      await thread?.close();
      db.close();
      searchDb.close();
      events.close();
    },
  };
}
