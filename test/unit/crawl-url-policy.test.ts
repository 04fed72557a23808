import { describe, expect, it } from 'vitest';
import { compileUrlPattern, contentHash, CrawlPolicy, normalizeUrl } from '../../shared/crawl/url-policy.js';

describe('normalizeUrl', () => {
  it.each([
    ['HTTP://Example.COM:80/a/../b/?q=2&a=1#frag', 'http://example.com/b/?q=2&a=1'],
    ['https://example.com:443', 'https://example.com/'],
    ['https://example.com:8443/x#', 'https://example.com:8443/x'],
    ['https://example.com/a b', 'https://example.com/a%20b'],
    ['https://example.com/path/', 'https://example.com/path/'],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeUrl(raw)).toBe(expected);
  });

  it('resolves relative urls and refuses what is not crawlable', () => {
    expect(normalizeUrl('../c?x=1#y', 'https://example.com/a/b/')).toBe('https://example.com/a/c?x=1');
    for (const bad of ['mailto:a@example.com', 'javascript:alert(1)', 'ftp://example.com/', 'https://user:pw@example.com/', 'not a url']) {
      expect(normalizeUrl(bad)).toBeNull();
    }
  });
});

describe('compileUrlPattern', () => {
  it('matches path patterns against path and query, whole', () => {
    const docs = compileUrlPattern('/docs/*');
    expect(docs('https://example.com/docs/')).toBe(true);
    expect(docs('https://example.com/docs/a/b.html?x=1')).toBe(true);
    expect(docs('https://example.com/blog/docs/x')).toBe(false);
    expect(compileUrlPattern('/*.pdf')('https://example.com/a/b.pdf')).toBe(true);
    expect(compileUrlPattern('/*.pdf')('https://example.com/a/b.pdf.html')).toBe(false);
  });

  it('matches full-url patterns against the url, with regex characters literal', () => {
    const m = compileUrlPattern('https://example.com/search?q=*');
    expect(m('https://example.com/search?q=x')).toBe(true);
    expect(m('https://example.com/searchXq=x')).toBe(false);
  });
});

describe('CrawlPolicy', () => {
  const seeds = ['https://example.com/docs/', 'https://sitemaps.example.org/sitemap.xml'];

  it('keeps to the hosts of the seeds, either scheme, with include and exclude', () => {
    const policy = new CrawlPolicy({ seeds, include: ['/docs/*', 'https://sitemaps.example.org/*'], exclude: ['/docs/private/*'] });
    expect(policy.inScope('https://example.com/docs/a.html')).toBe(true);
    expect(policy.inScope('http://example.com/docs/a.html')).toBe(true);
    expect(policy.inScope('https://example.com/blog/')).toBe(false);
    expect(policy.inScope('https://example.com/docs/private/x')).toBe(false);
    expect(policy.inScope('https://sitemaps.example.org/page')).toBe(true);
    expect(policy.inScope('https://other.example.com/docs/a.html')).toBe(false);
    expect(policy.inScope('https://example.com:8443/docs/a.html')).toBe(false);
  });

  it('admits each url once, within depth and the page limit', () => {
    const policy = new CrawlPolicy({ seeds, maxDepth: 2, maxPages: 3 });
    expect(policy.admit('https://example.com/docs/#top', 0)).toBe('https://example.com/docs/');
    expect(policy.admit('https://example.com/docs/', 1)).toBeNull();
    expect(policy.admit('https://example.com/deep', 3)).toBeNull();
    expect(policy.admit('https://elsewhere.com/', 1)).toBeNull();
    expect(policy.admit('https://example.com/a', 2)).toBe('https://example.com/a');
    expect(policy.admit('https://example.com/b', 1)).toBe('https://example.com/b');
    expect(policy.admit('https://example.com/c', 1)).toBeNull();
    expect(policy.admittedCount).toBe(3);
  });

  it('keeps a page under its canonical url and collapses duplicates by url and by content', () => {
    const policy = new CrawlPolicy({ seeds });
    const a = contentHash('<p>A</p>');
    expect(policy.collapse({ finalUrl: 'https://example.com/docs/a?ref=nav', canonical: 'https://example.com/docs/a', contentHash: a })).toEqual({
      kind: 'unique',
      url: 'https://example.com/docs/a',
    });
    // The canonical itself, fetched later through a link, is the same page: not kept twice.
    expect(policy.admit('https://example.com/docs/a', 1)).toBeNull();
    expect(policy.isKept('https://example.com/docs/a#intro')).toBe(true);
    expect(policy.isKept('https://example.com/docs/a?ref=nav')).toBe(false);
    expect(policy.collapse({ finalUrl: 'https://example.com/docs/a', canonical: null, contentHash: contentHash('other') })).toEqual({
      kind: 'duplicate',
      of: 'https://example.com/docs/a',
    });
    // Same content under another url and no canonical: a copy.
    expect(policy.collapse({ finalUrl: 'https://example.com/docs/copy', canonical: null, contentHash: contentHash(' <p>A</p>\n') })).toEqual({
      kind: 'duplicate',
      of: 'https://example.com/docs/a',
    });
    // A canonical off the site is ignored; a redirect off the site is out of scope.
    expect(policy.collapse({ finalUrl: 'https://example.com/docs/b', canonical: 'https://evil.example/', contentHash: contentHash('B') })).toEqual({
      kind: 'unique',
      url: 'https://example.com/docs/b',
    });
    expect(policy.collapse({ finalUrl: 'https://evil.example/x', canonical: null, contentHash: contentHash('C') })).toEqual({ kind: 'outOfScope' });
  });
});
