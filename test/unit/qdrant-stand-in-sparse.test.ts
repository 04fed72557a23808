import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startQdrantStandIn, type QdrantStandIn } from '../helpers/qdrant-stand-in.js';
import { waitFor } from '../helpers/test-service.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Qdrant's IDF for a collection of `N` points, `n` of which have a non-zero value at the index. */
const idf = (N: number, n: number) => Math.log((N - n + 0.5) / (n + 0.5) + 1);

type Hit = { id: number | string; version: number; score: number; payload?: Record<string, unknown> };

describe('the Qdrant stand-in: named dense and sparse vectors, batch, prefetch, fusion, more filters', () => {
  let standIn: QdrantStandIn;
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(standIn.url + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { result: unknown; status: unknown } };
  };
  const query = async (body: Record<string, unknown>, collection = 'hybrid') => {
    const r = await send('POST', `/collections/${collection}/points/query`, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.result as { points: Hit[] }).points;
  };
  const ids = (hits: { id: number | string }[]) => hits.map((h) => h.id);
  const scrollIds = async (filter: unknown) => {
    const r = await send('POST', '/collections/hybrid/points/scroll', { filter, limit: 100, with_payload: false });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return ids((r.body.result as { points: { id: number }[] }).points);
  };

  // Five points with the same sparse vector under `idf` (IDF modifier) and `plain` (none); point 3 has no dense vector.
  // Document frequencies: index 1 → points 1, 2; 2 → 1, 3; 3 → 2, 5; 4 → 4; 5 → 5.
  const sparseOf: Record<number, { indices: number[]; values: number[] }> = {
    1: { indices: [1, 2], values: [1, 2] },
    2: { indices: [1, 3], values: [3, 1] },
    3: { indices: [2], values: [1] },
    4: { indices: [4], values: [2] },
    5: { indices: [3, 5], values: [2, 0.5] },
  };
  const denseOf: Record<number, number[] | undefined> = { 1: [1, 0], 2: [0.6, 0.8], 3: undefined, 4: [0.8, 0.6], 5: [-1, 0] };
  const payloadOf: Record<number, Record<string, unknown>> = {
    1: { lang: 'en', tags: ['a', 'b'], at: '2024-01-01T00:00:00Z' },
    2: { lang: 'de', tags: [], at: '2024-06-01T12:00:00+02:00' },
    3: { lang: null, tags: ['a', null], at: '2023-12-31T23:30:00-01:00' },
    4: { lang: 'en', tags: ['c'] },
    5: { tags: 'a', at: 'not a date', n: 3 },
  };
  const A = { indices: [1, 4], values: [1, 1] };

  beforeAll(async () => {
    standIn = await startQdrantStandIn();
    const created = await send('PUT', '/collections/hybrid', {
      vectors: { dense: { size: 2, distance: 'Cosine' } },
      sparse_vectors: { idf: { modifier: 'idf' }, plain: {} },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const points = [1, 2, 3, 4, 5].map((id) => ({
      id,
      vector: { idf: sparseOf[id], plain: sparseOf[id], ...(denseOf[id] ? { dense: denseOf[id] } : {}) },
      payload: payloadOf[id],
    }));
    expect((await send('PUT', '/collections/hybrid/points?wait=true', { points })).status).toBe(200);
  });
  afterAll(() => standIn.close());
  afterEach(() => {
    expect(standIn.violations).toEqual([]);
  });

  it('scores a sparse query with the IDF modifier by hand-computed weights, and returns only overlapping points', async () => {
    const hits = await query({ query: A, using: 'idf' });
    // Point 2: 1·idf(index 1)·3; point 4: 1·idf(index 4)·2; point 1: 1·idf(index 1)·1. Points 3 and 5 share no index.
    expect(ids(hits)).toEqual([4, 2, 1]);
    expect(hits[0].score).toBeCloseTo(2 * idf(5, 1), 10);
    expect(hits[1].score).toBeCloseTo(3 * idf(5, 2), 10);
    expect(hits[2].score).toBeCloseTo(1 * idf(5, 2), 10);
    expect(hits.every((h) => h.version > 0 && h.payload === undefined)).toBe(true);
  });

  it('scores a sparse query without modifier by plain dot product', async () => {
    const hits = await query({ query: A, using: 'plain' });
    expect(hits.map((h) => [h.id, h.score])).toEqual([
      [2, 3],
      [4, 2],
      [1, 1],
    ]);
    expect(await query({ query: { indices: [9], values: [1] }, using: 'plain' })).toEqual([]);
    expect(ids(await query({ query: { indices: [5, 9], values: [2, 1] }, using: 'plain' }))).toEqual([5]);
    // A zero in the query does not make an overlap.
    expect(await query({ query: { indices: [4, 9], values: [0, 1] }, using: 'plain' })).toEqual([]);
  });

  it('applies filter, limit, offset, with_payload and score_threshold to sparse and named dense queries', async () => {
    const filtered = await query({ query: A, using: 'idf', filter: { must: [{ key: 'lang', match: { value: 'en' } }] }, with_payload: ['lang'] });
    expect(filtered.map((h) => [h.id, h.payload])).toEqual([
      [4, { lang: 'en' }],
      [1, { lang: 'en' }],
    ]);
    expect(ids(await query({ query: A, using: 'idf', limit: 1, offset: 1 }))).toEqual([2]);
    expect(ids(await query({ query: A, using: 'plain', score_threshold: 1 }))).toEqual([2, 4]);
    // Point 3 has no dense vector: a dense search never reaches it.
    const dense = await query({ query: [1, 0], using: 'dense', limit: 10 });
    expect(ids(dense)).toEqual([1, 4, 2, 5]);
    expect(dense.map((h) => h.score)).toEqual([1, 0.8, 0.6, -1].map((s) => expect.closeTo(s, 10)));
    expect(ids(await query({ query: { nearest: [1, 0] }, using: 'dense', limit: 2 }))).toEqual([1, 4]);
  });

  it('answers a batch query as the same queries sent one by one', async () => {
    const searches = [
      { query: A, using: 'idf' },
      { query: A, using: 'plain', filter: { must_not: [{ has_id: [2] }] }, with_payload: true },
      { query: [0.6, 0.8], using: 'dense', limit: 2, offset: 1 },
      { prefetch: [{ query: A, using: 'idf', limit: 3 }, { query: [1, 0], using: 'dense', limit: 3 }], query: { fusion: 'rrf' } },
    ];
    const r = await send('POST', '/collections/hybrid/points/query/batch', { searches });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const one = await Promise.all(searches.map((s) => query(s)));
    expect(r.body.result).toEqual(one.map((points) => ({ points })));
    expect(one.map((points) => points.length)).toEqual([3, 2, 2, 3]);
  });

  it('rescores the union of the prefetches with the outer query, and pushes the outer filter into each prefetch', async () => {
    // The sparse prefetch finds 2 and 4; point 1, the best dense match, is not a candidate.
    const rescored = await query({ prefetch: { query: A, using: 'plain', limit: 2 }, query: [1, 0], using: 'dense' });
    expect(rescored.map((h) => [h.id, h.score])).toEqual([
      [4, expect.closeTo(0.8, 10)],
      [2, expect.closeTo(0.6, 10)],
    ]);
    // Two prefetches, one candidate list: 1 and 4 from the dense one, 2 and 4 from the sparse one.
    const union = await query({
      prefetch: [
        { query: [1, 0], using: 'dense', limit: 2 },
        { query: A, using: 'plain', limit: 2 },
      ],
      query: [0, 1],
      using: 'dense',
    });
    expect(ids(union)).toEqual([2, 4, 1]);
    // A sparse outer query only keeps candidates that share an index with it (point 5 has index 3 but was not prefetched).
    const sparseOuter = await query({ prefetch: { query: [1, 0], using: 'dense', limit: 3 }, query: { indices: [3], values: [1] }, using: 'plain' });
    expect(sparseOuter.map((h) => [h.id, h.score])).toEqual([[2, 1]]);
    // With the filter merged into the prefetch, its one slot goes to the best German point, not to point 1.
    const pushed = await query({
      prefetch: { query: [1, 0], using: 'dense', limit: 1 },
      query: [1, 0],
      using: 'dense',
      filter: { must: [{ key: 'lang', match: { value: 'de' } }] },
    });
    expect(ids(pushed)).toEqual([2]);
    // The prefetch's own filter applies too.
    const own = await query({ prefetch: { query: A, using: 'idf', filter: { must: [{ has_id: [1, 2] }] } }, query: A, using: 'idf' });
    expect(ids(own)).toEqual([2, 1]);
  });

  it('fuses prefetches by Reciprocal Rank Fusion as Qdrant does: 1 / (k + position), k = 2 unless given, weights', async () => {
    // Sparse (idf) ranks 4, 2, 1; dense [1, 0] ranks 1, 4, 2 (0-based positions).
    const prefetch = [
      { query: A, using: 'idf', limit: 3 },
      { query: [1, 0], using: 'dense', limit: 3 },
    ];
    const fused = await query({ prefetch, query: { fusion: 'rrf' }, with_payload: ['lang'] });
    expect(fused.map((h) => [h.id, h.score])).toEqual([
      [4, expect.closeTo(1 / 2 + 1 / 3, 6)],
      [1, expect.closeTo(1 / 4 + 1 / 2, 6)],
      [2, expect.closeTo(1 / 3 + 1 / 4, 6)],
    ]);
    expect(fused[0].payload).toEqual({ lang: 'en' });
    const k60 = await query({ prefetch, query: { rrf: { k: 60 } } });
    expect(k60.map((h) => h.score)).toEqual([1 / 60 + 1 / 61, 1 / 62 + 1 / 60, 1 / 61 + 1 / 62].map((s) => expect.closeTo(s, 10)));
    // With weights, the point at position p of a prefetch of weight w earns 1 / ((p + 1) / w + k - 1).
    const weighted = await query({ prefetch, query: { rrf: { weights: [3, 1] } } });
    expect(weighted.map((h) => [h.id, h.score])).toEqual([
      [4, expect.closeTo(1 / (1 / 3 + 1) + 1 / 3, 6)],
      [1, expect.closeTo(1 / (3 / 3 + 1) + 1 / 2, 6)],
      [2, expect.closeTo(1 / (2 / 3 + 1) + 1 / 4, 6)],
    ]);
    // A fused score at the threshold stays.
    expect(ids(await query({ prefetch, query: { fusion: 'rrf' }, score_threshold: 0.75 }))).toEqual([4, 1]);
    expect(ids(await query({ prefetch, query: { fusion: 'rrf' }, limit: 1, offset: 1 }))).toEqual([1]);

    const refused = [
      [{ query: { fusion: 'rrf' } }, /cannot apply Fusion without prefetches/],
      [{ prefetch, query: { fusion: 'rrf' }, using: 'dense' }, /Fusion queries cannot be combined with the 'using' field/],
      [{ prefetch, query: { rrf: { weights: [1] } } }, /Number of weights in RRF should match number of pre-fetches: got 1, expected 2/],
      [{ prefetch }, /A query is needed to merge the prefetches/],
    ] as const;
    for (const [body, message] of refused) {
      const r = await send('POST', '/collections/hybrid/points/query', body);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(message);
    }
  });

  it('filters by has_id, is_empty, is_null, match except and datetime ranges', async () => {
    expect(await scrollIds({ must: [{ has_id: [3, 1, 9] }] })).toEqual([1, 3]);
    expect(await scrollIds({ must_not: [{ has_id: [1] }] })).toEqual([2, 3, 4, 5]);
    // Empty: missing, null or []; null: present and null.
    expect(await scrollIds({ must: [{ is_empty: { key: 'tags' } }] })).toEqual([2]);
    expect(await scrollIds({ must: [{ is_empty: { key: 'lang' } }] })).toEqual([3, 5]);
    expect(await scrollIds({ must: [{ is_empty: { key: 'nowhere' } }] })).toEqual([1, 2, 3, 4, 5]);
    expect(await scrollIds({ must: [{ is_null: { key: 'lang' } }] })).toEqual([3]);
    expect(await scrollIds({ must_not: [{ is_null: { key: 'lang' } }] })).toEqual([1, 2, 4, 5]);
    // Except: at least one value outside the list; a missing, null or empty field has none, and a null in a list is not one.
    expect(await scrollIds({ must: [{ key: 'tags', match: { except: ['a'] } }] })).toEqual([1, 4]);
    expect(await scrollIds({ must: [{ key: 'lang', match: { except: ['en'] } }] })).toEqual([2]);
    expect(await scrollIds({ must: [{ key: 'n', match: { except: [1, 2] } }] })).toEqual([5]);
    // Datetimes compare as instants whatever their offset ('not a date' and a missing field never match).
    expect(await scrollIds({ must: [{ key: 'at', range: { gte: '2024-01-01T00:00:00Z', lt: '2024-01-01T01:00:00Z' } }] })).toEqual([1, 3]);
    expect(await scrollIds({ must: [{ key: 'at', range: { gt: '2024-01-01T00:00:00Z' } }] })).toEqual([2, 3]);
    expect(await scrollIds({ must: [{ key: 'at', range: { gte: '2024-06-01T10:00:00Z', lte: '2024-06-01T12:00:00+02:00' } }] })).toEqual([2]);
    expect(await scrollIds({ must: [{ key: 'at', range: { lt: '2024-06-01T10:00:00.000001Z', gt: '2024-01-01T00:30:00.5+00:00' } }] })).toEqual([2]);
    // The same conditions in a query and a count.
    expect(ids(await query({ query: A, using: 'plain', filter: { must: [{ key: 'tags', match: { except: ['b'] } }, { is_empty: { key: 'at' } }] } }))).toEqual([4]);
    const counted = await send('POST', '/collections/hybrid/points/count', { filter: { should: [{ has_id: [5] }, { is_null: { key: 'lang' } }] }, exact: true });
    expect(counted.body.result).toEqual({ count: 2 });
  });

  it('searches within a has_id as without it, keeps only the best `limit` in order, and refuses repeated ids as Qdrant\'s API description does', async () => {
    const all = await query({ query: A, using: 'idf', limit: 5 });
    const within = await query({ query: A, using: 'idf', limit: 5, filter: { must: [{ has_id: [4, 1, 2, 3, 5] }] } });
    expect(within).toEqual(all);
    expect(await query({ query: A, using: 'idf', limit: 1 })).toEqual(all.slice(0, 1));
    expect(await query({ query: A, using: 'idf', limit: 5, filter: { must: [{ has_id: [2, 4] }] } })).toEqual(all.filter((h) => [2, 4].includes(h.id as number)));
    const before = standIn.violations.length;
    const repeated = await send('POST', '/collections/hybrid/points/query', { query: A, using: 'idf', filter: { must: [{ has_id: [1, 2, 1] }] } });
    expect(repeated.status).toBe(400);
    expect(JSON.stringify(repeated.body)).toContain('must NOT have duplicate items (items ## 0 and 2 are identical)');
    expect(standIn.violations.length).toBe(before + 1);
    standIn.violations.length = before;
  });

  it('scores after many replacements and deletions as a collection written once with what is left (N, n and values)', async () => {
    const make = (name: string) => send('PUT', `/collections/${name}`, { sparse_vectors: { s: { modifier: 'idf' } } });
    const upsert = (name: string, points: { id: number; vector: { s: { indices: number[]; values: number[] } } }[]) =>
      send('PUT', `/collections/${name}/points?wait=true`, { points });
    const vectorOf = (id: number, round: number) => ({ s: { indices: [1, 2 + (id % 3), 10 + round], values: [1 + (id % 5), round + 1, 0.5] } });
    expect((await make('churned')).status).toBe(200);
    expect((await make('fresh')).status).toBe(200);
    // Every point rewritten five times (its old postings entries removed each time), then every third one deleted.
    for (let round = 0; round < 5; round++) {
      expect((await upsert('churned', Array.from({ length: 60 }, (_, id) => ({ id, vector: vectorOf(id, round) })))).status).toBe(200);
    }
    const gone = Array.from({ length: 20 }, (_, k) => 3 * k);
    expect((await send('POST', '/collections/churned/points/delete?wait=true', { points: gone })).status).toBe(200);
    const left = Array.from({ length: 60 }, (_, id) => id).filter((id) => !gone.includes(id));
    expect((await upsert('fresh', left.map((id) => ({ id, vector: vectorOf(id, 4) })))).status).toBe(200);
    for (const q of [{ indices: [1], values: [1] }, { indices: [1, 3, 14], values: [1, 2, 1] }, { indices: [13], values: [1] }]) {
      const [churned, fresh] = await Promise.all(['churned', 'fresh'].map((c) => query({ query: q, using: 's', limit: 60 }, c)));
      expect(churned.map((h) => [h.id, h.score])).toEqual(fresh.map((h) => [h.id, h.score]));
    }
    // n of index 1 is the 40 points left, not the 300 entries ever written: IDF over what is stored.
    const [one] = await query({ query: { indices: [1], values: [1] }, using: 's', limit: 1 }, 'churned');
    expect(one.score).toBeCloseTo(5 * idf(40, 40), 12);
  });

  it('answers Qdrant\'s errors for vectors the collection does not have or cannot take, and stores nothing of a refused batch', async () => {
    const count = async () => ((await send('POST', '/collections/hybrid/points/count', { exact: true })).body.result as { count: number }).count;
    const good = { id: 10, vector: { dense: [1, 1] } };
    const cases = [
      [{ id: 11, vector: { nope: [1, 0] } }, 400, 'Wrong input: Not existing vector name error: nope'],
      [{ id: 11, vector: [1, 0] }, 400, 'Wrong input: Not existing vector name error: '],
      [{ id: 11, vector: { dense: [1, 0, 0] } }, 400, 'Wrong input: Vector dimension error: expected dim: 2, got 3'],
      [{ id: 11, vector: { dense: { indices: [1], values: [1] } } }, 400, 'Wrong input: Conversion between sparse and regular vectors failed'],
      [{ id: 11, vector: { idf: [1, 0] } }, 400, 'Wrong input: Conversion between sparse and regular vectors failed'],
      // As Qdrant 1.19 answers them: its body validation (422) names the vector "?".
      [{ id: 11, vector: { idf: { indices: [1, 1], values: [1, 2] } } }, 422, 'Validation error in JSON body: [points[1].vector.?.indices: Validation error: must be unique [{}]]'],
      [{ id: 11, vector: { idf: { indices: [1, 2], values: [1] } } }, 422, 'Validation error in JSON body: [points[1].vector.?.values: Validation error: must be the same length as indices [{}]]'],
    ] as const;
    for (const [point, status, error] of cases) {
      const r = await send('PUT', '/collections/hybrid/points?wait=true', { points: [good, point] });
      expect(r.status, error).toBe(status);
      expect((r.body.status as { error: string }).error).toBe(error);
    }
    expect(await count()).toBe(5);
    const badQueries = [
      [{ query: [1, 0, 0], using: 'dense' }, 400, /expected dim: 2, got 3/],
      [{ query: [1, 0] }, 400, /Not existing vector name error: $/],
      [{ query: A, using: 'nope' }, 400, /Not existing vector name error: nope/],
      [{ query: A, using: 'dense' }, 400, /Conversion between sparse and regular vectors failed/],
      [{ query: { indices: [1, 1], values: [1, 1] }, using: 'idf' }, 422, /must be unique/],
    ] as const;
    for (const [body, status, error] of badQueries) {
      const r = await send('POST', '/collections/hybrid/points/query', body);
      expect(r.status).toBe(status);
      expect((r.body.status as { error: string }).error).toMatch(error);
    }
  });

  it('creates collections with an unnamed vector and sparse ones, with sparse ones only, and refuses other kinds (501)', async () => {
    expect((await send('PUT', '/collections/mixed', { vectors: { size: 2, distance: 'Cosine' }, sparse_vectors: { text: { modifier: 'none' } } })).status).toBe(200);
    const points = [
      { id: '6b1d0f52-8c1e-4e36-9a55-0b7f3c2d9e41', vector: { '': [1, 0], text: { indices: [7], values: [1] } } },
      { id: 2, vector: [0, 1] },
    ];
    expect((await send('PUT', '/collections/mixed/points', { points })).status).toBe(200);
    expect(standIn.collections.get('mixed')!.size).toBe(2);
    expect(ids(await query({ query: [0, 1] }, 'mixed'))).toEqual([2, '6b1d0f52-8c1e-4e36-9a55-0b7f3c2d9e41']);
    expect(ids(await query({ query: { indices: [7], values: [2] }, using: 'text' }, 'mixed'))).toEqual(['6b1d0f52-8c1e-4e36-9a55-0b7f3c2d9e41']);

    expect((await send('PUT', '/collections/words', { sparse_vectors: { text: { modifier: 'idf' } } })).status).toBe(200);
    expect(standIn.collections.get('words')!.size).toBeNull();
    expect((await send('PUT', '/collections/words/points', { points: [{ id: 1, vector: { text: { indices: [1], values: [1] } } }, { id: 2, vector: {} }] })).status).toBe(200);
    // The point without a `text` vector is not in its statistics (as in Qdrant's code): N = 1, n = 1,
    // idf = ln((1 - 1 + 0.5) / (1 + 0.5) + 1) = ln(4/3).
    expect((await query({ query: { indices: [1], values: [1] }, using: 'text' }, 'words')).map((h) => [h.id, h.score])).toEqual([[1, expect.closeTo(Math.log(4 / 3), 10)]]);

    for (const vectors of [{ size: 2, distance: 'Dot' }, { a: { size: 2, distance: 'Cosine' }, b: { size: 2, distance: 'Euclid' } }]) {
      expect((await send('PUT', '/collections/other', { vectors })).status).toBe(501);
    }
    expect(standIn.violations.map((v) => v.kind)).toEqual(['unsupported', 'unsupported']);
    standIn.violations.length = 0;
  });

  it('describes a collection: its vectors, payload indexes, point count and the metadata it was created with', async () => {
    const metadata = { quarry: { vectors: { title: 'v0' } } };
    expect((await send('PUT', '/collections/described', { sparse_vectors: { v0: { modifier: 'idf' }, v1: {} }, metadata })).status).toBe(200);
    expect((await send('PUT', '/collections/described/index', { field_name: 'doc', field_schema: 'keyword' })).status).toBe(200);
    expect((await send('PUT', '/collections/described/index', { field_name: 'index', field_schema: { type: 'keyword', is_tenant: true } })).status).toBe(200);
    const points = [{ id: 1, vector: { v0: { indices: [1], values: [1] } }, payload: { doc: 'a' } }, { id: 2, vector: {} }];
    expect((await send('PUT', '/collections/described/points', { points })).status).toBe(200);
    const info = (await send('GET', '/collections/described')).body.result as Record<string, unknown>;
    expect(info).toMatchObject({
      points_count: 2,
      payload_schema: { doc: { data_type: 'keyword', points: 1 }, index: { data_type: 'keyword', params: { type: 'keyword', is_tenant: true }, points: 0 } },
      config: { params: { vectors: {}, sparse_vectors: { v0: { modifier: 'idf' }, v1: {} } }, metadata },
    });
    expect(((await send('GET', '/collections/hybrid')).body.result as { config: { params: unknown } }).config.params).toMatchObject({
      vectors: { dense: { size: 2, distance: 'Cosine' } },
      sparse_vectors: { idf: { modifier: 'idf' }, plain: {} },
    });
    expect(((await send('GET', '/collections/mixed')).body.result as { config: { params: unknown } }).config.params).toMatchObject({ vectors: { size: 2, distance: 'Cosine' } });
    expect((await send('GET', '/collections/nowhere')).status).toBe(404);
  });
});

describe('npm run qdrant:stand-in', () => {
  it('prints that it is a test stand-in and its URL, answers GET /, logs violations to stderr, and stops on SIGTERM', { timeout: 30_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/qdrant-stand-in.ts', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      expect(await waitFor(() => /URL: http:\/\/127\.0\.0\.1:\d+/.test(out), 20_000, 50), out + err).toBe(true);
      expect(out).toContain('TEST STAND-IN');
      expect(out).toMatch(/not a database/);
      expect(out).toMatch(/Nothing is persisted/);
      const url = out.match(/URL: (http:\/\/127\.0\.0\.1:\d+)/)![1];
      const root = await fetch(url + '/');
      expect(root.status).toBe(200);
      expect(await root.json()).toMatchObject({ title: 'qdrant - vector search engine', version: '1.19.0' });
      expect((await fetch(url + '/collections/c', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"vectorz":{}}' })).status).toBe(400);
      expect(await waitFor(() => err.includes('VIOLATION body PUT /collections/c (create_collection)'), 5_000, 50), err).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
