import type { Config } from '../config/config.js';
import { MemoryVectorIndex } from '../search/vectors/memory-vector-index.js';
import type { BackendStorage, Storage } from './ports/storage.js';
import type { SearchVectors } from './ports/vector-index.js';
import { join } from 'node:path';
import { CachedConfigurationStore } from './cached-configuration-store.js';
import { FileSnapshotStore } from './files/file-snapshot-store.js';
import { createSqliteStorage, type DataFolderLog } from './sqlite/create-sqlite-storage.js';

export type { Storage } from './ports/storage.js';

export interface StorageRole {
  /** Commit document writes on a thread of their own (SQLite; the API wants it, workers and scripts need not). */
  commitThread?: boolean;
  /** Where a data folder made private is reported (SQLite; default: standard error). */
  log?: DataFolderLog;
}

/**
 * The one place a backend is chosen: SQLite files in the data folder (embedded), or PostgreSQL as the
 * source of truth with vectors in Qdrant when QDRANT_URL is set (scale-out). The scale-out adapters
 * are loaded only when chosen, so the embedded mode never loads their clients.
 */
export async function createStorage(config: Config['storage'], role: StorageRole = {}): Promise<Storage> {
  const storage = (await createBackend(config, role)) as Storage;
  storage.configurations = new CachedConfigurationStore(storage.configurations);
  const external = storage.vectors;
  // Searches read the external index the workers write, or vectors each engine holds and follows the change feed into.
  storage.searchVectors = (): SearchVectors => (external ? { kind: 'external', index: external } : { kind: 'followed', index: new MemoryVectorIndex() });
  storage.snapshots = config.snapshots ? new FileSnapshotStore(join(config.dataDir, 'snapshots'), snapshotScope(config)) : null;
  return storage;
}

async function createBackend(config: Config['storage'], role: StorageRole): Promise<BackendStorage> {
  if (config.backend === 'sqlite') {
    return createSqliteStorage({
      dataDir: config.dataDir, synchronous: config.synchronous, commitThread: role.commitThread, commitThreadHeapMb: config.commitThreadHeapMb,
      minFreeDiskBytes: config.minFreeDiskBytes, log: role.log,
    });
  }
  // Qdrant's copies (vectors; with QUARRY_KEYWORD_INDEX=qdrant the keyword leg too) are written by
  // the section store's publishes, so no caller of publish knows the mode.
  const vectors = config.qdrant ? (await import('./qdrant/qdrant-vector-index.js')).createQdrantVectorIndex(config.qdrant) : null;
  const keywords = config.qdrantKeywords
    ? (await import('./qdrant/qdrant-keyword-index.js')).createQdrantKeywordIndex(config.qdrantKeywords)
    : null;
  const { createPostgresStorage } = await import('./postgres/create-postgres-storage.js');
  return createPostgresStorage({
    url: config.databaseUrl!, schema: config.schema, poolSize: config.poolSize, timeoutMs: config.databaseTimeoutMs, external: { vectors, keywords },
  });
}


/**
 * What a data folder's snapshots were built from: its own SQLite store, or a PostgreSQL database and
 * schema (host, port, database; no credentials), so a folder reused against another database reads none.
 */
function snapshotScope(config: Config['storage']): string {
  if (config.backend === 'sqlite') return 'sqlite';
  const url = new URL(config.databaseUrl!);
  return `postgres://${url.hostname}:${url.port || 5432}${url.pathname}?schema=${config.schema}${config.qdrant ? `&qdrant=${config.qdrant.url}` : ''}`;
}
