import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../shared/storage/ports/key-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const key = (id: string, createdAt: number, indexes: string[] | null = null): Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'> => ({
  id, name: `key ${id}`, prefix: `qk_${id}`, permissions: ['read', 'write'], indexes, createdAt,
});

export function keyStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: key store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('stores keys, finds them by hash until revoked, and lists them oldest first', async () => {
      await s.keys.insert(key('k2', 2000, ['books', 'films']), 'hash-2');
      await s.keys.insert(key('k1', 1000), 'hash-1');
      expect(await s.keys.findByHash('hash-2')).toEqual({ ...key('k2', 2000, ['books', 'films']), revokedAt: null, lastUsedAt: null });
      expect(await s.keys.findByHash('hash-x')).toBeNull();
      const t0 = Date.now();
      expect(await s.keys.revoke('k1')).toBe(true);
      expect(await s.keys.revoke('k1')).toBe(false);
      expect(await s.keys.revoke('nope')).toBe(false);
      expect(await s.keys.findByHash('hash-1')).toBeNull();
      const list = await s.keys.list();
      expect(list.map((k) => k.id)).toEqual(['k1', 'k2']);
      expect(list[0].revokedAt).toBeGreaterThanOrEqual(t0);
      expect(list[1]).toEqual({ ...key('k2', 2000, ['books', 'films']), revokedAt: null, lastUsedAt: null });
    });

    it('lists keys a page at a time, oldest first and by id (code point) within one time, each once', async () => {
      for (const [id, at] of [['kb', 2000], ['kA', 2000], ['ka', 2000], ['k0', 1000], ['kz', 3000]] as const) await s.keys.insert(key(id, at), `hash-${id}`);
      const ids = (await s.keys.list()).map((k) => k.id);
      expect(ids).toEqual(['k0', 'kA', 'ka', 'kb', 'kz']);
      const first = await s.keys.list({ limit: 2 });
      expect(first.map((k) => k.id)).toEqual(['k0', 'kA']);
      const second = await s.keys.list({ limit: 2, after: { createdAt: first[1].createdAt, id: first[1].id } });
      expect(second.map((k) => k.id)).toEqual(['ka', 'kb']);
      // A key created between two pages before the cursor shifts nothing onto the next page.
      await s.keys.insert(key('k1', 1500), 'hash-k1');
      expect((await s.keys.list({ limit: 2, after: { createdAt: 2000, id: 'kb' } })).map((k) => k.id)).toEqual(['kz']);
    });

    it('gets a key by id, revoked or not', async () => {
      await s.keys.insert(key('k1', 1000), 'hash-1');
      expect(await s.keys.get('k1')).toEqual({ ...key('k1', 1000), revokedAt: null, lastUsedAt: null });
      await s.keys.revoke('k1');
      expect((await s.keys.get('k1'))?.revokedAt).toEqual(expect.any(Number));
      expect(await s.keys.get('nope')).toBeNull();
    });

    it('records when a key was last used, never moving it backwards', async () => {
      await s.keys.insert(key('k1', 1000), 'hash-1');
      await s.keys.insert(key('k2', 2000), 'hash-2');
      await s.keys.markUsed('k1', 5000);
      expect((await s.keys.findByHash('hash-1'))?.lastUsedAt).toBe(5000);
      await s.keys.markUsed('k1', 4000);
      expect((await s.keys.get('k1'))?.lastUsedAt).toBe(5000);
      await s.keys.markUsed('k1', 6000);
      await s.keys.markUsed('nope', 6000);
      expect((await s.keys.list()).map((k) => [k.id, k.lastUsedAt])).toEqual([['k1', 6000], ['k2', null]]);
    });

    it('refuses a second key with the same hash', async () => {
      await s.keys.insert(key('k1', 1000), 'same');
      await expect(s.keys.insert(key('k2', 2000), 'same')).rejects.toThrow();
      expect((await s.keys.list()).map((k) => k.id)).toEqual(['k1']);
    });

    it('keeps the first shared secret offered', async () => {
      expect(await s.keys.sharedSecret('first')).toBe('first');
      expect(await s.keys.sharedSecret('second')).toBe('first');
      const other = await h.open();
      expect(await other.keys.sharedSecret('third')).toBe('first');
    });

    it('gives every host the same secret when they all offer one at once', async () => {
      const other = await h.open();
      const offered = Array.from({ length: 12 }, (_, i) => `secret-${i}`);
      const got = await Promise.all(offered.map((c, i) => (i % 2 ? other : s).keys.sharedSecret(c)));
      expect(new Set(got).size).toBe(1);
      expect(offered).toContain(got[0]);
    });
  });
}
