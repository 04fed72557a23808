import type pg from 'pg';
import { isStorageTimeout, isStorageUnavailable } from '../storage-errors.js';

/** Deadlock and serialization failures: the server rolled the transaction back and it may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;
const ignore = () => {};

export interface TransactionOptions {
  /** Maintenance that may rightly run long (retention over a large history): no statement or read timeout. */
  unbounded?: boolean;
}

/** node-postgres reads its client-side read timeout from here at every statement. */
type WithParameters = { connectionParameters?: { query_timeout?: number } };

/**
 * Runs `fn` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK and rethrow
 * when it throws. A transaction the server aborted as a deadlock victim runs again (the lock orders
 * the adapters keep make that rare), and so does one whose connection died before its COMMIT was
 * sent (a restarted server, a terminated backend: nothing of it was committed); `fn` must therefore
 * be safe to repeat.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    // The pool listens for errors only on idle connections: a checked-out one whose server went
    // away between two statements emitted an 'error' nobody handled, which ended the process. The
    // failure reaches the next statement anyway.
    client.on('error', ignore);
    let broken = false;
    let committing = false;
    const params = (client as WithParameters).connectionParameters;
    const readTimeout = params?.query_timeout;
    try {
      await client.query('BEGIN');
      if (options.unbounded) {
        await client.query('SET LOCAL statement_timeout = 0');
        await client.query('SET LOCAL idle_in_transaction_session_timeout = 0');
        if (params) params.query_timeout = 0;
      }
      const result = await fn(client);
      committing = true;
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // A dead or unanswering connection cannot roll back (the server does on its own) and is not reused.
      broken = isStorageUnavailable(err) || isStorageTimeout(err);
      if (!broken) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      const lostBeforeCommit = !committing && isStorageUnavailable(err);
      if (attempt < ATTEMPTS && (RETRYABLE.has((err as { code?: string }).code ?? '') || (lostBeforeCommit && attempt === 1))) {
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
        continue;
      }
      throw err;
    } finally {
      if (params) params.query_timeout = readTimeout;
      client.removeListener('error', ignore);
      client.release(broken);
    }
  }
}

/** Text PostgreSQL can store: it refuses NUL characters, which SQLite keeps; they become U+FFFD. */
export const pgText = (s: string): string => (s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s);
