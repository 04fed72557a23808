import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CachedConfigurationStore } from '../../shared/storage/cached-configuration-store.js';
import type { ConfigurationRecord } from '../../shared/storage/ports/configuration-store.js';
import { createSqliteStorage } from '../../shared/storage/sqlite/create-sqlite-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'quarry-cache-'));
const storage = createSqliteStorage({ dataDir: dir, synchronous: 'normal' });
afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const record = (uid: string, name: string): ConfigurationRecord => ({
  uid, variant: 'ui', name, indexes: ['kb'], resultCount: 5, allowedOrigins: [], topQuestions: [], autocompleteMinQueries: 0,
  autocompleteMinSessions: 1, fusion: 'weighted', keywordWeight: 0.85, createdAt: 1, updatedAt: 1,
});

describe('cached configuration store', () => {
  it("sees its own writes at once and another process's once the cache time is over", async () => {
    const mine = new CachedConfigurationStore(storage.configurations, 200);
    const other = storage.configurations; // another process writing straight to the store
    await mine.insert(record('c1', 'first'));
    expect((await mine.get('c1'))?.name).toBe('first');
    await mine.replace(record('c1', 'second'));
    expect((await mine.get('c1'))?.name).toBe('second');
    await other.replace(record('c1', 'third'));
    expect((await mine.get('c1'))?.name).toBe('second'); // within the cache time
    await new Promise((r) => setTimeout(r, 250));
    expect((await mine.get('c1'))?.name).toBe('third');
    await mine.delete('c1');
    expect(await mine.get('c1')).toBeNull();
  });

  it('shares one read between concurrent readers and does not remember a failed read', async () => {
    let reads = 0;
    let fail = true;
    const flaky = new CachedConfigurationStore({
      ...storage.configurations,
      get: async (uid: string) => {
        reads++;
        if (fail) throw new Error('store down');
        return storage.configurations.get(uid);
      },
    } as never, 10_000);
    await expect(flaky.get('x')).rejects.toThrow('store down');
    fail = false;
    await Promise.all([flaky.get('x'), flaky.get('x'), flaky.get('x')]);
    expect(reads).toBe(2);
  });
});
