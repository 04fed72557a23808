import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlerUserAgent } from '../../shared/crawl/fetch-page.js';
import { parseSitemap, readSitemaps } from '../../shared/crawl/sitemaps.js';
import { startSite, type TestSite } from './crawl-site.js';

let site: TestSite;
const options = () => ({ userAgent: crawlerUserAgent('https://search.example.com'), allowPrivate: true });
const xml = (body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/xml' }) =>
  (_req: unknown, res: ServerResponse) => void res.writeHead(200, headers).end(body);
const urlset = (urls: [string, string?][]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
  urls.map(([loc, lastmod]) => `<url><loc>${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`).join('') +
  '</urlset>';

beforeAll(async () => {
  site = await startSite({});
  const u = site.url;
  const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
    <sitemap><loc>${u('/pages.xml')}</loc><lastmod>2026-11-01</lastmod></sitemap>
    <sitemap><loc>${u('/more.xml.gz')}</loc></sitemap>
    <sitemap><loc>${u('/encoded.xml')}</loc></sitemap>
    <sitemap><loc>${u('/missing.xml')}</loc></sitemap>
  </sitemapindex>`;
  const routes = {
    '/sitemap_index.xml': xml(index),
    '/pages.xml': xml(urlset([[u('/a.html'), '2026-11-02T10:00:00+01:00'], [u('/b.html')], ['javascript:alert(1)'], [u('/a.html'), '2026-10-01']])),
    '/more.xml.gz': xml(gzipSync(urlset([[u('/c.html'), '2026-11-03']])), { 'content-type': 'application/x-gzip' }),
    '/encoded.xml': xml(gzipSync(urlset([[u('/d.html'), 'not a date']])), { 'content-type': 'application/xml', 'content-encoding': 'gzip' }),
    '/not-a-sitemap.xml': xml('<rss><channel/></rss>'),
    '/bomb.xml.gz': xml(gzipSync(urlset(Array.from({ length: 20_000 }, (_, i) => [u(`/p${i}.html`)] as [string])))),
  };
  Object.assign(site.routes, routes);
});
afterAll(async () => {
  await site.close();
});

describe('parseSitemap', () => {
  it('reads urls and lastmod of a urlset, prefixed or not', () => {
    const parsed = parseSitemap(
      '<s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"><s:url><s:loc> https://example.com/x </s:loc><s:lastmod>2026-01-02</s:lastmod></s:url></s:urlset>',
    );
    expect(parsed).toEqual({ kind: 'urlset', entries: [{ url: 'https://example.com/x', lastmod: '2026-01-02T00:00:00.000Z' }] });
  });

  it('tells an index from a urlset, and neither from both', () => {
    expect(parseSitemap('<sitemapindex><sitemap><loc>https://example.com/s.xml</loc></sitemap></sitemapindex>')).toEqual({
      kind: 'index',
      entries: [{ url: 'https://example.com/s.xml', lastmod: null }],
    });
    expect(parseSitemap('<html><body>hi</body></html>')).toBeNull();
    expect(parseSitemap('')).toBeNull();
  });

  it('keeps at most maxUrls entries', () => {
    expect(parseSitemap(urlset([['https://e.com/1'], ['https://e.com/2'], ['https://e.com/3']]), 2)?.entries).toHaveLength(2);
  });
});

describe('readSitemaps', () => {
  it('follows an index to plain, gzip-file and gzip-encoded sitemaps, keeping the latest lastmod', async () => {
    const { entries, errors } = await readSitemaps([site.url('/sitemap_index.xml')], options());
    expect(entries).toEqual([
      { url: site.url('/a.html'), lastmod: '2026-11-02T09:00:00.000Z' },
      { url: site.url('/b.html'), lastmod: null },
      { url: site.url('/c.html'), lastmod: '2026-11-03T00:00:00.000Z' },
      { url: site.url('/d.html'), lastmod: null },
    ]);
    expect(errors).toEqual([{ url: site.url('/missing.xml'), reason: 'http 404' }]);
  });

  it('reports what is not a sitemap and what it refused', async () => {
    const { entries, errors } = await readSitemaps([site.url('/not-a-sitemap.xml')], options());
    expect(entries).toEqual([]);
    expect(errors).toEqual([{ url: site.url('/not-a-sitemap.xml'), reason: 'not a sitemap' }]);
    const strict = await readSitemaps([site.url('/pages.xml')], { userAgent: 'QuarryBot/0 (+x)' });
    expect(strict.errors).toEqual([{ url: site.url('/pages.xml'), reason: 'private address' }]);
  });

  it('stops at the url, file and size limits', async () => {
    expect((await readSitemaps([site.url('/bomb.xml.gz')], { ...options(), maxUrls: 500 })).entries).toHaveLength(500);
    const few = await readSitemaps([site.url('/sitemap_index.xml')], { ...options(), maxSitemaps: 2 });
    expect(few.entries.map((e) => e.url)).toEqual([site.url('/a.html'), site.url('/b.html')]);
    const small = await readSitemaps([site.url('/bomb.xml.gz')], { ...options(), maxBytes: 100_000 });
    expect(small).toEqual({ entries: [], errors: [{ url: site.url('/bomb.xml.gz'), reason: 'too large' }] });
  });
});
