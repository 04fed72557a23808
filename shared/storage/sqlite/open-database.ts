import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DOCUMENT_MIGRATIONS, EVENT_MIGRATIONS, migrate, SEARCH_MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/**
 * quarry.db: indexes, keys, documents, configurations (the API writes). search.db: sections, keyword
 * and vector index (workers write). events.db: usage events and what is learnt from them (the API writes).
 */
export const DB_FILES = { documents: 'quarry.db', search: 'search.db', events: 'events.db' } as const;
const MIGRATIONS = { documents: DOCUMENT_MIGRATIONS, search: SEARCH_MIGRATIONS, events: EVENT_MIGRATIONS };

/**
 * SQLite files shared by the API and worker processes of a machine. WAL lets readers run beside
 * the single writer; synchronous=FULL makes a commit survive power loss as well as kill -9, which is
 * what a 204 promises. Writers batch their commits, so the fsync cost is shared. `normal` (an
 * operator's choice) still survives any process crash, but not a power cut.
 */
export function openDatabase(
  dataDir: string,
  options: { file?: keyof typeof DB_FILES; readonly?: boolean; synchronous?: 'full' | 'normal' } = {},
): Db {
  const file = options.file ?? 'documents';
  const path = join(dataDir, DB_FILES[file]);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Created private whatever the umask: SQLite gives the -wal, -shm and -journal files the database's own mode.
  if (!options.readonly) closeSync(openSync(path, 'a', 0o600));
  const db = new Database(path, { readonly: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    enableWal(db);
    db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    migrate(db, MIGRATIONS[file]);
  }
  db.pragma('foreign_keys = ON');
  // Also what bounds the memory reads of search.db take: it is read through this cache, not memory-mapped.
  // A search reads its results' rows at random, and through a map each page it touches brings 16 of its
  // neighbours into the process's resident memory (the kernel maps 64 KB around a fault): bench:capacity at
  // 100,000 sections held 163 MB of search.db after 800 searches, more as searches went on, up to the whole
  // file. Read through the cache, ten result rows cost ~10-40 µs more (pread and copy), and at most 64 MB.
  db.pragma('cache_size = -65536');
  return db;
}

/**
 * Switching to WAL needs an exclusive lock, and SQLite does not call the busy handler for it: when the API
 * and the workers open a new data folder at the same moment, one of them gets SQLITE_BUSY at once. The mode
 * is persistent, so a process that finds it set skips the switch; otherwise it retries for up to 10 s.
 */
function enableWal(db: Db): void {
  const deadline = Date.now() + 10_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      if (db.pragma('journal_mode', { simple: true }) === 'wal') return;
      // When the lock is taken SQLite may also answer with the mode it kept instead of an error.
      if (db.pragma('journal_mode = WAL', { simple: true }) === 'wal') return;
      if (Date.now() > deadline) throw new Error(`could not switch ${db.name} to WAL: the database stays locked`);
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
    }
    Atomics.wait(pause, 0, 0, 25);
  }
}

/** Runs fn in an IMMEDIATE transaction so concurrent processes queue on the lock instead of deadlocking. */
export function immediate<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/**
 * `immediate` whose commit does not wait for the disk (synchronous=NORMAL for this transaction): for
 * bookkeeping the pipeline redoes if a power cut loses it. The WAL keeps commit order, so the next
 * durable commit of any process, or a checkpoint, makes it durable with everything before it; a
 * process crash loses nothing.
 */
export function immediateUnsynced<T>(db: Db, fn: () => T): T {
  const level = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  try {
    return immediate(db, fn);
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}
