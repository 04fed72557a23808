import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_CRAWL, type SourceRecord } from '../../shared/storage/ports/source-store.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// Every admin listing comes in pages (limit 1-1000, default 1000, next_cursor/cursor), and what a key
// with write can create without end (indexes) or what every search reads whole (instant answers) has a cap.
// Runs on SQLite here and on PostgreSQL in the 'postgres' project.

const MAX_INDEXES = 1300;
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ workers: false, env: { QUARRY_MAX_INDEXES: String(MAX_INDEXES) } });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs' })).status).toBe(201);
});
afterAll(() => svc.close());

/** Runs `make(i)` for i in [0, n), `width` at a time. */
async function inParallel<T>(n: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await make(i);
    }
  }));
  return out;
}

/**
 * Follows next_cursor from the first page to the last (`between` runs after each page): the items in order, and
 * the size of each page.
 */
async function walk(path: string, field: string, limit?: number, between: () => Promise<unknown> = async () => {}) {
  const items: any[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams();
    if (limit) params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const r = await svc.call('GET', `${path}${params.size ? `?${params}` : ''}`);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expect(r.body.next_cursor === null || typeof r.body.next_cursor === 'string').toBe(true);
    items.push(...r.body[field]);
    sizes.push(r.body[field].length);
    cursor = r.body.next_cursor;
    await between();
  } while (cursor !== null && sizes.length < 100);
  return { items, sizes };
}

const once = (values: string[]) => {
  const seen = new Map<string, number>();
  for (const v of values) seen.set(v, (seen.get(v) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([v]) => v);
};

describe('API keys', () => {
  let ids: string[];
  beforeAll(async () => {
    ids = (await inParallel(1200, 8, async (i) => (await svc.call('POST', '/v1/admin/keys', { name: `k${i}`, permissions: ['read'] })).body.id));
  }, 180_000);

  it('1,200 keys come in pages of at most 1000, each key on exactly one page', async () => {
    const first = await svc.call('GET', '/v1/admin/keys');
    expect(first.status).toBe(200);
    expect(first.body.keys.length).toBe(1000);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const { items, sizes } = await walk('/v1/admin/keys', 'keys');
    expect(sizes).toEqual([1000, 200]);
    expect(once(items.map((k) => k.id))).toEqual([]);
    expect(new Set(items.map((k) => k.id))).toEqual(new Set(ids));
  });

  it('a walk while keys are being created sees every earlier key once and none twice', async () => {
    const before = new Set((await walk('/v1/admin/keys', 'keys')).items.map((k) => k.id));
    let made = 0;
    const { items, sizes } = await walk('/v1/admin/keys', 'keys', 100,
      () => inParallel(10, 5, async () => svc.call('POST', '/v1/admin/keys', { name: `during-${made++}`, permissions: ['read'] })));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    const seen = items.map((k) => k.id);
    expect(once(seen)).toEqual([]);
    expect([...before].filter((id) => !seen.includes(id))).toEqual([]);
  });
});

describe('indexes', () => {
  beforeAll(async () => {
    await inParallel(1199, 8, async (i) => {
      const r = await svc.call('POST', '/v1/admin/indexes', { uid: `ix-${String(i).padStart(4, '0')}` });
      if (r.status !== 201) throw new Error(`index ${i}: ${r.status} ${JSON.stringify(r.body)}`);
    });
  }, 300_000);

  it('1,200 indexes come in pages of at most 1000 by uid, each on exactly one page', async () => {
    const first = await svc.call('GET', '/v1/admin/indexes');
    expect(first.body.indexes.length).toBe(1000);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const { items, sizes } = await walk('/v1/admin/indexes', 'indexes', 500);
    expect(sizes).toEqual([500, 500, 200]);
    const uids = items.map((i) => i.uid);
    expect(uids).toEqual([...uids].sort());
    expect(uids).toHaveLength(1200);
    expect(once(uids)).toEqual([]);
  });

  it(`stops creating indexes at QUARRY_MAX_INDEXES (${MAX_INDEXES}) with a 409 that says so, on every route that creates one`, async () => {
    const results = await inParallel(120, 8, (i) => svc.call('POST', '/v1/admin/indexes', { uid: `more-${i}` }));
    expect(results.filter((r) => r.status === 201)).toHaveLength(MAX_INDEXES - 1200);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual(Array(120 - (MAX_INDEXES - 1200)).fill(409));
    expect(refused[0].body.message).toMatch(/1300 indexes.*QUARRY_MAX_INDEXES/);
    const content = await svc.call('POST', '/v1/content/indexes', { uid: 'content-more', language_code: 'en', schema: { fields: { title: { type: 'text' } } } });
    expect(content.status).toBe(409);
    const source = await svc.call('POST', '/v1/admin/sources', { uid: 'more', kind: 'website', start_urls: ['https://93.184.215.14/'] });
    expect(source.status).toBe(409);
    expect(await svc.storage.sources.get('more')).toBeNull();
    // An index that exists is still updated.
    expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(200);
    expect((await walk('/v1/admin/indexes', 'indexes')).items).toHaveLength(MAX_INDEXES);
  });
});

describe('configurations, instant answers and sources', () => {
  let configs: string[];
  beforeAll(async () => {
    configs = await inParallel(25, 5, async (i) => (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: `c${i}`, indexes: ['docs'] })).body.uid);
    await inParallel(25, 5, (i) => svc.call('POST', `/v1/admin/configurations/${configs[0]}/instant-answers`, { title: `a${i}`, content: `<p>${i}</p>` }));
    const now = Date.now();
    for (let i = 0; i < 25; i++) {
      const record: SourceRecord = {
        uid: `s${i}`, kind: 'website', indexUid: 'docs', crawl: IDLE_CRAWL, createdAt: now, updatedAt: now,
        settings: { startUrls: ['https://example.com/'], sitemaps: [], include: [], exclude: [], maxPages: 10, maxDepth: 2, contentSelector: null, dropSelectors: null, fragments: [], recrawlHours: null },
      };
      await svc.storage.sources.insert(record);
    }
  });

  it('configurations come in pages oldest first, each once', async () => {
    const { items, sizes } = await walk('/v1/admin/configurations', 'configurations', 10);
    expect(sizes).toEqual([10, 10, 5]);
    expect(new Set(items.map((c) => c.uid))).toEqual(new Set(configs));
    expect(once(items.map((c) => c.uid))).toEqual([]);
  });

  it('instant answers come in pages oldest first, each once', async () => {
    const { items, sizes } = await walk(`/v1/admin/configurations/${configs[0]}/instant-answers`, 'instant_answers', 10);
    expect(sizes).toEqual([10, 10, 5]);
    expect(items.map((a) => a.title).sort()).toEqual(Array.from({ length: 25 }, (_, i) => `a${i}`).sort());
  });

  it('sources come in pages by uid, each once', async () => {
    const { items, sizes } = await walk('/v1/admin/sources', 'sources', 10);
    expect(sizes).toEqual([10, 10, 5]);
    expect(items.map((s) => s.uid)).toEqual(Array.from({ length: 25 }, (_, i) => `s${i}`).sort());
  });

  it('blocked suggestions come in pages in code point order, each once, up to 500 characters in a cursor', async () => {
    const path = `/v1/admin/configurations/${configs[2]}/blocked-suggestions`;
    const blocked = Array.from({ length: 24 }, (_, i) => `blocked ${String.fromCharCode(97 + i)}`).concat('ü'.repeat(500));
    for (const suggestion of blocked) expect((await svc.call('PUT', path, { suggestion })).status).toBe(200);
    const { items, sizes } = await walk(path, 'blocked_suggestions', 10);
    expect(sizes).toEqual([10, 10, 5]);
    expect(items).toEqual([...blocked].sort());
    const last = await walk(path, 'blocked_suggestions', 24);
    expect(last.sizes).toEqual([24, 1]);
    // Blocking answers the first page, as a listing without a cursor does.
    const put = await svc.call('PUT', `${path}?limit=3`, { suggestion: 'blocked a' });
    expect(put.body).toEqual({ blocked_suggestions: items.slice(0, 3), next_cursor: expect.any(String) });
  });

  it('a configuration holds at most 1000 instant answers: the next is a 409 that says so', async () => {
    const uid = configs[1];
    const now = Date.now();
    for (let i = 0; i < 1000; i++) {
      await svc.storage.configurations.insertInstantAnswer({
        id: `bulk-${i}`, configurationUid: uid, title: `t${i}`, content: '<p>x</p>', url: null, keywords: [], configuration: null, createdAt: now, updatedAt: now,
      });
    }
    const r = await svc.call('POST', `/v1/admin/configurations/${uid}/instant-answers`, { title: 'one more', content: '<p>y</p>' });
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/1000 instant answers/);
    expect((await walk(`/v1/admin/configurations/${uid}/instant-answers`, 'instant_answers')).items).toHaveLength(1000);
  });
});

describe('bad page parameters', () => {
  const routes = ['/v1/admin/keys', '/v1/admin/indexes', '/v1/admin/configurations', '/v1/admin/sources'];

  it('a limit over 1000 or a cursor this API did not give is a 400 naming it, on every listing', async () => {
    const config = (await svc.call('GET', '/v1/admin/configurations?limit=1')).body.configurations[0].uid;
    for (const route of [...routes, `/v1/admin/configurations/${config}/instant-answers`, `/v1/admin/configurations/${config}/blocked-suggestions`]) {
      const big = await svc.call('GET', `${route}?limit=1001`);
      expect(big.status, route).toBe(400);
      expect(big.body.message, route).toMatch(/limit: must be from 1 to 1000/);
      const forged = await svc.call('GET', `${route}?cursor=bm9wZQ`);
      expect(forged.status, route).toBe(400);
      expect(forged.body.message, route).toMatch(/cursor: /);
    }
  });
});

it('the OpenAPI document gives every admin listing limit and cursor, and next_cursor where it describes the body', async () => {
  const doc = (await svc.call('GET', '/openapi.json')).body;
  const listings = [
    '/v1/admin/keys', '/v1/admin/indexes', '/v1/admin/configurations', '/v1/admin/sources', '/v1/admin/configurations/{uid}/instant-answers',
    '/v1/admin/configurations/{uid}/blocked-suggestions',
  ];
  for (const path of listings) {
    const get = doc.paths[path].get;
    expect(get.parameters.map((p: { name: string }) => p.name).filter((n: string) => n !== 'uid'), path).toEqual(['limit', 'cursor']);
    const schema = get.responses['200'].content?.['application/json'].schema;
    if (schema) expect(Object.keys(schema.properties), path).toContain('next_cursor');
  }
});
