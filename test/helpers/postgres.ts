import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests create their databases on (trust auth on the machine's PostgreSQL by default). */
export const ADMIN_URL = process.env.QUARRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let created: { admin: string; database: string } | null = null;

const suffix = () => randomBytes(6).toString('hex');

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh database `quarry_test_<random>` for the whole run; returns its URL. */
export async function setupPostgres(): Promise<string> {
  const database = `quarry_test_${suffix()}`;
  try {
    await withClient(ADMIN_URL, (c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`));
  } catch (err) {
    throw new Error(`Tests need a PostgreSQL server: set QUARRY_TEST_DATABASE_URL (tried ${ADMIN_URL}): ${(err as Error).message}`);
  }
  created = { admin: ADMIN_URL, database };
  return withDatabase(ADMIN_URL, database);
}

/** Drops the run's database, closing whatever connections a failed test left open. */
export async function teardownPostgres(): Promise<void> {
  if (!created) return;
  const { admin, database } = created;
  created = null;
  await withClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`));
}

/** A schema of its own for one test file or contract instance, so tests sharing the database never meet. */
export async function freshSchema(url: string): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `t_${suffix()}`;
  await withClient(url, (c) => c.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`));
  return {
    schema,
    drop: () => withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`)).then(() => {}),
  };
}
