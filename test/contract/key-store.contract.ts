import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../shared/storage/ports/key-store.js';
import type { Storage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const key = (id: string, createdAt: number, indexes: string[] | null = null): Omit<ApiKeyRecord, 'revokedAt'> => ({
  id, name: `key ${id}`, prefix: `qk_${id}`, permissions: ['read', 'write'], indexes, createdAt,
});

export function keyStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: key store`, () => {
    let h: StorageHandle;
    let s: Storage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('stores keys, finds them by hash until revoked, and lists them oldest first', async () => {
      await s.keys.insert(key('k2', 2000, ['books', 'films']), 'hash-2');
      await s.keys.insert(key('k1', 1000), 'hash-1');
      expect(await s.keys.findByHash('hash-2')).toEqual({ ...key('k2', 2000, ['books', 'films']), revokedAt: null });
      expect(await s.keys.findByHash('hash-x')).toBeNull();
      const t0 = Date.now();
      expect(await s.keys.revoke('k1')).toBe(true);
      expect(await s.keys.revoke('k1')).toBe(false);
      expect(await s.keys.revoke('nope')).toBe(false);
      expect(await s.keys.findByHash('hash-1')).toBeNull();
      const list = await s.keys.list();
      expect(list.map((k) => k.id)).toEqual(['k1', 'k2']);
      expect(list[0].revokedAt).toBeGreaterThanOrEqual(t0);
      expect(list[1]).toEqual({ ...key('k2', 2000, ['books', 'films']), revokedAt: null });
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
