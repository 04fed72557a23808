import type { DocumentStore } from './ports/document-store.js';
import type { IndexRegistry } from './ports/index-registry.js';
import type { KeyStore } from './ports/key-store.js';
import type { SearchIndex } from './ports/search-index.js';
import { openDatabase } from './sqlite/open-database.js';
import { SqliteDocumentStore } from './sqlite/sqlite-document-store.js';
import { SqliteIndexRegistry } from './sqlite/sqlite-index-registry.js';
import { SqliteKeyStore } from './sqlite/sqlite-key-store.js';
import { SqliteSearchIndex } from './sqlite/sqlite-search-index.js';

export interface Storage {
  indexes: IndexRegistry;
  documents: DocumentStore;
  search: SearchIndex;
  keys: KeyStore;
  /** Cheap liveness probe for /readyz. */
  ping(): void;
  close(): void;
}

/** The embedded mode: everything in one SQLite file in the data folder. */
export function createStorage(options: { dataDir: string }): Storage {
  const db = openDatabase(options.dataDir);
  const search = new SqliteSearchIndex(db);
  const indexes = new SqliteIndexRegistry(db, (id) => search.ensureIndex(id));
  return {
    indexes,
    documents: new SqliteDocumentStore(db),
    search,
    keys: new SqliteKeyStore(db),
    ping: () => void db.prepare('SELECT 1').get(),
    close: () => db.close(),
  };
}
