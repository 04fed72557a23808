import type { BackendStorage } from '../ports/storage.js';
import { DiskGuard, guardWrites } from '../disk-guard.js';
import { describeChanges, makeFolderPrivate } from '../private-folder.mjs';
import { CommitThread } from './commit-thread.js';
import { openDatabase } from './open-database.js';
import { SqliteConfigurationStore } from './sqlite-configuration-store.js';
import { SqliteConversationStore } from './sqlite-conversation-store.js';
import { SqliteDocumentStore } from './sqlite-document-store.js';
import { SqliteEventStore } from './sqlite-event-store.js';
import { SqliteIndexRegistry } from './sqlite-index-registry.js';
import { SqliteKeyStore } from './sqlite-key-store.js';
import { SqliteSectionStore } from './sqlite-section-store.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { SqliteSourceStore } from './sqlite-source-store.js';

export interface SqliteStorageOptions {
  dataDir: string;
  /** `full` (default): a commit survives a power cut; `normal`: survives a process crash. */
  synchronous?: 'full' | 'normal';
  /** Commit document writes on a thread of their own (the API does; workers and scripts need not). */
  commitThread?: boolean;
  /** Heap limit of the commit thread in MB; null/unset: Node's default. */
  commitThreadHeapMb?: number | null;
  /** Writes are refused (507) while the data folder's file system has less free (default 0: never). */
  minFreeDiskBytes?: number;
  /** Told which paths of the data folder were readable by others and made private (default: standard error). */
  log?: DataFolderLog;
}

export interface DataFolderLog {
  warn(obj: object, msg: string): void;
}

const stderrLog: DataFolderLog = { warn: (obj, msg) => console.error(`${msg} ${JSON.stringify(obj)}`) };

/**
 * The data folder and everything in it private to the service's user, an older folder tightened, and said so:
 * documents, queries, conversations, key hashes and possibly the server secret live there (docs/security.md).
 */
function makeDataFolderPrivate(dataDir: string, log: DataFolderLog): void {
  const { changed, failed } = makeFolderPrivate(dataDir);
  if (changed.length) log.warn({ dataDir, changed }, `data folder was readable by other users; made private to this one: ${describeChanges(changed)}`);
  if (failed.length) log.warn({ dataDir, failed }, 'data folder: could not take group and other permissions off these paths (another owner?); fix them by hand');
}

/** The embedded mode: three SQLite files in the data folder (documents, sections, events). */
export function createSqliteStorage(options: SqliteStorageOptions): BackendStorage {
  const synchronous = options.synchronous ?? 'full';
  makeDataFolderPrivate(options.dataDir, options.log ?? stderrLog);
  const db = openDatabase(options.dataDir, { synchronous });
  const searchDb = openDatabase(options.dataDir, { file: 'search', synchronous });
  // Events are usage statistics: a power cut may lose the last moments of them, so they skip the fsync.
  const eventsDb = openDatabase(options.dataDir, { file: 'events', synchronous: 'normal' });
  const thread = options.commitThread ? new CommitThread(options.dataDir, synchronous, options.commitThreadHeapMb ?? null) : null;
  // Pushes and what anonymous traffic writes stop short of a full disk; the pipeline's own writes
  // (sections, document states) do not, so what was accepted is still indexed from the space kept free.
  const guard = new DiskGuard(options.dataDir, options.minFreeDiskBytes ?? 0);
  const events = guardWrites(new SqliteEventStore(eventsDb), guard, [], {
    recordSearches: undefined, recordClick: false, recordSupportForward: undefined, recordGeneration: undefined,
  });
  const sections = new SqliteSectionStore(searchDb);
  return {
    backend: 'sqlite',
    indexes: new SqliteIndexRegistry(db),
    documents: guardWrites(new SqliteDocumentStore(db, thread ? (w) => thread.commit(w) : null), guard, ['applyWrites']),
    sections,
    vectors: null,
    keywords: null,
    keys: new SqliteKeyStore(db),
    sessions: new SqliteSessionStore(db),
    configurations: new SqliteConfigurationStore(db),
    conversations: guardWrites(new SqliteConversationStore(db), guard, ['append']),
    events,
    sources: new SqliteSourceStore(db),
    ping: async () => {
      db.prepare('SELECT 1').get();
      searchDb.prepare('SELECT 1').get();
      // Reads work without it, but no push can be accepted while the commit thread is down.
      await thread?.ping();
    },
    releaseCache: () => {
      for (const d of [db, searchDb, eventsDb]) d.pragma('shrink_memory');
    },
    diskSpace: () => guard.space(),
    close: async () => {
      await thread?.close();
      db.close();
      searchDb.close();
      sections.close();
      eventsDb.close();
    },
  };
}
