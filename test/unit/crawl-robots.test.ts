import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlerUserAgent } from '../../shared/crawl/fetch-page.js';
import { HostLimiter } from '../../shared/crawl/host-limiter.js';
import { RobotsCache } from '../../shared/crawl/robots.js';
import { startSite, type TestSite } from './crawl-site.js';

const fetchOptions = { userAgent: crawlerUserAgent('https://search.example.com'), allowPrivate: true };
const text = (body: string, status = 200) => (_req: unknown, res: import('node:http').ServerResponse) =>
  void res.writeHead(status, { 'content-type': 'text/plain' }).end(body);

let site: TestSite;
let missing: TestSite;
let broken: TestSite;

beforeAll(async () => {
  site = await startSite({
    '/robots.txt': text(
      [
        'User-agent: *',
        'Disallow: /',
        '',
        'User-agent: QuarryBot',
        'Disallow: /private/',
        'Allow: /private/open.html',
        'Crawl-delay: 2',
        '',
        'Sitemap: https://example.com/sitemap.xml',
      ].join('\n'),
    ),
  });
  missing = await startSite({});
  broken = await startSite({ '/robots.txt': text('oops', 503) });
});
afterAll(async () => {
  await Promise.all([site.close(), missing.close(), broken.close()]);
});

describe('RobotsCache', () => {
  it('applies the group for our user agent, its Crawl-delay and sitemaps', async () => {
    const limiter = new HostLimiter({ minDelayMs: 100 });
    const robots = new RobotsCache(fetchOptions, limiter);
    expect(await robots.isAllowed(site.url('/docs/a.html'))).toBe(true);
    expect(await robots.isAllowed(site.url('/private/secret.html'))).toBe(false);
    expect(await robots.isAllowed(site.url('/private/open.html'))).toBe(true);
    const rules = await robots.rulesFor(site.url('/'));
    expect(rules).toMatchObject({ source: 'parsed', crawlDelaySeconds: 2, sitemaps: ['https://example.com/sitemap.xml'] });
    expect(limiter.delayFor(site.url('/anything'))).toBe(2000);
  });

  it('fetches robots.txt once per origin per crawl', async () => {
    const robots = new RobotsCache(fetchOptions);
    const before = site.log.filter((l) => l === 'GET /robots.txt').length;
    await Promise.all([robots.isAllowed(site.url('/a')), robots.isAllowed(site.url('/b')), robots.isAllowed(site.url('/c'))]);
    expect(site.log.filter((l) => l === 'GET /robots.txt').length).toBe(before + 1);
    expect(site.headers['/robots.txt']['user-agent']).toMatch(/^QuarryBot\//);
  });

  it('allows everything when robots.txt is missing (404)', async () => {
    const rules = await new RobotsCache(fetchOptions).rulesFor(missing.url('/'));
    expect(rules.source).toBe('missing');
    expect(rules.isAllowed(missing.url('/anything'))).toBe(true);
  });

  it('allows nothing when robots.txt is unreachable (5xx, refused address)', async () => {
    const rules = await new RobotsCache(fetchOptions).rulesFor(broken.url('/'));
    expect(rules.source).toBe('unreachable');
    expect(rules.isAllowed(broken.url('/'))).toBe(false);
    const refused = await new RobotsCache({ userAgent: fetchOptions.userAgent }).rulesFor(site.url('/'));
    expect(refused.source).toBe('unreachable');
  });

  it('does not let rules of one origin answer for another', async () => {
    const rules = await new RobotsCache(fetchOptions).rulesFor(site.url('/'));
    expect(rules.isAllowed('https://elsewhere.example/docs/')).toBe(false);
  });
});
