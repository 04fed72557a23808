import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentWrite } from '../ports/document-store.js';
import { openDatabase } from './open-database.js';
import { SqliteDocumentStore } from './sqlite-document-store.js';

const { dataDir, synchronous } = workerData as { dataDir: string; synchronous: 'full' | 'normal' };
const store = new SqliteDocumentStore(openDatabase(dataDir, { synchronous }));

const sleep = new Int32Array(new SharedArrayBuffer(4));

/** SQLite can answer BUSY without waiting (WAL checkpoints, lock upgrades); a write is retried, not lost. */
function applyWithRetry(writes: DocumentWrite[]) {
  for (let attempt = 1; ; attempt++) {
    try {
      return store.applyWrites(writes);
    } catch (err) {
      const busy = (err as { code?: string }).code?.startsWith('SQLITE_BUSY');
      if (!busy || attempt >= 20) throw err;
      Atomics.wait(sleep, 0, 0, 5 * attempt);
    }
  }
}

parentPort!.on('message', ({ id, writes }: { id: number; writes: DocumentWrite[] }) => {
  try {
    parentPort!.postMessage({ id, outcomes: applyWithRetry(writes) });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
