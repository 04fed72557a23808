import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logging/create-logger.js';
import { runCrawl } from '../../workers/crawl/crawl-runner.js';
import { queueDueRecrawls } from '../../workers/crawl/crawl-worker.js';
import type { RunningWorkers } from '../../workers/registry.js';
import { startCrawlWorker } from '../helpers/crawl-worker.js';
import { createCrawlQueue } from '../../shared/jobs/crawl-queue.js';
import { DocumentWriter } from '../../shared/documents/document-writer.js';
import { SourcePages } from '../../workers/crawl/source-pages.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { html, redirect, startSite, withEtag, type TestSite } from '../unit/crawl-site.js';

let svc: TestService;
let site: TestSite;
let worker: RunningWorkers;
const log = createLogger('silent', 'test');
const runner = { hostLimits: { minDelayMs: 0 }, timeoutMs: 1000, maxBytes: 100_000 };


const alpha = '<title>Alpha</title><main><p>Alpha page about lanterns</p><p class="price" data-currency="EUR">5 <b>EUR</b></p></main>';
let gamma = '<title>Gamma</title><main><p>Gamma page about kites</p></main>';

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_CRAWL_ALLOW_PRIVATE: 'true' } });
  site = await startSite({
    '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: QuarryBot\nDisallow: /private/\n'),
    '/': html('<title>Home</title><main><p>Welcome home</p>' + ['/docs/a', '/docs/a-copy', '/private/x', '/old', '/file.pdf', '/missing', '/big', '/slow', '/docs/b', '/weird']
      .map((p) => `<a href="${p}">${p}</a>`).join(' ') + '</main>'),
    '/docs/a': withEtag('"a1"', () => alpha),
    '/docs/a-copy': html(alpha),
    '/old': redirect('/docs/c'),
    '/docs/c': (req, res) => html(gamma)(req, res),
    '/docs/b': html('<title>Beta</title><main><p>Beta page about ferries</p></main>'),
    '/docs/d': html('<title>Delta</title><main><p>Delta page about quinces, only in the sitemap</p></main>'),
    '/docs/e': html('<title>Epsilon</title><main><p>Epsilon page about walnuts</p></main>', { 'last-modified': 'Sat, 21 Nov 2026 08:00:00 GMT' }),
    '/private/x': html('<p>never fetched</p>'),
    '/weird': (_req, res) => void res.writeHead(304).end(),
    '/file.pdf': (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF'),
    '/big': html(`<title>Big</title><main><p>${'word '.repeat(50_000)}</p></main>`),
    '/slow': (_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>'), 3000),
  });
  site.routes['/sitemap.xml'] = (_req, res) =>
    void res.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset>
      <url><loc>${site.url('/docs/d')}</loc><lastmod>2026-11-20</lastmod></url>
      <url><loc>${site.url('/docs/e')}</loc><lastmod>2026-11-20T10:00:00Z</lastmod></url></urlset>`);
  worker = await startWorker();
});
afterAll(async () => {
  await worker.close();
  await svc.close();
  await site.close();
});

const startWorker = () => startCrawlWorker(svc, log, runner);
const sourcePages = () => new SourcePages(new DocumentWriter((w) => svc.storage.documents.applyWrites(w), svc.queues, log, { batchSize: 64 }));
/** Queues the source's next crawl and runs it here with one lane (urls in frontier order), the test's worker held back meanwhile. */
async function crawlHere(uid: string, pages = sourcePages()) {
  await worker.close();
  try {
    expect((await svc.call('POST', `/v1/admin/sources/${uid}/crawl`)).status).toBe(202);
    const { crawl } = (await svc.storage.sources.get(uid))!.crawl;
    await runCrawl({ sourceUid: uid, crawl }, { storage: svc.storage, pages, log }, { ...runner, parallel: 1, userAgent: 'QuarryBot/test', allowPrivate: true });
  } finally {
    worker = await startWorker();
  }
}
const source = async (uid: string) => (await svc.call('GET', `/v1/admin/sources/${uid}`)).body;
const crawled = async (uid: string) => waitFor(async () => ['done', 'failed'].includes((await source(uid)).crawl.state), 60_000);
const documents = async (index: string) => (await svc.call('GET', `/v2/indexes/${index}/documents?limit=1000`)).body.documents.map((d: { uid: string }) => d.uid).sort();
const fetches = (path: string) => site.log.filter((l) => l === `GET ${path}`).length;

describe('crawling a website source', () => {
  it('indexes every allowed page once, fetches nothing disallowed, and reports what it skipped', async () => {
    const created = await svc.call('POST', '/v1/admin/sources', {
      uid: 'site', kind: 'website', start_urls: [site.url('/')], sitemaps: [site.url('/sitemap.xml')], fragments: ['.price', 'table.specs'],
    });
    expect(created.status).toBe(201);
    expect((await svc.call('POST', '/v1/admin/sources/site/crawl')).status).toBe(202);
    expect(await crawled('site')).toBe(true);

    const view = await source('site');
    expect(view.crawl).toMatchObject({ state: 'done', indexed: 6, unchanged: 0, failed: 3, removed: 0, last_error: null });
    expect(view.crawl.finished_at).not.toBeNull();
    const problems = Object.fromEntries(view.crawl.problems.map((p: { url: string; reason: string }) => [new URL(p.url).pathname, p.reason]));
    expect(problems).toEqual({
      '/private/x': 'disallowed by robots.txt', '/file.pdf': 'not html', '/big': 'too large', '/missing': 'not found', '/slow': 'timeout', '/weird': 'http 304 to an unconditional request',
      '/docs/a-copy': `same page as ${site.url('/docs/a')}`, '/old': `same page as ${site.url('/docs/c')}`,
    });
    expect(view.crawl.problem_totals).toEqual({ skipped: 3, failed: 3, duplicate: 2 });
    expect(site.log).not.toContain('GET /private/x');
    for (const path of ['/', '/docs/a', '/docs/a-copy', '/docs/b', '/docs/c', '/docs/d', '/docs/e', '/old', '/robots.txt']) expect(fetches(path), path).toBe(1);

    const pages = ['/', '/docs/a', '/docs/b', '/docs/c', '/docs/d', '/docs/e'].map((p) => site.url(p)).sort();
    expect(await documents('source-site')).toEqual(pages);
    expect(await waitFor(async () => (await svc.keywordUids('source-site', 'lanterns', ['title', 'content'])).length > 0)).toBe(true);
    expect(await svc.keywordUids('source-site', 'lanterns', ['title', 'content'])).toEqual([site.url('/docs/a')]);
    expect(await svc.keywordUids('source-site', 'quinces', ['title', 'content'])).toEqual([site.url('/docs/d')]);
    const doc = (await svc.call('GET', `/v2/indexes/source-site/documents/${encodeURIComponent(site.url('/docs/a'))}`)).body;
    expect(doc).toMatchObject({ title: 'Alpha', source_url: site.url('/docs/a') });

    const index = (await svc.storage.indexes.get('source-site'))!;
    const metadata = await svc.storage.documents.metadata(index.id, [site.url('/docs/a'), site.url('/docs/c')]);
    expect(metadata.get(site.url('/docs/a'))).toEqual([
      { selector: '.price', matches: [{ type: 'tag', tag: 'p', attr: { class: 'price', 'data-currency': 'EUR' }, children: [
        { type: 'text', data: '5 ' }, { type: 'tag', tag: 'b', attr: {}, children: [{ type: 'text', data: 'EUR' }] }] }] },
      { selector: 'table.specs', matches: [] },
    ]);
    expect(metadata.get(site.url('/docs/c'))).toEqual([{ selector: '.price', matches: [] }, { selector: 'table.specs', matches: [] }]);

    // A configuration naming the source's index searches it, and the page's fragments come back on its results.
    const tool = await svc.call('POST', '/v1/admin/configurations', { variant: 'tool', name: 'site', indexes: ['source-site'] });
    expect(tool.status).toBe(201);
    const qs = new URLSearchParams({ uid: tool.body.uid, 'session-id': 's1', query: 'lanterns' });
    const results = (await (await fetch(`${svc.url}/v1/tool/search?${qs}`)).json()).results as { title?: string; metadata?: unknown }[];
    expect(results.find((r) => r.title === 'Alpha')?.metadata).toEqual(metadata.get(site.url('/docs/a')));
  });

  it('recrawls incrementally: 304 for an unchanged page, a changed page re-indexed, gone pages removed', async () => {
    const index = (await svc.storage.indexes.get('source-site'))!;
    const homeVersion = (await svc.storage.documents.get(index.id, site.url('/')))!.version;
    gamma = '<title>Gamma</title><main><p>Gamma page about zeppelins now</p></main>';
    site.routes['/docs/b'] = (_req, res) => void res.writeHead(410, { 'content-type': 'text/html' }).end('<p>gone</p>');
    // /docs/d leaves the sitemap; /docs/e stays, its lastmod older than the copy indexed.
    site.routes['/sitemap.xml'] = (_req, res) => void res.writeHead(200, { 'content-type': 'application/xml' })
      .end(`<urlset><url><loc>${site.url('/docs/e')}</loc><lastmod>2026-11-20T10:00:00Z</lastmod></url></urlset>`);
    const before = site.log.length;

    expect((await svc.call('POST', '/v1/admin/sources/site/crawl')).status).toBe(202);
    expect(await crawled('site')).toBe(true);
    const view = await source('site');
    expect(view.crawl).toMatchObject({ state: 'done', indexed: 1, removed: 2 });
    expect(view.crawl.unchanged).toBeGreaterThanOrEqual(3);
    expect(site.headers['/docs/a']['if-none-match']).toBe('"a1"');
    expect(site.log.slice(before)).toContain('GET /docs/a');
    expect(site.log.slice(before)).not.toContain('GET /docs/d');
    expect(site.log.slice(before)).not.toContain('GET /docs/e');

    const pages = ['/', '/docs/a', '/docs/c', '/docs/e'].map((p) => site.url(p)).sort();
    expect(await documents('source-site')).toEqual(pages);
    // The unchanged home page was not written again.
    expect((await svc.storage.documents.get(index.id, site.url('/')))!.version).toBe(homeVersion);
    expect(await waitFor(async () => (await svc.keywordUids('source-site', 'zeppelins', ['title', 'content'])).length > 0)).toBe(true);
    expect(await waitFor(async () => (await svc.keywordUids('source-site', 'quinces', ['title', 'content'])).length === 0)).toBe(true);
    expect(await svc.keywordUids('source-site', 'ferries', ['title', 'content'])).toEqual([]);
  });

  it('a crawl whose worker died half-way resumes from its frontier and finishes with nothing lost or doubled', async () => {
    const created = await svc.call('POST', '/v1/admin/sources', { uid: 'resume', kind: 'website', start_urls: [site.url('/')], sitemaps: [site.url('/sitemap.xml')] });
    expect(created.status).toBe(201);
    const pages = sourcePages();
    let writes = 0;
    const dying = Object.create(pages) as SourcePages;
    dying.upsert = (...args) => {
      if (++writes === 3) throw new Error('worker killed');
      return pages.upsert(...args);
    };
    const before = site.log.length;
    // The first attempt dies here, as a killed process would.
    await expect(crawlHere('resume', dying)).rejects.toThrow('worker killed');
    const half = await svc.storage.sources.get('resume');
    expect(half!.crawl.state).toBe('running');
    const frontier = await svc.storage.sources.frontier('resume');
    expect(frontier.some((e) => e.done)).toBe(true);
    expect(frontier.some((e) => !e.done)).toBe(true);
    const doneBefore = frontier.filter((e) => e.done).map((e) => new URL(e.url).pathname);

    expect(await crawled('resume')).toBe(true);
    expect((await source('resume')).crawl.state).toBe('done');
    expect(await documents('source-resume')).toEqual(['/', '/docs/a', '/docs/c', '/docs/e'].map((p) => site.url(p)).sort());
    expect(await svc.storage.sources.frontier('resume')).toEqual([]);
    const after = site.log.slice(before);
    // What was done before the crash is not fetched again.
    for (const path of doneBefore.filter((p) => p !== '/private/x')) expect(after.filter((l) => l === `GET ${path}`).length, path).toBe(1);
    expect(after).not.toContain('GET /private/x');

    // The counters are those of the same crawl never interrupted: the page the dead attempt was writing counts once.
    await svc.call('POST', '/v1/admin/sources', { uid: 'resume-ref', kind: 'website', start_urls: [site.url('/')], sitemaps: [site.url('/sitemap.xml')] });
    expect((await svc.call('POST', '/v1/admin/sources/resume-ref/crawl')).status).toBe(202);
    expect(await crawled('resume-ref')).toBe(true);
    const counters = ({ discovered, fetched, indexed, unchanged, skipped, failed, removed }: Record<string, number>) => ({ discovered, fetched, indexed, unchanged, skipped, failed, removed });
    const reference = counters((await source('resume-ref')).crawl);
    expect(reference).toMatchObject({ indexed: 4, removed: 0 });
    expect(counters((await source('resume')).crawl)).toEqual(reference);
  });

  it('a page kept through another url\'s redirect is not fetched again when its own turn comes, and stays indexed', async () => {
    site.routes['/moved'] = redirect('/docs/target');
    site.routes['/docs/target'] = html('<title>Target</title><main><p>Target page about barometers</p></main>');
    await svc.call('POST', '/v1/admin/sources', { uid: 'moved', kind: 'website', start_urls: [site.url('/moved'), site.url('/docs/target')] });
    // One lane, so the redirect is followed before the target's own frontier entry is taken.
    await crawlHere('moved');
    expect((await source('moved')).crawl).toMatchObject({ state: 'done', discovered: 2, fetched: 1, indexed: 1, skipped: 1, failed: 0, removed: 0 });
    expect(fetches('/docs/target')).toBe(1);
    expect(await documents('source-moved')).toEqual([site.url('/docs/target')]);
    expect((await source('moved')).crawl.problems).toEqual([{ url: site.url('/moved'), status: 'duplicate', reason: `same page as ${site.url('/docs/target')}` }]);
  });

  it('two copies of a page that swap which one is kept: the unchanged one (304) leaves the index, one copy stays', async () => {
    const copy = '<title>Copy</title><main><p>Copy page about lighthouses</p></main>';
    site.routes['/copy-a'] = withEtag('"ca"', () => copy);
    site.routes['/copy-b'] = html(copy);
    await svc.call('POST', '/v1/admin/sources', { uid: 'copies', kind: 'website', start_urls: [site.url('/copy-a'), site.url('/copy-b')] });
    await crawlHere('copies');
    expect(await documents('source-copies')).toEqual([site.url('/copy-a')]);
    // Now the copy without validators comes first and is kept; the first one answers 304 and is its duplicate.
    await svc.call('PATCH', '/v1/admin/sources/copies', { start_urls: [site.url('/copy-b'), site.url('/copy-a')] });
    const before = site.responses.length;
    await crawlHere('copies');
    expect(site.responses.slice(before)).toEqual(expect.arrayContaining(['/copy-a 304', '/copy-b 200']));
    expect(await documents('source-copies')).toEqual([site.url('/copy-b')]);
    expect((await source('copies')).crawl).toMatchObject({ state: 'done', indexed: 1, unchanged: 0, skipped: 1, removed: 1 });
    expect((await source('copies')).crawl.problems).toEqual([{ url: site.url('/copy-a'), status: 'duplicate', reason: `same page as ${site.url('/copy-b')}` }]);
  });

  it('queues recrawls when recrawl_hours have passed since the last crawl finished, and a scheduled source never crawled at once', async () => {
    await svc.call('POST', '/v1/admin/sources', { uid: 'sched', kind: 'website', start_urls: [site.url('/')], recrawl_hours: 2 });
    await svc.call('POST', '/v1/admin/sources', { uid: 'manual', kind: 'website', start_urls: [site.url('/')] });
    // A queue no worker of this test consumes: only what the check enqueues is looked at.
    const queue = createCrawlQueue(svc.redis, `${svc.prefix}-sched`, 1);
    try {
      const queued = async () => (await queue.getJobs(['waiting'])).map((j) => j.data).filter((d) => ['sched', 'manual'].includes(d.sourceUid));
      const now = Date.now();
      await queueDueRecrawls(svc.storage, queue, now);
      expect(await queued()).toEqual([{ sourceUid: 'sched', crawl: 1 }]);
      expect((await svc.storage.sources.get('sched'))!.crawl.state).toBe('queued');
      await queueDueRecrawls(svc.storage, queue, now);
      expect(await queued()).toHaveLength(1);

      const done = { ...(await svc.storage.sources.get('sched'))!.crawl, state: 'done' as const, finishedAt: now - 3_600_000 };
      await svc.storage.sources.setCrawl('sched', done);
      await queueDueRecrawls(svc.storage, queue, now);
      expect(await queued()).toHaveLength(1);
      await queueDueRecrawls(svc.storage, queue, now + 3_600_000);
      expect((await queued()).map((d) => d.crawl).sort()).toEqual([1, 2]);
      expect((await svc.storage.sources.get('manual'))!.crawl.state).toBe('idle');
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('a worker shutting down pauses its crawl after the pages in flight; the next worker finishes it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    site.routes['/pause-home'] = html('<title>Pause home</title><main><p>Start here</p><a href="/hold">hold</a></main>');
    site.routes['/hold'] = (req, res) => void held.then(() => html('<title>Hold</title><main><p>Held page</p><a href="/after">after</a></main>')(req, res));
    site.routes['/after'] = html('<title>After</title><main><p>Found after the pause</p></main>');
    await svc.call('POST', '/v1/admin/sources', { uid: 'pause', kind: 'website', start_urls: [site.url('/pause-home')] });
    expect((await svc.call('POST', '/v1/admin/sources/pause/crawl')).status).toBe(202);
    expect(await waitFor(() => site.log.includes('GET /hold'))).toBe(true);

    const closing = worker.close();
    release();
    await closing;
    expect((await svc.storage.sources.get('pause'))!.crawl.state).toBe('running');
    expect((await svc.storage.sources.frontier('pause')).filter((e) => !e.done).map((e) => new URL(e.url).pathname)).toEqual(['/after']);
    expect(site.log).not.toContain('GET /after');

    worker = await startWorker();
    expect(await crawled('pause')).toBe(true);
    expect((await source('pause')).crawl).toMatchObject({ state: 'done', indexed: 3, failed: 0 });
    expect(await documents('source-pause')).toEqual(['/after', '/hold', '/pause-home'].map((p) => site.url(p)).sort());
    for (const path of ['/pause-home', '/hold', '/after']) expect(fetches(path), path).toBe(1);
  });

  it('a page whose fragments are over the metadata limit fails alone, with the reason, and the crawl goes on', async () => {
    site.routes['/fat'] = html(`<title>Fat</title><main><p>Many marks</p>${'<i>x</i>'.repeat(10_000)}<a href="/fat-next">next</a></main>`);
    site.routes['/fat-next'] = html('<title>Next</title><main><p>Next page</p></main>');
    await svc.call('POST', '/v1/admin/sources', { uid: 'fat', kind: 'website', start_urls: [site.url('/fat')], fragments: ['i'] });
    expect((await svc.call('POST', '/v1/admin/sources/fat/crawl')).status).toBe(202);
    expect(await crawled('fat')).toBe(true);
    const view = await source('fat');
    expect(view.crawl).toMatchObject({ state: 'done', indexed: 1, failed: 1 });
    expect(view.crawl.problems).toEqual([{ url: site.url('/fat'), status: 'failed', reason: expect.stringMatching(/invalid metadata/) }]);
    expect(await documents('source-fat')).toEqual([site.url('/fat-next')]);
  });
  it('reads the sitemaps robots.txt names on the start urls\' origins: a page no link reaches is indexed, another origin\'s sitemap is not read', async () => {
    const shop = await startSite({});
    const elsewhere = await startSite({});
    try {
      shop.routes['/robots.txt'] = (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' })
        .end(`User-agent: *\nDisallow: /private/\nSitemap: ${shop.url('/shop-sitemap.xml')}\nSitemap: ${elsewhere.url('/sitemap.xml')}\n`);
      shop.routes['/'] = html('<title>Shop</title><main><p>Shop front</p><a href="/linked">linked</a></main>');
      shop.routes['/linked'] = html('<title>Linked</title><main><p>Linked page</p></main>');
      shop.routes['/orphan'] = html('<title>Orphan</title><main><p>Orphan page about marmalade</p></main>', { 'last-modified': 'Sat, 21 Nov 2026 08:00:00 GMT' });
      shop.routes['/drafts/x'] = html('<title>Draft</title><main><p>Excluded by the source</p></main>');
      shop.routes['/private/y'] = html('<p>never fetched</p>');
      shop.routes['/shop-sitemap.xml'] = (_req, res) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset>
        <url><loc>${shop.url('/orphan')}</loc><lastmod>2026-11-20T10:00:00Z</lastmod></url>
        <url><loc>${shop.url('/drafts/x')}</loc></url><url><loc>${shop.url('/private/y')}</loc></url></urlset>`);
      elsewhere.routes['/sitemap.xml'] = (_req, res) => void res.writeHead(200, { 'content-type': 'application/xml' })
        .end(`<urlset><url><loc>${elsewhere.url('/page')}</loc></url></urlset>`);
      elsewhere.routes['/page'] = html('<title>Elsewhere</title><main><p>Another site</p></main>');

      // The source also names the robots.txt sitemap itself: it is read once.
      const created = await svc.call('POST', '/v1/admin/sources', {
        uid: 'shop', kind: 'website', start_urls: [shop.url('/')], sitemaps: [shop.url('/shop-sitemap.xml')], exclude: ['/drafts/*'],
      });
      expect(created.status).toBe(201);
      expect((await svc.call('POST', '/v1/admin/sources/shop/crawl')).status).toBe(202);
      expect(await crawled('shop')).toBe(true);
      expect((await source('shop')).crawl).toMatchObject({ state: 'done', indexed: 3, failed: 0 });
      expect(await documents('source-shop')).toEqual(['/', '/linked', '/orphan'].map((p) => shop.url(p)).sort());
      expect(await waitFor(async () => (await svc.keywordUids('source-shop', 'marmalade', ['title', 'content'])).length > 0)).toBe(true);
      expect(shop.log.filter((l) => l === 'GET /shop-sitemap.xml')).toHaveLength(1);
      expect(shop.log).not.toContain('GET /drafts/x');
      expect(shop.log).not.toContain('GET /private/y');
      expect(elsewhere.log).toEqual([]);

      // Without the source naming it, the robots.txt sitemap is still read, and its lastmod (older than the copy
      // indexed) spares the orphan page a request on the recrawl.
      expect((await svc.call('PATCH', '/v1/admin/sources/shop', { sitemaps: [] })).status).toBe(200);
      const before = shop.log.length;
      expect((await svc.call('POST', '/v1/admin/sources/shop/crawl')).status).toBe(202);
      expect(await crawled('shop')).toBe(true);
      expect((await source('shop')).crawl).toMatchObject({ state: 'done', removed: 0 });
      expect(shop.log.slice(before)).toContain('GET /shop-sitemap.xml');
      expect(shop.log.slice(before)).not.toContain('GET /orphan');
      expect(await documents('source-shop')).toEqual(['/', '/linked', '/orphan'].map((p) => shop.url(p)).sort());
      expect(elsewhere.log).toEqual([]);
    } finally {
      await shop.close();
      await elsewhere.close();
    }
  });
});
