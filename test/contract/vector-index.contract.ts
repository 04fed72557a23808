import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentRef } from '../../shared/storage/ports/document-store.js';
import type { VectorHit, VectorIndex, VectorPoint } from '../../shared/storage/ports/vector-index.js';
import { prng } from '../helpers/prng.js';

/** What a backend hands the contract for one behaviour. */
export interface ContractSubject {
  vectors: VectorIndex;
  /** Points the backend holds for an index. */
  count(index: string): Promise<number>;
  /** Runs after each behaviour, before close (e.g. checks a stand-in saw nothing invalid). */
  after?(): Promise<void>;
}

const DIMS = 8;

/** Unit-free random vectors from a seed, so every backend sees the same data. */
function vectorsFrom(seed: number, n: number): Float32Array[] {
  const rnd = prng(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: DIMS }, () => rnd() * 2 - 1));
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) [dot, na, nb] = [dot + a[i] * b[i], na + a[i] * a[i], nb + b[i] * b[i]];
  return dot / Math.sqrt(na * nb);
}

/** Every page the way the reconciler reads them: continue after the last uid until a short page. */
async function allVersions(vectors: VectorIndex, index: string, limit: number): Promise<DocumentRef[][]> {
  const pages: DocumentRef[][] = [];
  let after: string | null = null;
  for (;;) {
    const page = await vectors.versions(index, after, limit);
    if (page.length === 0) break;
    pages.push(page);
    after = page[page.length - 1].uid;
    if (page.length < limit) break;
  }
  return pages;
}

const refsOf = (hits: VectorHit[]) => hits.map((h) => `${h.uid}@${h.version}#${h.ord}`);

/**
 * The behaviours every VectorIndex adapter must show. `make` gives a fresh subject per behaviour;
 * index uids are unique per behaviour, so backends that share one store (a Qdrant collection) can run it.
 */
export function vectorIndexContract(name: string, make: () => Promise<ContractSubject>): void {
  describe(`VectorIndex contract: ${name}`, () => {
    let s: ContractSubject;
    let ix: string;
    beforeEach(async () => {
      s = await make();
      ix = `contract-${randomUUID()}`;
    });
    afterEach(async () => {
      await s.after?.();
      await s.vectors.close();
    });

    it('reads an index never written as empty', async () => {
      expect(await s.vectors.search(ix, vectorsFrom(1, 1)[0], 5)).toEqual([]);
      expect(await s.vectors.versions(ix, null, 10)).toEqual([]);
      expect(await s.count(ix)).toBe(0);
      await s.vectors.deleteOlder(ix, [{ uid: 'a', version: 3 }]);
      await s.vectors.deleteVersions(ix, [{ uid: 'a', version: 3 }]);
    });

    it('finds the nearest points by cosine, best first, with their identity and score', async () => {
      const v = vectorsFrom(2, 30);
      const points: VectorPoint[] = v.map((vector, i) => ({ uid: `doc-${i % 10}`, version: 1 + (i % 3), ord: Math.floor(i / 10), vector }));
      await s.vectors.upsert(ix, points);
      expect(await s.count(ix)).toBe(30);
      const query = Float32Array.from(v[17], (x, i) => x + (i % 2 ? 0.05 : -0.05));
      const hits = await s.vectors.search(ix, query, 5);
      const exact = points.map((p) => ({ p, score: cosine(p.vector, query) })).sort((a, b) => b.score - a.score);
      expect(hits).toHaveLength(5);
      expect(hits[0]).toMatchObject({ uid: points[17].uid, version: points[17].version, ord: points[17].ord });
      hits.forEach((h, i) => {
        expect(h).toMatchObject({ uid: exact[i].p.uid, version: exact[i].p.version, ord: exact[i].p.ord });
        expect(h.score).toBeCloseTo(exact[i].score, 4);
      });
      // A vector scaled up is the same direction.
      const scaled = await s.vectors.search(ix, Float32Array.from(query, (x) => x * 7), 5);
      expect(refsOf(scaled)).toEqual(refsOf(hits));
    });

    it('changes nothing when the same upsert is replayed', async () => {
      const v = vectorsFrom(3, 12);
      const points: VectorPoint[] = v.map((vector, i) => ({ uid: `d${i % 4}`, version: 5, ord: Math.floor(i / 4), vector, fields: { lang: i % 2 ? 'en' : 'de' } }));
      await s.vectors.upsert(ix, points);
      const before = { count: await s.count(ix), hits: await s.vectors.search(ix, v[3], 12), versions: await s.vectors.versions(ix, null, 100) };
      await s.vectors.upsert(ix, points);
      await s.vectors.upsert(ix, points.slice(4, 8));
      const after = { count: await s.count(ix), hits: await s.vectors.search(ix, v[3], 12), versions: await s.vectors.versions(ix, null, 100) };
      expect(after.count).toBe(12);
      expect(refsOf(after.hits)).toEqual(refsOf(before.hits));
      after.hits.forEach((h, i) => expect(h.score).toBeCloseTo(before.hits[i].score, 6));
      expect(after.versions).toEqual(before.versions);
    });

    it('deleteOlder keeps only each document\'s live version', async () => {
      const v = vectorsFrom(4, 8);
      await s.vectors.upsert(ix, [
        { uid: 'a', version: 1, ord: 0, vector: v[0] },
        { uid: 'a', version: 1, ord: 1, vector: v[1] },
        { uid: 'a', version: 4, ord: 0, vector: v[2] },
        { uid: 'b', version: 2, ord: 0, vector: v[3] },
        { uid: 'b', version: 3, ord: 0, vector: v[4] },
        { uid: 'c', version: 9, ord: 0, vector: v[5] },
      ]);
      await s.vectors.deleteOlder(ix, [
        { uid: 'a', version: 4 },
        { uid: 'b', version: 3 },
        { uid: 'c', version: 9 },
        { uid: 'zz', version: 1 },
      ]);
      expect(await s.vectors.versions(ix, null, 100)).toEqual([
        { uid: 'a', version: 4 },
        { uid: 'b', version: 3 },
        { uid: 'c', version: 9 },
      ]);
      expect(await s.count(ix)).toBe(3);
      const hits = await s.vectors.search(ix, v[0], 10);
      expect(hits.map((h) => `${h.uid}@${h.version}`).sort()).toEqual(['a@4', 'b@3', 'c@9']);
      // A document that is gone: everything below "infinity".
      await s.vectors.deleteOlder(ix, [{ uid: 'c', version: Number.MAX_SAFE_INTEGER }]);
      expect(await s.vectors.versions(ix, null, 100)).toEqual([
        { uid: 'a', version: 4 },
        { uid: 'b', version: 3 },
      ]);
    });

    it('deleteVersions removes exactly the listed versions', async () => {
      const v = vectorsFrom(5, 6);
      await s.vectors.upsert(ix, [
        { uid: 'a', version: 1, ord: 0, vector: v[0] },
        { uid: 'a', version: 2, ord: 0, vector: v[1] },
        { uid: 'a', version: 2, ord: 1, vector: v[2] },
        { uid: 'b', version: 3, ord: 0, vector: v[3] },
        { uid: 'b', version: 4, ord: 0, vector: v[4] },
      ]);
      await s.vectors.deleteVersions(ix, [
        { uid: 'a', version: 1 },
        { uid: 'b', version: 4 },
        { uid: 'b', version: 7 },
      ]);
      expect(await s.vectors.versions(ix, null, 100)).toEqual([
        { uid: 'a', version: 2 },
        { uid: 'b', version: 3 },
      ]);
      expect(await s.count(ix)).toBe(3);
    });

    it('filters on any of the listed values, per field, with types kept apart', async () => {
      const v = vectorsFrom(6, 6);
      const fields: VectorPoint['fields'][] = [
        { lang: 'en', year: 2020, tags: ['x', 'y'], draft: false, weight: 1.5, 'meta.source': 'wiki' },
        { lang: 'de', year: 2021, tags: ['y'], draft: true, weight: 2, 'meta.source': 'blog' },
        { lang: 'fr', year: 2022, tags: [], draft: false, weight: 2.5 },
        { lang: 'en', year: 2021, tags: ['z'], draft: false, weight: 1.5 },
        { lang: '2021', year: 2019, tags: ['x'], draft: true, weight: 3 },
        {},
      ];
      await s.vectors.upsert(ix, v.map((vector, i) => ({ uid: `d${i}`, version: 1, ord: 0, vector, fields: fields[i] })));
      const uids = async (filter: Parameters<VectorIndex['search']>[3]) =>
        (await s.vectors.search(ix, v[0], 10, filter)).map((h) => h.uid).sort();
      expect(await uids([{ field: 'lang', anyOf: ['en', 'fr'] }])).toEqual(['d0', 'd2', 'd3']);
      expect(await uids([{ field: 'year', anyOf: [2021, 2019] }])).toEqual(['d1', 'd3', 'd4']);
      expect(await uids([{ field: 'lang', anyOf: ['en'] }, { field: 'year', anyOf: [2021] }])).toEqual(['d3']);
      expect(await uids([{ field: 'year', anyOf: ['2021'] }])).toEqual([]);
      expect(await uids([{ field: 'lang', anyOf: [2021] }])).toEqual([]);
      expect(await uids([{ field: 'tags', anyOf: ['x'] }])).toEqual(['d0', 'd4']);
      expect(await uids([{ field: 'draft', anyOf: [true] }])).toEqual(['d1', 'd4']);
      expect(await uids([{ field: 'weight', anyOf: [1.5, 3] }])).toEqual(['d0', 'd3', 'd4']);
      expect(await uids([{ field: 'weight', anyOf: [2, 'x', false] }])).toEqual(['d1']);
      expect(await uids([{ field: 'meta.source', anyOf: ['wiki'] }])).toEqual(['d0']);
      expect(await uids([{ field: 'lang', anyOf: [] }])).toEqual([]);
      expect(await uids([{ field: 'missing', anyOf: ['en'] }])).toEqual([]);
      expect(await uids([])).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5']);
      // The filter applies before the limit: the nearest matching points, not a filtered top 2.
      const near = await s.vectors.search(ix, v[5], 2, [{ field: 'lang', anyOf: ['fr', 'de'] }]);
      expect(near.map((h) => h.uid).sort()).toEqual(['d1', 'd2']);
    });

    it('keeps index uids apart', async () => {
      const other = `contract-${randomUUID()}`;
      const v = vectorsFrom(7, 4);
      await s.vectors.upsert(ix, [
        { uid: 'a', version: 1, ord: 0, vector: v[0] },
        { uid: 'b', version: 1, ord: 0, vector: v[1] },
      ]);
      await s.vectors.upsert(other, [
        { uid: 'a', version: 1, ord: 0, vector: v[2] },
        { uid: 'c', version: 2, ord: 0, vector: v[3] },
      ]);
      expect((await s.vectors.search(ix, v[2], 10)).map((h) => h.uid).sort()).toEqual(['a', 'b']);
      expect((await s.vectors.search(other, v[0], 10)).map((h) => h.uid).sort()).toEqual(['a', 'c']);
      await s.vectors.deleteOlder(ix, [{ uid: 'a', version: 5 }]);
      await s.vectors.deleteVersions(other, [{ uid: 'c', version: 2 }]);
      expect(await s.vectors.versions(ix, null, 10)).toEqual([{ uid: 'b', version: 1 }]);
      expect(await s.vectors.versions(other, null, 10)).toEqual([{ uid: 'a', version: 1 }]);
      await s.vectors.dropIndex(other);
      expect(await s.count(other)).toBe(0);
      expect(await s.count(ix)).toBe(1);
    });

    it('pages versions() by document uid, whole documents per page, exactly the pairs that have points', async () => {
      const v = vectorsFrom(8, 40);
      const docs = ['k', 'b', 'a', 'é', 'B', 'm-1', 'm-10', 'm-2', 'z', 'c'];
      const points: VectorPoint[] = [];
      docs.forEach((uid, d) => {
        points.push({ uid, version: 10 + d, ord: 0, vector: v[2 * d] }, { uid, version: 10 + d, ord: 1, vector: v[2 * d + 1] });
        if (d % 3 === 0) points.push({ uid, version: 30 + d, ord: 0, vector: v[20 + d] }); // a second version, mid-publish
      });
      await s.vectors.upsert(ix, points);
      await s.vectors.deleteVersions(ix, [{ uid: 'z', version: 18 }]);
      const expected = [...new Set(points.filter((p) => !(p.uid === 'z' && p.version === 18)).map((p) => `${p.uid}\u0000${p.version}`))]
        .map((k) => ({ uid: k.split('\u0000')[0], version: Number(k.split('\u0000')[1]) }))
        .sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : a.version - b.version));
      for (const limit of [1, 2, 3, 100]) {
        const pages = await allVersions(s.vectors, ix, limit);
        expect(pages.flat()).toEqual(expected);
        const uidsPerPage = pages.map((p) => new Set(p.map((r) => r.uid)));
        // No document split across pages; every page but the last is full.
        uidsPerPage.forEach((u, i) => uidsPerPage.slice(i + 1).forEach((later) => [...u].forEach((uid) => expect(later.has(uid)).toBe(false))));
        pages.slice(0, -1).forEach((p) => expect(p.length).toBeGreaterThanOrEqual(limit));
      }
      // Code-unit order ('B' < 'a', 'm-10' < 'm-2', 'é' last); the page fills up with whole documents.
      expect(await s.vectors.versions(ix, 'm-10', 2)).toEqual([
        { uid: 'm-2', version: 17 },
        { uid: 'é', version: 13 },
        { uid: 'é', version: 33 },
      ]);
      expect(await s.vectors.versions(ix, 'é', 2)).toEqual([]);
    });

    it('dropIndex removes everything of the index, and the index can be written again', async () => {
      const v = vectorsFrom(9, 5);
      await s.vectors.upsert(ix, v.map((vector, i) => ({ uid: `d${i}`, version: 1, ord: 0, vector, fields: { n: i } })));
      await s.vectors.dropIndex(ix);
      expect(await s.count(ix)).toBe(0);
      expect(await s.vectors.search(ix, v[0], 5)).toEqual([]);
      expect(await s.vectors.versions(ix, null, 10)).toEqual([]);
      await s.vectors.dropIndex(ix);
      await s.vectors.upsert(ix, [{ uid: 'again', version: 2, ord: 0, vector: v[1] }]);
      expect(await s.vectors.versions(ix, null, 10)).toEqual([{ uid: 'again', version: 2 }]);
    });
  });
}
