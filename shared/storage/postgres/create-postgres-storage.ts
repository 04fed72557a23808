import type { BackendStorage } from '../ports/storage.js';
import type { SectionMirror } from '../ports/section-store.js';
import { ExternalSectionMirror, type ExternalIndexes } from '../external-section-mirror.js';
import { PgConfigurationStore } from './pg-configuration-store.js';
import { PgConversationStore } from './pg-conversation-store.js';
import { PgDocumentStore } from './pg-document-store.js';
import { PgEventStore } from './pg-event-store.js';
import { PgIndexRegistry } from './pg-index-registry.js';
import { PgKeyStore } from './pg-key-store.js';
import { migratePostgres } from './pg-migrations.js';
import { createPgPool } from './pg-pool.js';
import { PgSectionStore } from './pg-section-store.js';
import { PgSessionStore } from './pg-session-store.js';
import { PgSourceStore } from './pg-source-store.js';

export interface PostgresStorageOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Schema holding Quarry's tables, created when missing; default `public`. */
  schema?: string;
  /** Pooled connections per process; default 10. */
  poolSize?: number;
  /** How long a statement, or the wait for a pooled connection, may take before it fails; default 30 s. */
  timeoutMs?: number;
  /** The external indexes paired with this storage (Qdrant); none: vectors kept with the sections, keywords in each engine. */
  external?: ExternalIndexes;
  /** What publishes write beside the section store; default: the external indexes, through an ExternalSectionMirror. */
  mirror?: SectionMirror;
}

/** The scale-out mode: every store in one PostgreSQL database that any number of processes share. */
export async function createPostgresStorage(options: PostgresStorageOptions): Promise<BackendStorage> {
  const schema = options.schema ?? 'public';
  // Migrations on a connection without timeouts: one may rebuild a large table, and processes
  // starting together wait for the first one's on a lock.
  const migrator = await createPgPool({ url: options.url, schema, poolSize: 1, timeoutMs: 0 });
  try {
    await migratePostgres(migrator, schema);
  } finally {
    await migrator.end();
  }
  const pool = await createPgPool({ url: options.url, schema, poolSize: options.poolSize, timeoutMs: options.timeoutMs });
  const external = options.external ?? { vectors: null, keywords: null };
  const indexes = new PgIndexRegistry(pool);
  const documents = new PgDocumentStore(pool);
  const mirror = options.mirror ?? (external.vectors || external.keywords ? new ExternalSectionMirror(external, { indexes, documents }) : null);
  return {
    backend: 'postgres',
    indexes,
    documents,
    sections: new PgSectionStore(pool, mirror),
    vectors: external.vectors,
    keywords: external.keywords,
    keys: new PgKeyStore(pool),
    sessions: new PgSessionStore(pool),
    configurations: new PgConfigurationStore(pool),
    conversations: new PgConversationStore(pool),
    events: new PgEventStore(pool),
    sources: new PgSourceStore(pool),
    ping: async () => {
      await pool.query('SELECT 1');
    },
    close: async () => {
      await external.vectors?.close();
      await external.keywords?.close();
      await pool.end();
    },
  };
}
