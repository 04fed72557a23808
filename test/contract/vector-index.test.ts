import { randomUUID } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANN_MIN_VECTORS } from '../../shared/search/vectors/vector-set.js';
import { MemoryVectorIndex } from '../../shared/search/vectors/memory-vector-index.js';
import { createQdrantVectorIndex, fieldKey, pointId } from '../../shared/storage/qdrant/qdrant-vector-index.js';
import { prng } from '../helpers/prng.js';
import { OpenApiValidator, qdrantValidator, startQdrantStandIn, type QdrantStandIn } from '../helpers/qdrant-stand-in.js';
import { vectorIndexContract } from './vector-index.contract.js';

vectorIndexContract('MemoryVectorIndex', async () => {
  const vectors = new MemoryVectorIndex();
  return { vectors, count: async (index) => vectors.count(index) };
});

describe('MemoryVectorIndex beyond the contract', () => {
  it('filters inside the IVF scan once an index is large, and reuses the slots of deleted points', async () => {
    const vectors = new MemoryVectorIndex();
    const rnd = prng(11);
    const langs = ['en', 'de', 'fr'];
    const points = Array.from({ length: ANN_MIN_VECTORS + 2000 }, (_, i) => ({
      uid: `d${i}`,
      version: 1,
      ord: 0,
      vector: Float32Array.from({ length: 16 }, () => rnd() - 0.5),
      fields: { lang: langs[i % 3] },
    }));
    await vectors.upsert('big', points);
    vectors.prepare('big');
    const hits = await vectors.search('big', points[124].vector, 20, [{ field: 'lang', anyOf: ['de'] }]);
    expect(hits[0]).toMatchObject({ uid: 'd124', version: 1, ord: 0 });
    expect(hits[0].score).toBeCloseTo(1, 5);
    expect(hits).toHaveLength(20);
    expect(hits.every((h) => Number(h.uid.slice(1)) % 3 === 1)).toBe(true);
    await vectors.deleteOlder('big', [{ uid: 'd124', version: 2 }]);
    expect((await vectors.search('big', points[124].vector, 1, [{ field: 'lang', anyOf: ['de'] }]))[0].uid).not.toBe('d124');
    // The freed slot takes the next point; its old fields do not follow it.
    await vectors.upsert('big', [{ uid: 'new', version: 1, ord: 0, vector: points[124].vector, fields: { lang: 'en' } }]);
    expect(vectors.count('big')).toBe(points.length);
    expect((await vectors.search('big', points[124].vector, 1, [{ field: 'lang', anyOf: ['en'] }]))[0].uid).toBe('new');
    expect((await vectors.search('big', points[124].vector, 1, [{ field: 'lang', anyOf: ['de'] }]))[0].uid).not.toBe('new');
  });
});

describe('MemoryVectorIndex.adopt', () => {
  it('moves the points built under one key to an index in one step, replacing what it held', async () => {
    const vectors = new MemoryVectorIndex();
    const point = (uid: string, x: number) => ({ uid, version: 1, ord: 0, vector: Float32Array.from([x, 1 - x, 0.5]) });
    await vectors.upsert('ix', [point('old', 0.1)]);
    await vectors.upsert('building', [point('a', 0.2), point('b', 0.9)]);
    vectors.adopt('ix', 'building');
    expect(vectors.count('ix')).toBe(2);
    expect(vectors.count('building')).toBe(0);
    expect((await vectors.search('ix', point('', 0.9).vector, 5)).map((h) => h.uid)).toEqual(['b', 'a']);
    // Nothing built: the index is left empty, not as it was.
    vectors.adopt('ix', 'nothing');
    expect(vectors.count('ix')).toBe(0);
  });
});

describe('QdrantVectorIndex against the stand-in', () => {
  let standIn: QdrantStandIn;
  beforeAll(async () => {
    standIn = await startQdrantStandIn();
  });
  afterAll(() => standIn.close());
  const noViolations = async () => expect(standIn.violations).toEqual([]);

  vectorIndexContract('QdrantVectorIndex (stand-in)', async () => {
    const vectors = createQdrantVectorIndex({ url: standIn.url, collection: 'contract' });
    return { vectors, count: (index) => vectors.count(index), after: noViolations };
  });

  it('creates the collection on the first upsert (Cosine, the first size) with the tenant, document, version and field indexes', async () => {
    const vectors = createQdrantVectorIndex({ url: standIn.url, collection: 'created' });
    expect(await vectors.search('i', new Float32Array(3), 3)).toEqual([]);
    expect(standIn.collections.has('created')).toBe(false);
    await vectors.upsert('i', [{ uid: 'a', version: 1, ord: 0, vector: Float32Array.of(1, 2, 3), fields: { lang: 'en', year: 2020, w: 0.5, ok: true, 'a.b': ['x'] } }]);
    const c = standIn.collections.get('created')!;
    expect(c.size).toBe(3);
    expect(Object.fromEntries(c.payloadSchema)).toEqual({
      index: { type: 'keyword', is_tenant: true },
      doc: 'keyword',
      version: 'integer',
      f_lang: 'keyword',
      f_year: 'integer',
      f_w: 'float',
      f_ok: 'bool',
      'f_a-002eb': 'keyword',
    });
    const [point] = c.points.values();
    expect(point.id).toBe(pointId('i', 'a', 1, 0));
    expect(point.payload).toEqual({ index: 'i', doc: 'a', version: 1, ord: 0, f_lang: 'en', f_year: 2020, f_w: 0.5, f_ok: true, 'f_a-002eb': ['x'] });
    await noViolations();
  });

  it('writes with wait=true and ordering=strong, in batches of 256 points', async () => {
    standIn.calls.length = 0;
    const vectors = createQdrantVectorIndex({ url: standIn.url, collection: 'writes' });
    const points = Array.from({ length: 600 }, (_, i) => ({ uid: `d${i}`, version: 1, ord: 0, vector: Float32Array.of(1, i, 2) }));
    await vectors.upsert('i', points);
    await vectors.deleteOlder('i', points.map((p) => ({ uid: p.uid, version: 2 })));
    await vectors.deleteVersions('i', [{ uid: 'x', version: 1 }]);
    await vectors.dropIndex('i');
    const writes = standIn.calls.filter((c) => ['upsert_points', 'delete_points', 'create_field_index'].includes(c.operation));
    expect(writes.filter((c) => c.operation === 'upsert_points')).toHaveLength(3);
    expect(writes.filter((c) => c.operation === 'delete_points')).toHaveLength(6 + 1 + 1);
    for (const w of writes) expect(new URLSearchParams(w.query).toString()).toBe('wait=true&ordering=strong');
    expect(await vectors.count('i')).toBe(0);
    await noViolations();
  });

  it('lists versions from one scroll per pass, not one per page', async () => {
    const vectors = createQdrantVectorIndex({ url: standIn.url, collection: 'listing' });
    await vectors.upsert('i', Array.from({ length: 50 }, (_, i) => ({ uid: `d${String(i).padStart(2, '0')}`, version: 1, ord: 0, vector: Float32Array.of(1, i, 2) })));
    standIn.calls.length = 0;
    let after: string | null = null;
    let seen = 0;
    for (;;) {
      const page = await vectors.versions('i', after, 7);
      seen += page.length;
      if (page.length < 7) break;
      after = page[page.length - 1].uid;
    }
    expect(seen).toBe(50);
    expect(standIn.calls.map((c) => c.operation)).toEqual(['scroll_points']);
    // A new pass lists afresh, and sees what was written since.
    await vectors.upsert('i', [{ uid: 'd99', version: 3, ord: 0, vector: Float32Array.of(1, 1, 1) }]);
    expect((await vectors.versions('i', null, 100)).at(-1)).toEqual({ uid: 'd99', version: 3 });
    await noViolations();
  });

  it('creates the collection again when it was dropped behind the adapter', async () => {
    const vectors = createQdrantVectorIndex({ url: standIn.url, collection: 'dropped' });
    await vectors.upsert('i', [{ uid: 'a', version: 1, ord: 0, vector: Float32Array.of(1, 0) }]);
    standIn.collections.delete('dropped');
    await vectors.upsert('i', [{ uid: 'b', version: 1, ord: 0, vector: Float32Array.of(0, 1) }]);
    expect(await vectors.versions('i', null, 10)).toEqual([{ uid: 'b', version: 1 }]);
    await noViolations();
  });

  it('reports a failure with what was being done and Qdrant\'s answer', async () => {
    const vectors = createQdrantVectorIndex({ url: standIn.url, collection: 'sizes' });
    await vectors.upsert('i', [{ uid: 'a', version: 1, ord: 0, vector: Float32Array.of(1, 0) }]);
    await expect(vectors.upsert('i', [{ uid: 'b', version: 1, ord: 0, vector: Float32Array.of(1, 0, 0) }])).rejects.toThrow(
      /^Qdrant: upserting points in collection "sizes" failed: HTTP 400: Wrong input: Vector dimension error/,
    );
    const unreachable = createQdrantVectorIndex({ url: 'http://127.0.0.1:9', collection: 'x', timeoutMs: 2000 });
    await expect(unreachable.search('i', Float32Array.of(1), 1)).rejects.toThrow(/^Qdrant: searching in collection "x" failed: fetch failed/);
    await noViolations();
  });

  it('sends the api key, and a refused key fails without showing it', async () => {
    const keyed = await startQdrantStandIn({ apiKey: 'right-key-5e1f' });
    try {
      const good = createQdrantVectorIndex({ url: keyed.url, apiKey: 'right-key-5e1f', collection: 'keyed' });
      await good.upsert('i', [{ uid: 'a', version: 1, ord: 0, vector: Float32Array.of(1, 0) }]);
      expect(await good.count('i')).toBe(1);
      expect(keyed.violations).toEqual([]);
      const bad = createQdrantVectorIndex({ url: keyed.url, apiKey: 'wrong-key-77c2', collection: 'keyed' });
      const error = await bad.search('i', Float32Array.of(1, 0), 1).then(() => new Error('no failure'), (e: unknown) => e as Error);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(/^Qdrant: searching in collection "keyed" failed: HTTP 401/);
      expect(error.message).not.toContain('wrong-key-77c2');
      expect(JSON.stringify(error)).not.toContain('wrong-key-77c2');
      expect(keyed.violations.map((v) => v.kind)).toEqual(['auth']);
    } finally {
      await keyed.close();
    }
  });

  it('derives point ids (UUIDv5 style) and payload keys that cannot collide', () => {
    const id = pointId('idx', 'doc', 3, 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pointId('idx', 'doc', 3, 0)).toBe(id);
    expect(new Set([id, pointId('idx', 'doc', 3, 1), pointId('idx', 'doc', 4, 0), pointId('idx', 'do', 3, 0), pointId('idx2', 'doc', 3, 0)]).size).toBe(5);
    expect(pointId('a', 'b\u0000c', 1, 0)).not.toBe(pointId('a\u0000b', 'c', 1, 0));
    expect(fieldKey('lang')).toBe('f_lang');
    expect(fieldKey('meta.source')).toBe('f_meta-002esource');
    expect(new Set([fieldKey('a-b'), fieldKey('a_b'), fieldKey('a.b'), fieldKey('a-002eb')]).size).toBe(4);
  });
});

describe('the stand-in refuses what Qdrant\'s API description does not allow', () => {
  let standIn: QdrantStandIn;
  beforeAll(async () => {
    standIn = await startQdrantStandIn();
  });
  afterAll(() => standIn.close());

  const send = (method: string, path: string, body?: unknown) =>
    fetch(standIn.url + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const point = { id: '6b1d0f52-8c1e-4e36-9a55-0b7f3c2d9e41', vector: [1, 0], payload: { index: 'i' } };

  it('a misspelt property, an unknown or invalid query parameter, an unknown route', async () => {
    expect((await send('PUT', '/collections/c', { vectors: { size: 2, distance: 'Cosine' } })).status).toBe(200);
    const cases: [string, string, unknown, number, string, RegExp][] = [
      ['PUT', '/collections/c/points?wait=true', { points: [point], wiat: true }, 400, 'body', /additional properties "wiat"/],
      ['PUT', '/collections/c/points', { points: [{ ...point, vectors: [1, 0] }] }, 400, 'body', /additional properties "vectors"/],
      ['POST', '/collections/c/points/delete', { filter: { must: [{ key: 'index', match: { valeu: 'i' } }] } }, 400, 'body', /match/],
      ['POST', '/collections/c/points/query', { query: [1, 0], filter: { must: [{ key: 'index', match: { value: 'i' } }] }, limit: 0 }, 400, 'body', /limit/],
      ['PUT', '/collections/c/points?wiat=true', { points: [point] }, 400, 'query', /unknown query parameter "wiat"/],
      ['PUT', '/collections/c/points?ordering=strongest', { points: [point] }, 400, 'query', /ordering=strongest/],
      ['PUT', '/collections/c/points?wait=1', { points: [point] }, 400, 'query', /wait=1/],
      ['POST', '/collections/c/points/serch', { vector: [1, 0] }, 404, 'route', /no operation/],
      ['PUT', '/collections/c/index', { field_name: 'index', field_schema: { type: 'keyword', is_tennant: true } }, 400, 'body', /is_tennant/],
    ];
    for (const [method, path, body, status, kind, message] of cases) {
      standIn.violations.length = 0;
      const res = await send(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(standIn.violations).toHaveLength(1);
      expect(standIn.violations[0].kind).toBe(kind);
      expect(standIn.violations[0].errors.join(' ')).toMatch(message);
    }
    standIn.violations.length = 0;
    expect((await send('PUT', '/collections/c/points?wait=true&ordering=strong', { points: [point] })).status).toBe(200);
    expect(standIn.violations).toEqual([]);
  });

  it('checks answers too: a missing required property or an extra one is refused', () => {
    const validator = qdrantValidator();
    const query = validator.route('POST', '/collections/c/points/query')!.operation;
    const hit = { id: '6b1d0f52-8c1e-4e36-9a55-0b7f3c2d9e41', version: 1, score: 0.5, payload: { doc: 'a' } };
    expect(validator.checkResponse(query, 200, { result: { points: [hit] }, status: 'ok', time: 0.001 })).toEqual([]);
    expect(validator.checkResponse(query, 200, { result: { points: [{ ...hit, version: undefined }] }, status: 'ok', time: 0.001 }).join()).toMatch(/version/);
    expect(validator.checkResponse(query, 200, { result: { points: [{ ...hit, scores: 1 }] }, status: 'ok', time: 0.001 }).join()).toMatch(/"scores"/);
    expect(validator.checkResponse(query, 404, { status: { error: 'Not found' }, time: 0.001 })).toEqual([]);
    expect(validator.checkResponse(query, 404, { status: { error: 'Not found', code: 4 }, time: 0.001 }).join()).toMatch(/"code"/);
  });

  it('closes an object split across allOf once, at the whole, not per branch', () => {
    const validator = new OpenApiValidator({
      components: {
        schemas: {
          Base: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
          Both: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { b: { type: 'integer', nullable: true } } }] },
        },
      },
      paths: {
        '/both': { post: { operationId: 'both', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Both' } } } }, responses: { '200': { description: 'ok' } } } },
        '/base': { post: { operationId: 'base', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Base' } } } }, responses: { '200': { description: 'ok' } } } },
      },
    });
    const both = validator.route('POST', '/both')!.operation;
    const base = validator.route('POST', '/base')!.operation;
    expect(validator.checkBody(both, { a: 'x', b: 1 })).toEqual([]);
    expect(validator.checkBody(both, { a: 'x', b: null })).toEqual([]);
    expect(validator.checkBody(both, { a: 'x', b: 1, c: 2 }).join()).toMatch(/additional properties "c"/);
    expect(validator.checkBody(both, { b: 1 }).join()).toMatch(/required property 'a'/);
    expect(validator.checkBody(base, { a: 'x', b: 1 }).join()).toMatch(/additional properties "b"/);
  });
});

const QDRANT_URL = process.env.QDRANT_URL;

describe.runIf(QDRANT_URL)('QdrantVectorIndex against a real Qdrant (QDRANT_URL)', () => {
  const collection = `quarry_contract_${Date.now()}_${randomUUID().slice(0, 8)}`;
  const apiKey = process.env.QDRANT_API_KEY || undefined;
  afterAll(async () => {
    const client = new QdrantClient({ url: QDRANT_URL, apiKey, checkCompatibility: false });
    await client.deleteCollection(collection).catch(() => undefined);
  });
  vectorIndexContract('QdrantVectorIndex (real server)', async () => {
    const vectors = createQdrantVectorIndex({ url: QDRANT_URL!, apiKey, collection });
    return { vectors, count: (index) => vectors.count(index) };
  });
});
