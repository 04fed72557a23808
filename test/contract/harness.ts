import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createPostgresStorage } from '../../shared/storage/postgres/create-postgres-storage.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import { createSqliteStorage } from '../../shared/storage/sqlite/create-sqlite-storage.js';
import { freshSchema } from '../helpers/postgres.js';

/** A storage for one test, and how to open a second one on the same data (another host, in effect). */
export interface StorageHandle {
  storage: BackendStorage;
  /** Another BackendStorage over the same data; closed by cleanup. */
  open: () => Promise<BackendStorage>;
  cleanup: () => Promise<void>;
}

export type MakeStorage = () => Promise<StorageHandle>;

/** What an adapter can do beyond the common contract. */
export interface AdapterFeatures {
  /** publish() runs a beforeLive hook (SQLite cannot await one inside its transaction). */
  beforeLive: boolean;
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
  features: { beforeLive: false },
  make: async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'quarry-contract-'));
    const open = async () => createSqliteStorage({ dataDir, synchronous: 'normal' });
    return handle(await open(), open, async () => rmSync(dataDir, { recursive: true, force: true }));
  },
};

export const postgresAdapter: Adapter = {
  name: 'postgres',
  features: { beforeLive: true },
  make: async () => {
    const url = inject('databaseUrl');
    if (!url) throw new Error('no databaseUrl provided: add test/helpers/global-postgres.ts to the vitest globalSetup');
    const { schema, drop } = await freshSchema(url);
    const open = () => createPostgresStorage({ url, schema, poolSize: 4, vectors: null });
    return handle(await open(), open, drop);
  },
};

export const ADAPTERS: Adapter[] = [sqliteAdapter, postgresAdapter];

let counter = 0;
/** A name no other test of the run uses. */
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;
