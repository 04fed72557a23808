import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentWrite } from '../ports/document-store.js';
import { openDatabase } from './open-database.js';
import { SqliteDocumentStore } from './sqlite-document-store.js';

const { dataDir, synchronous } = workerData as { dataDir: string; synchronous: 'full' | 'normal' };
const store = new SqliteDocumentStore(openDatabase(dataDir, { synchronous }));

parentPort!.on('message', ({ id, writes }: { id: number; writes: DocumentWrite[] }) => {
  try {
    parentPort!.postMessage({ id, outcomes: store.applyWrites(writes) });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
