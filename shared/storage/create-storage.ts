import type { Config } from '../config/config.js';
import type { Storage } from './ports/storage.js';
import { CachedConfigurationStore } from './cached-configuration-store.js';
import { createSqliteStorage } from './sqlite/create-sqlite-storage.js';

export type { Storage } from './ports/storage.js';

export interface StorageRole {
  /** Commit document writes on a thread of their own (SQLite; the API wants it, workers and scripts need not). */
  commitThread?: boolean;
}

/**
 * The one place a backend is chosen: SQLite files in the data folder (embedded), or PostgreSQL as the
 * source of truth with vectors in Qdrant when QDRANT_URL is set (scale-out). The scale-out adapters
 * are loaded only when chosen, so the embedded mode never loads their clients.
 */
export async function createStorage(config: Config['storage'], role: StorageRole = {}): Promise<Storage> {
  const storage = await createBackend(config, role);
  storage.configurations = new CachedConfigurationStore(storage.configurations);
  return storage;
}

async function createBackend(config: Config['storage'], role: StorageRole): Promise<Storage> {
  if (config.backend === 'sqlite') {
    return createSqliteStorage({
      dataDir: config.dataDir, synchronous: config.synchronous, commitThread: role.commitThread, commitThreadHeapMb: config.commitThreadHeapMb,
      minFreeDiskBytes: config.minFreeDiskBytes,
    });
  }
  const vectors = config.qdrant ? (await import('./qdrant/qdrant-vector-index.js')).createQdrantVectorIndex(config.qdrant) : null;
  const { createPostgresStorage } = await import('./postgres/create-postgres-storage.js');
  return createPostgresStorage({ url: config.databaseUrl!, schema: config.schema, poolSize: config.poolSize, timeoutMs: config.databaseTimeoutMs, vectors });
}

