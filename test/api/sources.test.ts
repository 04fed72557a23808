import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { freshSchema } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const BACKENDS = {
  sqlite: async () => ({ env: {}, drop: async () => {} }),
  postgres: async () => {
    const url = inject('databaseUrl');
    const { schema, drop } = await freshSchema(url);
    return { env: { QUARRY_STORAGE: 'postgres', DATABASE_URL: url, QUARRY_DATABASE_SCHEMA: schema }, drop };
  },
};

const docs = {
  uid: 'docs', kind: 'website', start_urls: ['https://docs.example.com/'], sitemaps: ['https://docs.example.com/sitemap.xml'],
  include: ['/guide/*'], exclude: ['/guide/old/*'], max_pages: 50, max_depth: 3, content_selector: 'main .content',
  drop_selectors: ['nav', '.ad'], fragments: ['.price', 'table.specs'], recrawl_hours: 24,
};

for (const [backend, setup] of Object.entries(BACKENDS)) {
  describe(`${backend}: website source admin routes`, () => {
    let svc: TestService;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const b = await setup();
      drop = b.drop;
      svc = await startTestService({ workers: false, env: b.env });
    });
    afterAll(async () => {
      await svc.close();
      await drop();
    });

    it('creates a source with its own push index and reads it back with an idle crawl', async () => {
      const created = await svc.call('POST', '/v1/admin/sources', docs);
      expect(created.status).toBe(201);
      const { created_at, updated_at, ...rest } = created.body;
      expect(rest).toEqual({
        // Scheduled (recrawl_hours) and never crawled: due since it was saved.
        ...docs, index_uid: 'source-docs', next_crawl_at: created_at,
        crawl: { state: 'idle', discovered: 0, fetched: 0, indexed: 0, unchanged: 0, skipped: 0, failed: 0, removed: 0, started_at: null, finished_at: null, last_error: null, problems: [],
          problem_totals: { skipped: 0, failed: 0, duplicate: 0 } },
      });
      expect(Date.parse(created_at)).toBeGreaterThan(0);
      expect(updated_at).toBe(created_at);
      expect((await svc.call('GET', '/v1/admin/sources/docs')).body).toEqual(created.body);
      const index = await svc.call('GET', '/v1/admin/indexes/source-docs');
      expect(index.status).toBe(200);
      expect(Object.keys(index.body.schema.fields).sort()).toEqual(['content', 'last_modified', 'source_url', 'title']);
      // The source's index takes pushes like any push index.
      expect((await svc.call('PUT', '/v2/indexes/source-docs/documents/x', { title: 'X', content: '<p>x</p>' })).status).toBe(204);
    });

    it('fills defaults and refuses a second source with the same uid', async () => {
      const r = await svc.call('POST', '/v1/admin/sources', { uid: 'minimal', kind: 'website', sitemaps: ['https://example.org/sitemap.xml'] });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        uid: 'minimal', index_uid: 'source-minimal', start_urls: [], include: [], exclude: [], max_pages: 1000, max_depth: 10,
        content_selector: null, drop_selectors: null, fragments: [], recrawl_hours: null, next_crawl_at: null,
      });
      const again = await svc.call('POST', '/v1/admin/sources', { uid: 'minimal', kind: 'website', start_urls: ['https://example.org/'] });
      expect(again.status).toBe(409);
      expect(again.body.message).toMatch(/already exists/);
    });

    it.each([
      [{ ...docs, uid: 'a', fragments: ['.price', 'div[['] }, /fragments\.1: "div\[\[" is not a CSS selector/],
      [{ ...docs, uid: 'a', content_selector: 'main[' }, /content_selector: "main\[" is not a CSS selector/],
      [{ ...docs, uid: 'a', drop_selectors: [':nope(x)'] }, /drop_selectors\.0: /],
      [{ ...docs, uid: 'a', start_urls: ['ftp://example.com/'] }, /start_urls\.0: must be an absolute http\(s\) URL/],
      [{ ...docs, uid: 'a', sitemaps: ['https://user:pw@example.com/s.xml'] }, /sitemaps\.0: must be an absolute http\(s\) URL without a user name/],
      [{ uid: 'a', kind: 'website' }, /start_urls: give at least one of start_urls or sitemaps/],
      [{ ...docs, uid: 'a', kind: 'feed' }, /kind: must be 'website'/],
      [{ ...docs, uid: 'bad uid' }, /uid: use 1-57 letters/],
      [{ ...docs, uid: 'a', max_pages: 0 }, /max_pages: must be from 1 to 100000/],
      [{ ...docs, uid: 'a', recrawl_hours: 1.5 }, /recrawl_hours: must be a whole number/],
      [{ ...docs, uid: 'a', colour: 'red' }, /unknown field\(s\) 'colour'/],
    ])('refuses invalid settings naming the field (%#)', async (body, message) => {
      const r = await svc.call('POST', '/v1/admin/sources', body);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(message);
      expect((await svc.call('GET', '/v1/admin/sources/a')).status).toBe(404);
    });

    it.each([
      ['http://127.0.0.1:8080/', 'start_urls.0'],
      ['http://localhost/', 'start_urls.0'],
      ['http://[::1]/', 'start_urls.0'],
      ['http://10.1.2.3/sitemap.xml', 'sitemaps.0'],
      // A trailing dot names the same host (RFC 6761 loopback names need no lookup), and local-use NAT64 reaches the operator's network.
      ['http://localhost./', 'start_urls.0'],
      ['http://app.localhost.:8080/', 'start_urls.0'],
      ['http://localhost../sitemap.xml', 'sitemaps.0'],
      ['http://[64:ff9b:1::a00:1]/', 'start_urls.0'],
    ])('refuses private and loopback seeds without QUARRY_CRAWL_ALLOW_PRIVATE (%s)', async (url, field) => {
      const body = field.startsWith('start') ? { uid: 'p', kind: 'website', start_urls: [url] } : { uid: 'p', kind: 'website', sitemaps: [url] };
      const r = await svc.call('POST', '/v1/admin/sources', body);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(`${field}: ${url} is on a private or loopback address`);
      expect(r.body.message).toContain('QUARRY_CRAWL_ALLOW_PRIVATE=true');
    });

    it('changes some settings and keeps the rest; refuses bad ones and removing every seed', async () => {
      await svc.call('POST', '/v1/admin/sources', { ...docs, uid: 'edit' });
      const r = await svc.call('PATCH', '/v1/admin/sources/edit', { max_pages: 5, content_selector: null, fragments: ['h1'] });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ...docs, uid: 'edit', max_pages: 5, content_selector: null, fragments: ['h1'] });
      expect(Date.parse(r.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(r.body.created_at));
      expect((await svc.call('GET', '/v1/admin/sources/edit')).body.max_pages).toBe(5);
      const bad = await svc.call('PATCH', '/v1/admin/sources/edit', { fragments: ['a[href'] });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/fragments\.0: /);
      const empty = await svc.call('PATCH', '/v1/admin/sources/edit', { start_urls: [], sitemaps: [] });
      expect(empty.status).toBe(400);
      expect(empty.body.message).toMatch(/start_urls: give at least one/);
      expect((await svc.call('PATCH', '/v1/admin/sources/edit', { uid: 'other' })).body.message).toMatch(/unknown field\(s\) 'uid'/);
      expect((await svc.call('PATCH', '/v1/admin/sources/nope', { max_pages: 5 })).status).toBe(404);
    });

    it('queues a crawl (202) once: asking again while it is queued changes nothing', async () => {
      await svc.call('POST', '/v1/admin/sources', { ...docs, uid: 'crawlme' });
      const r = await svc.call('POST', '/v1/admin/sources/crawlme/crawl');
      expect(r.status).toBe(202);
      expect(r.body.crawl.state).toBe('queued');
      expect((await svc.call('POST', '/v1/admin/sources/crawlme/crawl')).status).toBe(202);
      expect((await svc.call('GET', '/v1/admin/sources/crawlme')).body.crawl.state).toBe('queued');
      const { createCrawlQueue } = await import('../../shared/jobs/crawl-queue.js');
      const queue = createCrawlQueue(svc.redis, svc.prefix, 1);
      try {
        const jobs = await queue.getJobs(['waiting']);
        expect(jobs.filter((j) => j.data.sourceUid === 'crawlme').map((j) => j.data)).toEqual([{ sourceUid: 'crawlme', crawl: 1 }]);
      } finally {
        await queue.close();
      }
      expect((await svc.call('POST', '/v1/admin/sources/nope/crawl')).status).toBe(404);
    });

    it('lists every source by uid with its crawl progress, without problems', async () => {
      const list = await svc.call('GET', '/v1/admin/sources');
      expect(list.status).toBe(200);
      const uids = list.body.sources.map((s: { uid: string }) => s.uid);
      expect(uids).toEqual([...uids].sort());
      expect(uids).toEqual(expect.arrayContaining(['docs', 'minimal', 'edit', 'crawlme']));
      const { crawl: { problems, problem_totals, ...crawl }, ...one } = (await svc.call('GET', '/v1/admin/sources/crawlme')).body;
      expect(problems).toEqual([]);
      expect(problem_totals).toEqual({ skipped: 0, failed: 0, duplicate: 0 });
      expect(list.body.sources.find((s: { uid: string }) => s.uid === 'crawlme')).toEqual({ ...one, crawl });
      // While a crawl is queued no recrawl is scheduled.
      expect(one).toMatchObject({ recrawl_hours: 24, next_crawl_at: null });
      const key = await svc.call('POST', '/v1/admin/keys', { name: 'reader', permissions: ['read'] });
      expect((await svc.call('GET', '/v1/admin/sources', undefined, { 'x-api-key': key.body.key })).status).toBe(403);
    });

    it('schedules the next crawl recrawl_hours after the last one finished', async () => {
      await svc.call('POST', '/v1/admin/sources', { ...docs, uid: 'sched', recrawl_hours: 6 });
      const finishedAt = Date.parse('2026-11-20T10:00:00Z');
      const record = (await svc.storage.sources.get('sched'))!;
      await svc.storage.sources.setCrawl('sched', { ...record.crawl, state: 'done', crawl: 1, finishedAt });
      const r = await svc.call('GET', '/v1/admin/sources/sched');
      expect(r.body.next_crawl_at).toBe(new Date(finishedAt + 6 * 3_600_000).toISOString());
      expect((await svc.call('PATCH', '/v1/admin/sources/sched', { recrawl_hours: null })).body.next_crawl_at).toBeNull();
    });

    it('deletes a source (204), then it is gone', async () => {
      await svc.call('POST', '/v1/admin/sources', { ...docs, uid: 'gone' });
      expect((await svc.call('DELETE', '/v1/admin/sources/gone')).status).toBe(204);
      expect((await svc.call('GET', '/v1/admin/sources/gone')).status).toBe(404);
      expect((await svc.call('DELETE', '/v1/admin/sources/gone')).status).toBe(404);
      // The uid is free again and the (kept) index is reused.
      expect((await svc.call('POST', '/v1/admin/sources', { ...docs, uid: 'gone' })).status).toBe(201);
    });

    it('lets a configuration name a source by its uid, standing for the source index', async () => {
      await svc.call('POST', '/v1/admin/sources', { ...docs, uid: 'named' });
      const tool = await svc.call('POST', '/v1/admin/configurations', { variant: 'tool', name: 'site', indexes: ['named'] });
      expect(tool.status).toBe(201);
      expect(tool.body.indexes).toEqual(['source-named']);
      const both = await svc.call('PATCH', `/v1/admin/configurations/${tool.body.uid}`, { indexes: ['named', 'source-named'] });
      expect(both.body.indexes).toEqual(['source-named']);
      const bad = await svc.call('POST', '/v1/admin/configurations', { variant: 'tool', name: 'x', indexes: ['no-such-thing'] });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain("'no-such-thing' does not exist as an index or a website source");
    });

    it('needs an admin key and is documented in openapi.json', async () => {
      const key = await svc.call('POST', '/v1/admin/keys', { name: 'w', permissions: ['read', 'write'] });
      expect((await svc.call('GET', '/v1/admin/sources/docs', undefined, { 'x-api-key': key.body.key })).status).toBe(403);
      const doc = (await svc.call('GET', '/openapi.json')).body;
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/admin/sources', '/v1/admin/sources/{uid}', '/v1/admin/sources/{uid}/crawl']));
      expect(doc.paths['/v1/admin/sources'].post.requestBody.content['application/json'].schema.required).toEqual(['uid', 'kind']);
      expect(doc.paths['/v1/admin/sources'].get.responses['200'].content['application/json'].schema.properties.sources.type).toBe('array');
    });
  });
}
