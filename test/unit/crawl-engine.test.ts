import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPage } from '../../shared/crawl/extract-page.js';
import { crawlerUserAgent, fetchPage } from '../../shared/crawl/fetch-page.js';
import { HostLimiter } from '../../shared/crawl/host-limiter.js';
import { RobotsCache } from '../../shared/crawl/robots.js';
import { readSitemaps } from '../../shared/crawl/sitemaps.js';
import { contentHash, CrawlPolicy } from '../../shared/crawl/url-policy.js';
import { html, redirect, startSite, type TestSite } from './crawl-site.js';

// The modules together on one real site, driven by the simplest crawl loop: what the crawl worker will
// do, minus storage and queues.
let site: TestSite;
const fetchOptions = { userAgent: crawlerUserAgent('https://search.example.com'), allowPrivate: true };

beforeAll(async () => {
  site = await startSite({
    '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: QuarryBot\nDisallow: /private/\n'),
    '/': html('<title>Home</title><main><p>Welcome</p><a href="/docs/a">A</a> <a href="/private/x">secret</a> <a href="/docs/b?ref=home">B</a> <a href="/old">old</a> <a href="/ads" rel="nofollow">ads</a></main>'),
    '/docs/a': html('<title>A</title><main><p>Alpha page</p><a href="/docs/a-copy">copy</a><a href="/file.pdf">pdf</a></main>'),
    // The same page served under a second url, reflowed.
    '/docs/a-copy': html('<title>A copy</title><main>\n<p>Alpha page</p>\n<a href="/docs/a-copy">copy</a>  <a href="/file.pdf">pdf</a></main>'),
    '/docs/b?ref=home': html('<title>B</title><link rel="canonical" href="/docs/b"><main><p>Beta page</p></main>'),
    '/docs/b': html('<title>B</title><main><p>Beta page, canonical</p></main>'),
    '/old': redirect('/docs/c'),
    '/docs/c': html('<title>C</title><main><p>Gamma</p><a href="/gone">gone</a></main>'),
    '/private/x': html('<p>never fetched</p>'),
    '/ads': html('<p>never fetched</p>'),
    '/file.pdf': (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF'),
  });
  site.routes['/sitemap.xml'] = (_req, res) =>
    void res
      .writeHead(200, { 'content-type': 'application/xml' })
      .end(`<urlset><url><loc>${site.url('/docs/d')}</loc><lastmod>2026-11-20</lastmod></url></urlset>`);
  site.routes['/docs/d'] = html('<title>D</title><main><p>Delta, only in the sitemap</p></main>');
});
afterAll(async () => {
  await site.close();
});

describe('crawler engine, composed', () => {
  it('crawls every allowed page once, fetches nothing disallowed and collapses duplicates', async () => {
    const limiter = new HostLimiter({ minDelayMs: 0 });
    const robots = new RobotsCache(fetchOptions, limiter);
    const policy = new CrawlPolicy({ seeds: [site.url('/'), site.url('/sitemap.xml')] });
    const queue: { url: string; depth: number }[] = [];
    const enqueue = (url: string, depth: number) => {
      const admitted = policy.admit(url, depth);
      if (admitted) queue.push({ url: admitted, depth });
    };
    enqueue(site.url('/'), 0);
    const sitemap = await readSitemaps([site.url('/sitemap.xml')], { ...fetchOptions, limiter });
    for (const entry of sitemap.entries) enqueue(entry.url, 0);

    const kept = new Map<string, string>();
    const outcomes: string[] = [];
    while (queue.length > 0) {
      const { url, depth } = queue.shift()!;
      if (!(await robots.isAllowed(url))) {
        outcomes.push(`disallowed ${new URL(url).pathname}`);
        continue;
      }
      const result = await limiter.run(url, () => fetchPage(url, fetchOptions));
      if (result.kind !== 'fetched') {
        outcomes.push(`${result.kind} ${'reason' in result ? result.reason : ''} ${new URL(url).pathname}`);
        continue;
      }
      const page = extractPage(result.html, result.finalUrl);
      const decision = policy.collapse({ finalUrl: result.finalUrl, canonical: page.canonical, contentHash: contentHash(page.text) });
      if (decision.kind === 'unique') kept.set(new URL(decision.url).pathname + new URL(decision.url).search, page.title);
      else if (decision.kind === 'duplicate') outcomes.push(`duplicate ${new URL(url).pathname} of ${new URL(decision.of).pathname}`);
      for (const link of page.links) enqueue(link, depth + 1);
    }

    expect(Object.fromEntries(kept)).toEqual({ '/': 'Home', '/docs/a': 'A', '/docs/b': 'B', '/docs/c': 'C', '/docs/d': 'D' });
    expect(outcomes.sort()).toEqual([
      'disallowed /private/x',
      'duplicate /docs/a-copy of /docs/a',
      'failed not found /gone',
      'skipped not html /file.pdf',
    ]);
    const requested = site.log.map((l) => l.replace(/^GET /, ''));
    expect(requested).not.toContain('/private/x');
    expect(requested).not.toContain('/ads');
    // The canonical of /docs/b?ref=home was kept from that fetch, so /docs/b itself is never requested.
    expect(requested).not.toContain('/docs/b');
    expect(requested.filter((p) => p === '/robots.txt')).toHaveLength(1);
    expect(new Set(requested).size).toBe(requested.length);
  });
});
