import pg from 'pg';
import { inTransaction } from './pg-transaction.js';

export interface PgPoolOptions {
  url: string;
  /** Schema every table lives in (created when missing); default `public`. */
  schema?: string;
  /** Connections kept open; default 10. */
  poolSize?: number;
  /**
   * How long a statement may run, and a caller wait for a connection, before it fails; 0 waits
   * forever (migrations). Default 30 s.
   */
  timeoutMs?: number;
}

export const DEFAULT_DATABASE_TIMEOUT_MS = 30_000;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const INT8 = 20;
const NUMERIC = 1700;

/**
 * Counts, sums and ms-epoch timestamps are bigint/numeric in SQL; pg hands those over as strings.
 * Every value Quarry stores fits a double (timestamps, versions, counts), so they become numbers.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
} as pg.CustomTypesConfig;

/** The client-side timeout trails the server's, so a reachable server's cancel (which keeps the connection) comes first. */
const CLIENT_TIMEOUT_MARGIN_MS = 1000;

/** Advisory-lock namespace of Quarry ("QRRY"); the second key is the schema's hash. */
export const LOCK_NAMESPACE = 0x51525259;

/**
 * A connection pool whose sessions all resolve unqualified table names in `schema`, so one
 * database can hold several Quarry installations (or test runs) side by side.
 */
export async function createPgPool(options: PgPoolOptions): Promise<pg.Pool> {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name '${schema}': use lower-case letters, digits and _`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  // Without these a stalled connection (a server that stopped answering, a network that stopped
  // forwarding) held every request that reached it, and every request queued for a pooled
  // connection behind it, for as long as the stall lasted. The server cancels a slow statement
  // itself (the connection stays usable); the client gives up a little later on a server that
  // does not answer at all (the connection is then discarded); a session left inside a
  // transaction by a client that vanished is ended so its row locks do not hold up the others.
  const limits = timeoutMs > 0 ? ` -c statement_timeout=${timeoutMs} -c idle_in_transaction_session_timeout=${timeoutMs}` : '';
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // Startup parameters, so they hold from the first query of every connection. JIT compiling
    // costs tens of ms and pays off only for long analytic scans, which Quarry does not run.
    options: `-c search_path=${schema} -c jit=off${limits}`,
    ...(timeoutMs > 0 ? { connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs + CLIENT_TIMEOUT_MARGIN_MS } : {}),
    // A peer that vanished without closing (a dead host, a dropped route) is noticed by the OS.
    keepAlive: true,
    types,
  });
  // An idle connection that the server drops must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  try {
    await ensureSchema(pool, schema);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return pool;
}

/** Creates the schema when missing (checked first: a role without CREATE on the database may still use one). */
async function ensureSchema(pool: pg.Pool, schema: string): Promise<void> {
  const exists = await pool.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema]);
  if (exists.rowCount) return;
  await inTransaction(pool, async (client) => {
    // Serialises processes starting together: CREATE SCHEMA IF NOT EXISTS alone can still race.
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_NAMESPACE, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
  });
}
