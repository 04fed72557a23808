import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../shared/storage/ports/session-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const session = (hash: string, keyId: string, expiresAt: number, over: Partial<SessionRecord> = {}): SessionRecord => ({
  hash, csrfToken: `csrf-${hash}`, keyId, keyName: `name of ${keyId}`, masterHash: null,
  createdAt: 1000, expiresAt, lastSeenAt: 1000, ...over,
});

export function sessionStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: session store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('finds a session by hash until it expires, from another host too', async () => {
      const master = session('h1', 'master', 10_000, { masterHash: 'mh' });
      await s.sessions.create(master);
      await s.sessions.create(session('h2', 'key_a', 20_000));
      expect(await s.sessions.find('h1', 5000)).toEqual(master);
      expect(await s.sessions.find('h1', 9999)).toEqual(master);
      expect(await s.sessions.find('h1', 10_000)).toBeNull();
      expect(await s.sessions.find('nope', 0)).toBeNull();
      const other = await h.open();
      expect(await other.sessions.find('h2', 5000)).toEqual(session('h2', 'key_a', 20_000));
    });

    it('refuses a second session with the same hash', async () => {
      await s.sessions.create(session('h1', 'key_a', 10_000));
      await expect(s.sessions.create(session('h1', 'key_b', 10_000))).rejects.toThrow();
      expect((await s.sessions.find('h1', 0))?.keyId).toBe('key_a');
    });

    it('slides the expiry of a session in use', async () => {
      await s.sessions.create(session('h1', 'key_a', 10_000));
      await s.sessions.touch('h1', 9000, 50_000);
      expect(await s.sessions.find('h1', 20_000)).toEqual(session('h1', 'key_a', 50_000, { lastSeenAt: 9000 }));
    });

    it('deletes one session, the expired ones, and every session of a key', async () => {
      await s.sessions.create(session('h1', 'key_a', 10_000));
      await s.sessions.create(session('h2', 'key_a', 30_000));
      await s.sessions.create(session('h3', 'key_b', 30_000));
      await s.sessions.create(session('h4', 'key_b', 5000));
      expect(await s.sessions.delete('h3')).toBe(true);
      expect(await s.sessions.delete('h3')).toBe(false);
      expect(await s.sessions.deleteExpired(10_000)).toBe(2);
      expect(await s.sessions.find('h2', 20_000)).not.toBeNull();
      await s.sessions.create(session('h5', 'key_b', 30_000));
      expect(await s.sessions.deleteOfKey('key_a')).toBe(1);
      expect(await s.sessions.find('h2', 20_000)).toBeNull();
      expect((await s.sessions.find('h5', 20_000))?.keyId).toBe('key_b');
      expect(await s.sessions.deleteOfKey('key_a')).toBe(0);
    });
  });
}
