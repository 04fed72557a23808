import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IndexLimitReached } from '../../shared/storage/ports/index-registry.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const FIELDS = { title: { type: 'text' as const }, price: { type: 'float' as const, multi_valued: true } };

export function indexRegistryContract(name: string, make: MakeStorage) {
  describe(`${name}: index registry`, () => {
    let h: StorageHandle;
    let s: BackendStorage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('creates an index, then updates its language and fields in place', async () => {
      const t0 = Date.now();
      const first = await s.indexes.upsert('books', 'en', FIELDS);
      expect(first.created).toBe(true);
      expect(first.index).toMatchObject({ uid: 'books', languageCode: 'en', fields: FIELDS, embedder: null });
      expect(first.index.createdAt).toBeGreaterThanOrEqual(t0);
      expect(first.index.updatedAt).toBe(first.index.createdAt);
      const second = await s.indexes.upsert('books', 'de', { title: { type: 'text' } });
      expect(second.created).toBe(false);
      expect(second.index).toMatchObject({ id: first.index.id, languageCode: 'de', fields: { title: { type: 'text' } }, createdAt: first.index.createdAt });
      expect(second.index.updatedAt).toBeGreaterThanOrEqual(first.index.updatedAt);
      expect(await s.indexes.get('books')).toEqual(second.index);
      expect(await s.indexes.getById(first.index.id)).toEqual(second.index);
    });

    it('keeps fields named like Object.prototype members, __proto__ included, as own keys', async () => {
      const fields = JSON.parse('{"__proto__":{"type":"text"},"constructor":{"type":"int"},"toString":{"type":"string","multi_valued":true}}');
      await s.indexes.upsert('proto', 'en', fields);
      for (const index of [await s.indexes.get('proto'), (await s.indexes.list()).find((i) => i.uid === 'proto')]) {
        expect(Object.keys(index!.fields)).toEqual(['__proto__', 'constructor', 'toString']);
        expect(Object.hasOwn(index!.fields, '__proto__') && index!.fields.__proto__).toEqual({ type: 'text' });
      }
    });

    it('lists indexes by uid and answers null for unknown ones', async () => {
      for (const uid of ['b', 'a', 'B']) await s.indexes.upsert(uid, 'en', FIELDS);
      expect((await s.indexes.list()).map((i) => i.uid)).toEqual(['B', 'a', 'b']);
      const ids = new Set((await s.indexes.list()).map((i) => i.id));
      expect(ids.size).toBe(3);
      expect(await s.indexes.get('nope')).toBeNull();
      expect(await s.indexes.getById(Math.max(...ids) + 100)).toBeNull();
    });

    it('lists indexes a page at a time after a uid', async () => {
      for (const uid of ['b', 'a', 'B', 'c']) await s.indexes.upsert(uid, 'en', FIELDS);
      expect((await s.indexes.list({ limit: 2 })).map((i) => i.uid)).toEqual(['B', 'a']);
      expect((await s.indexes.list({ limit: 2, after: 'a' })).map((i) => i.uid)).toEqual(['b', 'c']);
      expect(await s.indexes.list({ limit: 2, after: 'c' })).toEqual([]);
    });

    it('creates no index past maxIndexes, even when hosts create them at once, and still updates existing ones', async () => {
      const other = await h.open();
      await s.indexes.upsert('first', 'en', FIELDS, 5);
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => (i % 2 ? other : s).indexes.upsert(`ix-${i}`, 'en', FIELDS, 5)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(IndexLimitReached);
      expect(await s.indexes.list()).toHaveLength(5);
      const updated = await other.indexes.upsert('first', 'de', FIELDS, 5);
      expect(updated).toMatchObject({ created: false, index: { languageCode: 'de' } });
      await expect(s.indexes.upsert('sixth', 'en', FIELDS, 5)).rejects.toBeInstanceOf(IndexLimitReached);
      expect((await s.indexes.upsert('sixth', 'en', FIELDS)).created).toBe(true);
    });

    it('records the embedder of an index', async () => {
      const { index } = await s.indexes.upsert('books', 'en', FIELDS);
      await s.indexes.get('books');
      await s.indexes.setEmbedder(index.id, 'glove-100');
      expect((await s.indexes.get('books'))!.embedder).toBe('glove-100');
      expect((await s.indexes.getById(index.id))!.embedder).toBe('glove-100');
      const again = await s.indexes.upsert('books', 'en', FIELDS);
      expect(again.index.embedder).toBe('glove-100');
    });

    it('creates an index once when two hosts create it at the same moment', async () => {
      const other = await h.open();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other : s).indexes.upsert('race', 'en', FIELDS)));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.index.id)).size).toBe(1);
    });
  });
}
