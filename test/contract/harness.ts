import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createPostgresStorage } from '../../shared/storage/postgres/create-postgres-storage.js';
import type { MirrorWrite, SectionMirror } from '../../shared/storage/ports/section-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import { createSqliteStorage } from '../../shared/storage/sqlite/create-sqlite-storage.js';
import { freshSchema } from '../helpers/postgres.js';

/** A storage for one test, and how to open a second one on the same data (another host, in effect). */
export interface StorageHandle {
  storage: BackendStorage;
  /** Another BackendStorage over the same data; closed by cleanup. */
  open: () => Promise<BackendStorage>;
  cleanup: () => Promise<void>;
  /**
   * Sets what every publish of this handle's storages writes beside the section store, as the storage
   * factory's mirror would (adapters with the `mirror` feature); null: nothing.
   */
  mirror?: (write: MirrorWrite | null) => void;
}

export type MakeStorage = () => Promise<StorageHandle>;

/** What an adapter can do beyond the common contract. */
export interface AdapterFeatures {
  /** publish() writes a SectionMirror inside its transaction (the scale-out store; SQLite's synchronous transactions cannot await one). */
  mirror: boolean;
}

export interface Adapter {
  name: string;
  make: MakeStorage;
  features: AdapterFeatures;
}

async function handle(first: BackendStorage, open: () => Promise<BackendStorage>, done: () => Promise<void>): Promise<StorageHandle> {
  const opened: BackendStorage[] = [first];
  return {
    storage: first,
    open: async () => {
      const s = await open();
      opened.push(s);
      return s;
    },
    cleanup: async () => {
      await Promise.all(opened.map((s) => s.close()));
      await done();
    },
  };
}

export const sqliteAdapter: Adapter = {
  name: 'sqlite',
  features: { mirror: false },
  make: async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'quarry-contract-'));
    const open = async () => createSqliteStorage({ dataDir, synchronous: 'normal' });
    return handle(await open(), open, async () => rmSync(dataDir, { recursive: true, force: true }));
  },
};

export const postgresAdapter: Adapter = {
  name: 'postgres',
  features: { mirror: true },
  make: async () => {
    const url = inject('databaseUrl');
    if (!url) throw new Error('no databaseUrl provided: add test/helpers/global-postgres.ts to the vitest globalSetup');
    const { schema, drop } = await freshSchema(url);
    let write: MirrorWrite | null = null;
    const mirror: SectionMirror = { prepare: async () => write && ((accepted) => write!(accepted)) };
    const open = () => createPostgresStorage({ url, schema, poolSize: 4, mirror });
    return { ...(await handle(await open(), open, drop)), mirror: (w) => { write = w; } };
  },
};

export const ADAPTERS: Adapter[] = [sqliteAdapter, postgresAdapter];

let counter = 0;
/** A name no other test of the run uses. */
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;
