import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigurationRecord, InstantAnswerRecord } from '../../shared/storage/ports/configuration-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const config = (uid: string, createdAt: number, patch: Partial<ConfigurationRecord> = {}): ConfigurationRecord => ({
  uid, variant: 'ui', name: `Config ${uid}`, indexes: ['books'], resultCount: 10, allowedOrigins: ['*'], topQuestions: ['how?'],
  autocompleteMinQueries: 5, autocompleteMinSessions: 2, fusion: 'rrf', keywordWeight: 0.5, createdAt, updatedAt: createdAt, ...patch,
});

const answer = (id: string, configurationUid: string, createdAt: number, patch: Partial<InstantAnswerRecord> = {}): InstantAnswerRecord => ({
  id, configurationUid, title: `Answer ${id}`, content: '<p>Yes</p>', url: null, keywords: ['yes'], configuration: { pinned: true },
  createdAt, updatedAt: createdAt, ...patch,
});

export function configurationStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: configuration store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('stores configurations whole, lists them oldest first, replaces and deletes them', async () => {
      await s.configurations.insert(config('c2', 2000, { variant: 'tool', fusion: 'weighted' }));
      await s.configurations.insert(config('c1', 1000));
      expect(await s.configurations.get('c2')).toEqual(config('c2', 2000, { variant: 'tool', fusion: 'weighted' }));
      expect(await s.configurations.get('nope')).toBeNull();
      expect((await s.configurations.list()).map((c) => c.uid)).toEqual(['c1', 'c2']);
      await expect(s.configurations.insert(config('c1', 3000))).rejects.toThrow();
      const changed = config('c1', 1000, { name: 'Renamed', updatedAt: 5000 });
      expect(await s.configurations.replace(changed)).toBe(true);
      expect(await s.configurations.get('c1')).toEqual(changed);
      expect(await s.configurations.replace(config('ghost', 1))).toBe(false);
      expect(await s.configurations.delete('c1')).toBe(true);
      expect(await s.configurations.delete('c1')).toBe(false);
      expect((await s.configurations.list()).map((c) => c.uid)).toEqual(['c2']);
    });

    it('lists configurations and instant answers a page at a time, oldest first, each once', async () => {
      for (const [uid, at] of [['c3', 2000], ['c2', 2000], ['c1', 1000]] as const) await s.configurations.insert(config(uid, at));
      expect((await s.configurations.list({ limit: 2 })).map((c) => c.uid)).toEqual(['c1', 'c2']);
      expect((await s.configurations.list({ limit: 2, after: { createdAt: 2000, id: 'c2' } })).map((c) => c.uid)).toEqual(['c3']);
      for (const [id, at] of [['a3', 20], ['a2', 20], ['a1', 10]] as const) await s.configurations.insertInstantAnswer(answer(id, 'c1', at));
      await s.configurations.insertInstantAnswer(answer('b1', 'c2', 15));
      expect((await s.configurations.instantAnswers('c1', { limit: 2 })).map((a) => a.id)).toEqual(['a1', 'a2']);
      expect((await s.configurations.instantAnswers('c1', { limit: 2, after: { createdAt: 20, id: 'a2' } })).map((a) => a.id)).toEqual(['a3']);
    });

    it('keeps instant answers per configuration, and drops them with it', async () => {
      await s.configurations.insert(config('c1', 1000));
      await s.configurations.insert(config('c2', 1000));
      await s.configurations.insertInstantAnswer(answer('a2', 'c1', 20));
      await s.configurations.insertInstantAnswer(answer('a1', 'c1', 10, { url: 'https://x/1' }));
      await s.configurations.insertInstantAnswer(answer('b1', 'c2', 10));
      expect(await s.configurations.instantAnswers('c1')).toEqual([answer('a1', 'c1', 10, { url: 'https://x/1' }), answer('a2', 'c1', 20)]);
      const edited = answer('a2', 'c1', 20, { title: 'Edited', updatedAt: 99 });
      expect(await s.configurations.replaceInstantAnswer(edited)).toBe(true);
      expect(await s.configurations.replaceInstantAnswer(answer('a2', 'c2', 20))).toBe(false);
      expect((await s.configurations.instantAnswers('c1'))[1]).toEqual(edited);
      expect(await s.configurations.deleteInstantAnswer('c2', 'a1')).toBe(false);
      expect(await s.configurations.deleteInstantAnswer('c1', 'a1')).toBe(true);
      expect((await s.configurations.instantAnswers('c1')).map((a) => a.id)).toEqual(['a2']);
      await s.configurations.delete('c1');
      expect(await s.configurations.instantAnswers('c1')).toEqual([]);
      expect(await s.configurations.instantAnswers('c2')).toHaveLength(1);
    });
  });
}
