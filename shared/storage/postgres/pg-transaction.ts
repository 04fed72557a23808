import type pg from 'pg';

/** Deadlock and serialization failures: the server rolled the transaction back and it may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

/**
 * Runs `fn` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK and rethrow
 * when it throws. A transaction the server aborted as a deadlock victim runs again (the lock orders
 * the adapters keep make that rare); `fn` must therefore be safe to repeat.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      if (attempt < ATTEMPTS && RETRYABLE.has((err as { code?: string }).code ?? '')) {
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
        continue;
      }
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

/** Text PostgreSQL can store: it refuses NUL characters, which SQLite keeps; they become U+FFFD. */
export const pgText = (s: string): string => (s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s);
