import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentWrite } from '../ports/document-store.js';
import { openDatabase } from './open-database.js';
import { SqliteDocumentStore } from './sqlite-document-store.js';

const { dataDir, synchronous } = workerData as { dataDir: string; synchronous: 'full' | 'normal' };
const db = openDatabase(dataDir, { synchronous });
const store = new SqliteDocumentStore(db);

// A checkpoint copies the WAL into the database and would stall the commits queued behind it; the
// worker processes checkpoint as they publish, this thread only when the WAL has grown large anyway.
db.pragma('wal_autocheckpoint = 0');
// SQLite's own busy handler sleeps 1, 2, 5, 10, 15… ms between tries, so a commit that meets another
// process's (the other API process's commit, a worker's claim) waits out whole sleeps after the lock is
// free, and every 204 behind it with it. This thread polls the lock itself, every 50 µs at first
// (bench:push, accepted single PUTs with the worker running: 0.28 -> 0.37 of the bare route).
db.pragma('busy_timeout = 0');
const walPath = `${db.name}-wal`;
setInterval(() => {
  try {
    if (statSync(walPath).size > 64 * 1024 * 1024) db.pragma('wal_checkpoint(PASSIVE)');
  } catch {}
}, 1000).unref();

const sleep = new Int32Array(new SharedArrayBuffer(4));

/** A write that meets the lock held (or a WAL checkpoint) is retried for up to 10 s, not lost. */
function applyWithRetry(writes: DocumentWrite[]) {
  const deadline = performance.now() + 10_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return store.applyWritesNow(writes);
    } catch (err) {
      const busy = (err as { code?: string }).code?.startsWith('SQLITE_BUSY');
      if (!busy || performance.now() > deadline) throw err;
      Atomics.wait(sleep, 0, 0, Math.min(0.05 * attempt, 2));
    }
  }
}

// Commits are refused while a restarted thread is not ready yet; this says it is.
parentPort!.postMessage({ ready: true });

parentPort!.on('message', ({ id, writes }: { id: number; writes: DocumentWrite[] }) => {
  try {
    parentPort!.postMessage({ id, outcomes: applyWithRetry(writes) });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err), code: (err as { code?: unknown }).code });
  }
});
