import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PgProxy } from '../../scripts/chaos/pg-proxy.js';
import { createPostgresStorage } from '../../shared/storage/postgres/create-postgres-storage.js';
import { createPgPool } from '../../shared/storage/postgres/pg-pool.js';
import { inTransaction } from '../../shared/storage/postgres/pg-transaction.js';
import { storageFailure } from '../../shared/storage/storage-errors.js';
import { freshSchema } from '../helpers/postgres.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a call did within `ms`: its error, its value, or that it was still waiting. */
async function within<T>(ms: number, p: Promise<T>): Promise<{ error: unknown } | { value: T } | 'still waiting'> {
  return Promise.race([
    p.then((value) => ({ value }), (error: unknown) => ({ error })),
    sleep(ms).then(() => 'still waiting' as const),
  ]);
}

/**
 * PostgreSQL faults below the HTTP layer (the chaos suite plays them against the whole service):
 * a connection that stops answering and a backend killed while its connection is checked out.
 */
describe('postgres faults', () => {
  const url = inject('databaseUrl');
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let proxy: PgProxy;
  let proxiedUrl: string;

  beforeAll(async () => {
    schema = await freshSchema(url);
    const server = new URL(url);
    proxy = await PgProxy.start({ host: server.hostname, port: Number(server.port || 5432) });
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(proxy.port);
    proxiedUrl = u.toString();
  });
  afterAll(async () => {
    await proxy?.close();
    await schema?.drop();
  });

  it('answers 504/503 within the database timeout when every connection stalls, instead of waiting for the stall to end', async () => {
    const storage = await createPostgresStorage({ url: proxiedUrl, schema: schema.schema, poolSize: 1, timeoutMs: 1000 });
    try {
      await storage.ping();
      proxy.stall();
      try {
        // One statement on the only pooled connection, a second caller waiting for that connection.
        const [onConnection, waiting] = await Promise.all([within(6000, storage.ping()), within(6000, storage.ping())]);
        expect(onConnection).not.toBe('still waiting');
        expect(waiting).not.toBe('still waiting');
        const statuses = [onConnection, waiting].map((r) => storageFailure((r as { error: unknown }).error)?.status);
        expect(statuses.sort()).toEqual([503, 504]);
      } finally {
        proxy.resume();
      }
      // The connection that timed out was discarded; the next call gets a fresh one.
      await storage.ping();
    } finally {
      await storage.close();
    }
  });

  it('survives a backend terminated between two statements of a transaction, and runs the transaction again', async () => {
    const pool = await createPgPool({ url, schema: schema.schema, poolSize: 2, timeoutMs: 5000 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      let runs = 0;
      const result = await inTransaction(pool, async (client) => {
        runs++;
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        if (runs === 1) {
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
          // The server's notice of the termination arrives while no statement is running.
          await sleep(300);
        }
        return (await client.query<{ n: number }>('SELECT 41 + 1 AS n')).rows[0].n;
      });
      expect({ result, runs }).toEqual({ result: 42, runs: 2 });
      expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await admin.end();
      await pool.end();
    }
  });

  it('cancels a statement past the database timeout with a 504, except in maintenance that asks for no bound', async () => {
    const pool = await createPgPool({ url, schema: schema.schema, poolSize: 1, timeoutMs: 500 });
    try {
      const slow = (c: pg.ClientBase) => c.query('SELECT pg_sleep(1.2)').then(() => 'done');
      const bounded = await within(5000, inTransaction(pool, slow));
      expect(storageFailure((bounded as { error: unknown }).error)?.status).toBe(504);
      expect(await inTransaction(pool, slow, { unbounded: true })).toBe('done');
      // The bound is back for the next user of the connection.
      await expect(pool.query('SELECT pg_sleep(1.2)')).rejects.toMatchObject({ code: '57014' });
    } finally {
      await pool.end();
    }
  });
});
