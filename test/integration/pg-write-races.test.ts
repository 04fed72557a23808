import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { encodeFields } from '../../shared/documents/fields-hash.js';
import type { DocumentWrite } from '../../shared/storage/ports/document-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import { createPostgresStorage } from '../../shared/storage/postgres/create-postgres-storage.js';
import { PgDocumentStore } from '../../shared/storage/postgres/pg-document-store.js';
import { createPgPool } from '../../shared/storage/postgres/pg-pool.js';
import { freshSchema } from '../helpers/postgres.js';

const put = (indexId: number, uid: string, title: string): DocumentWrite => ({ indexId, uid, ...encodeFields({ title }), job: 'j' });
const del = (indexId: number, uid: string): DocumentWrite => ({ indexId, uid, fields: null, hash: null, job: 'j' });

/**
 * A pool whose transactions run `before` once, just before their first statement that locks rows:
 * another host's statement landing between a writer's placeholder insert and its lock.
 */
function poolWithInterleaving(pool: pg.Pool, before: () => Promise<void>): pg.Pool {
  let pending: (() => Promise<void>) | null = before;
  const connect = pool.connect.bind(pool);
  const patched = new Set<pg.PoolClient>();
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (!patched.has(client)) {
      patched.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as { query: (...args: unknown[]) => Promise<unknown> }).query = async (...args: unknown[]) => {
        if (pending && typeof args[0] === 'string' && args[0].includes('FOR UPDATE')) {
          const run = pending;
          pending = null;
          await run();
        }
        return query(...args);
      };
    }
    return client;
  };
  return pool;
}

/**
 * Races between writers and workers on the PostgreSQL document store that one process (SQLite's
 * single writer) cannot have: the chaos suite's full PostgreSQL run lost an acknowledged document
 * this way (docs/chaos.md).
 */
describe('postgres document writes racing the workers', () => {
  const url = inject('databaseUrl');
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let worker: BackendStorage;
  let apiPool: pg.Pool;

  beforeAll(async () => {
    schema = await freshSchema(url);
    worker = await createPostgresStorage({ url, schema: schema.schema, poolSize: 2, timeoutMs: 5000 });
  });
  afterAll(async () => {
    await apiPool?.end();
    await worker?.close();
    await schema?.drop();
  });

  it('stores a document pushed again while a worker removes its published delete, instead of acknowledging a write of no row', async () => {
    const index = (await worker.indexes.upsert('docs', 'en', { title: { type: 'text' } })).index.id;
    const [first] = await worker.documents.applyWrites([put(index, 'a', 'first')]);
    await worker.documents.markPublished(index, [{ uid: 'a', version: first.version! }], []);
    const [deleted] = await worker.documents.applyWrites([del(index, 'a')]);

    // The push of 'a' again finds the delete's row and inserts no placeholder; before it locks the
    // row, the worker that published the delete removes it (the row of a published delete goes).
    let removedBetween = false;
    apiPool = poolWithInterleaving(await createPgPool({ url, schema: schema.schema, poolSize: 2, timeoutMs: 5000 }), async () => {
      await worker.documents.markPublished(index, [], [{ uid: 'a', version: deleted.version! }]);
      removedBetween = (await worker.documents.get(index, 'a')) === null;
    });
    const api = new PgDocumentStore(apiPool);
    const [again] = await api.applyWrites([put(index, 'a', 'again')]);

    expect(removedBetween).toBe(true);
    expect(again.version).not.toBeNull();
    expect(await worker.documents.get(index, 'a')).toEqual({ uid: 'a', version: again.version, fields: { title: 'again' }, status: 'pending', error: null });
    expect(await worker.documents.list(index, 10, null)).toEqual([{ uid: 'a', fields: { title: 'again' } }]);
  });
});
