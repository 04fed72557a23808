import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDLE_CRAWL, type PageRecord, type SourceRecord } from '../../shared/storage/ports/source-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const source = (uid: string, over: Partial<SourceRecord> = {}): SourceRecord => ({
  uid, kind: 'website', indexUid: `source-${uid}`,
  settings: {
    startUrls: ['https://example.com/'], sitemaps: [], include: ['/docs/*'], exclude: [], maxPages: 100, maxDepth: 3,
    contentSelector: 'main', dropSelectors: null, fragments: ['.price'], recrawlHours: 24,
  },
  crawl: IDLE_CRAWL, createdAt: 1000, updatedAt: 1000, ...over,
});

const page = (url: string, over: Partial<PageRecord> = {}): PageRecord => ({
  url, etag: '"e1"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT', contentHash: 'h1', status: 'indexed', reason: null, lastSeenCrawl: 1, links: ['https://example.com/a', 'https://example.com/b'], ...over,
});

export function sourceStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: source store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('stores a source, lists it, and refuses a second with the same uid', async () => {
      await s.sources.insert(source('docs'));
      await s.sources.insert(source('blog', { settings: { ...source('x').settings, contentSelector: null, dropSelectors: ['nav'], recrawlHours: null } }));
      const other = await h.open();
      expect(await other.sources.get('docs')).toEqual(source('docs'));
      expect((await s.sources.list()).map((x) => x.uid)).toEqual(['blog', 'docs']);
      expect((await s.sources.get('blog'))?.settings.dropSelectors).toEqual(['nav']);
      expect(await s.sources.get('nope')).toBeNull();
      await expect(s.sources.insert(source('docs'))).rejects.toThrow();
    });

    it('lists sources a page at a time after a uid', async () => {
      for (const uid of ['docs', 'blog', 'Api', 'shop']) await s.sources.insert(source(uid));
      expect((await s.sources.list({ limit: 2 })).map((x) => x.uid)).toEqual(['Api', 'blog']);
      expect((await s.sources.list({ limit: 2, after: 'blog' })).map((x) => x.uid)).toEqual(['docs', 'shop']);
    });

    it('replaces settings without touching the crawl, and the crawl without touching settings', async () => {
      await s.sources.insert(source('docs'));
      const crawl = { ...IDLE_CRAWL, state: 'running' as const, crawl: 2, discovered: 5, fetched: 3, startedAt: 2000 };
      expect(await s.sources.setCrawl('docs', crawl)).toBe(true);
      const settings = { ...source('docs').settings, maxPages: 7 };
      expect(await s.sources.replaceSettings('docs', settings, 3000)).toBe(true);
      expect(await s.sources.get('docs')).toEqual(source('docs', { settings, crawl, updatedAt: 3000 }));
      expect(await s.sources.replaceSettings('nope', settings, 3000)).toBe(false);
      expect(await s.sources.setCrawl('nope', crawl)).toBe(false);
    });

    it('keeps one record per page url, updated in place, separate per source', async () => {
      await s.sources.insert(source('a'));
      await s.sources.insert(source('b'));
      await s.sources.upsertPage('a', page('https://example.com/1'));
      await s.sources.upsertPage('a', page('https://example.com/2', { status: 'skipped', reason: 'not html', contentHash: null, etag: null, lastModified: null }));
      await s.sources.upsertPage('b', page('https://example.com/1', { contentHash: 'other' }));
      await s.sources.upsertPage('a', page('https://example.com/1', { contentHash: 'h2', lastSeenCrawl: 2, etag: null, links: [] }));
      expect(await s.sources.page('a', 'https://example.com/1')).toEqual(page('https://example.com/1', { contentHash: 'h2', lastSeenCrawl: 2, etag: null, links: [] }));
      expect((await s.sources.pages('a')).map((p) => [p.url, p.status])).toEqual([['https://example.com/1', 'indexed'], ['https://example.com/2', 'skipped']]);
      await s.sources.deletePage('a', 'https://example.com/2');
      expect(await s.sources.page('a', 'https://example.com/2')).toBeNull();
      expect((await s.sources.page('b', 'https://example.com/1'))?.contentHash).toBe('other');
    });

    it('keeps the frontier in the order added, each url once, with what was done and its outcome', async () => {
      await s.sources.insert(source('a'));
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/c', depth: 0 }, { url: 'https://e.com/a', depth: 0 }]);
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/b', depth: 1 }, { url: 'https://e.com/a', depth: 1 }]);
      await s.sources.addToFrontier('a', []);
      await s.sources.recordVisit('a', { url: 'https://e.com/a', pages: [], follow: [], outcome: { fetched: 1, indexed: 1 } });
      expect(await (await h.open()).sources.frontier('a')).toEqual([
        { url: 'https://e.com/c', depth: 0, done: false, outcome: null },
        { url: 'https://e.com/a', depth: 0, done: true, outcome: { fetched: 1, indexed: 1 } },
        { url: 'https://e.com/b', depth: 1, done: false, outcome: null },
      ]);
      await s.sources.clearFrontier('a');
      expect(await s.sources.frontier('a')).toEqual([]);
    });

    it('stores a visit at once: its page records, the urls it admitted after the frontier\'s, and the url done', async () => {
      await s.sources.insert(source('a'));
      await s.sources.insert(source('b'));
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/old', depth: 0 }, { url: 'https://e.com/x', depth: 0 }]);
      await s.sources.addToFrontier('b', [{ url: 'https://e.com/old', depth: 0 }]);
      const kept = page('https://e.com/new', { lastSeenCrawl: 2 });
      const moved = page('https://e.com/old', { status: 'duplicate', reason: 'same page as https://e.com/new', contentHash: null, lastSeenCrawl: 2 });
      await s.sources.recordVisit('a', {
        url: 'https://e.com/old', pages: [moved, kept],
        follow: [{ url: 'https://e.com/y', depth: 1 }, { url: 'https://e.com/x', depth: 1 }], outcome: { fetched: 1, skipped: 1, indexed: 1 },
      });
      expect(await s.sources.page('a', 'https://e.com/old')).toEqual(moved);
      expect(await s.sources.page('a', 'https://e.com/new')).toEqual(kept);
      expect(await s.sources.frontier('a')).toEqual([
        { url: 'https://e.com/old', depth: 0, done: true, outcome: { fetched: 1, skipped: 1, indexed: 1 } },
        { url: 'https://e.com/x', depth: 0, done: false, outcome: null },
        { url: 'https://e.com/y', depth: 1, done: false, outcome: null },
      ]);
      // The other source's frontier and pages are its own.
      expect(await s.sources.frontier('b')).toEqual([{ url: 'https://e.com/old', depth: 0, done: false, outcome: null }]);
      expect(await s.sources.pages('b')).toEqual([]);
    });

    it('a visit that cannot be stored leaves nothing of it behind', async () => {
      await s.sources.insert(source('a'));
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/a', depth: 0 }]);
      // links must serialise: a cycle makes the second page record throw, after the first was written in the transaction.
      const cyclic: unknown[] = [];
      cyclic.push(cyclic);
      const bad = page('https://e.com/b', { links: cyclic as string[] });
      await expect(s.sources.recordVisit('a', {
        url: 'https://e.com/a', pages: [page('https://e.com/a'), bad], follow: [{ url: 'https://e.com/z', depth: 1 }], outcome: { fetched: 1 },
      })).rejects.toThrow();
      expect(await s.sources.pages('a')).toEqual([]);
      expect(await s.sources.frontier('a')).toEqual([{ url: 'https://e.com/a', depth: 0, done: false, outcome: null }]);
    });

    it('finishes a crawl: older page records swept and the indexed ones counted as removed, progress written, frontier cleared', async () => {
      await s.sources.insert(source('a'));
      await s.sources.insert(source('b'));
      await s.sources.upsertPage('a', page('https://e.com/kept', { lastSeenCrawl: 3 }));
      await s.sources.upsertPage('a', page('https://e.com/gone1', { lastSeenCrawl: 2 }));
      await s.sources.upsertPage('a', page('https://e.com/gone2', { lastSeenCrawl: 1 }));
      await s.sources.upsertPage('a', page('https://e.com/failed', { lastSeenCrawl: 2, status: 'failed', reason: 'timeout' }));
      await s.sources.upsertPage('b', page('https://e.com/other', { lastSeenCrawl: 1 }));
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/kept', depth: 0 }]);
      const crawl = { ...IDLE_CRAWL, state: 'done' as const, crawl: 3, discovered: 1, fetched: 1, removed: 1, finishedAt: 5000 };
      expect(await s.sources.finishCrawl('a', crawl, 3)).toEqual({ ...crawl, removed: 3 });
      expect((await s.sources.get('a'))!.crawl).toEqual({ ...crawl, removed: 3 });
      expect((await s.sources.pages('a')).map((p) => p.url)).toEqual(['https://e.com/kept']);
      expect(await s.sources.frontier('a')).toEqual([]);
      expect((await s.sources.pages('b')).map((p) => p.url)).toEqual(['https://e.com/other']);
      // Without a sweep (the crawl stopped at max_pages) every record stays.
      await s.sources.upsertPage('a', page('https://e.com/old', { lastSeenCrawl: 1 }));
      expect(await s.sources.finishCrawl('a', { ...crawl, crawl: 4 }, null)).toEqual({ ...crawl, crawl: 4 });
      expect((await s.sources.pages('a')).map((p) => p.url)).toEqual(['https://e.com/kept', 'https://e.com/old']);
      expect(await s.sources.finishCrawl('nope', crawl, 3)).toBeNull();
    });

    it('lists the latest problem pages, bounded, newest crawl first then by url, with totals per status', async () => {
      await s.sources.insert(source('a'));
      await s.sources.insert(source('b'));
      await s.sources.upsertPage('a', page('https://e.com/ok', { lastSeenCrawl: 3 }));
      await s.sources.upsertPage('a', page('https://e.com/z-old', { status: 'failed', reason: 'timeout', lastSeenCrawl: 1 }));
      await s.sources.upsertPage('a', page('https://e.com/b', { status: 'skipped', reason: 'not html', lastSeenCrawl: 3 }));
      await s.sources.upsertPage('a', page('https://e.com/a', { status: 'duplicate', reason: 'same page as https://e.com/ok', lastSeenCrawl: 3 }));
      await s.sources.upsertPage('a', page('https://e.com/m', { status: 'failed', reason: 'not found', lastSeenCrawl: 2 }));
      await s.sources.upsertPage('b', page('https://e.com/x', { status: 'failed', reason: 'gone', lastSeenCrawl: 9 }));
      const all = await s.sources.problems('a', 100);
      expect(all.latest.map((p) => [p.url, p.status, p.reason])).toEqual([
        ['https://e.com/a', 'duplicate', 'same page as https://e.com/ok'],
        ['https://e.com/b', 'skipped', 'not html'],
        ['https://e.com/m', 'failed', 'not found'],
        ['https://e.com/z-old', 'failed', 'timeout'],
      ]);
      expect(all.totals).toEqual({ skipped: 1, failed: 2, duplicate: 1 });
      const two = await s.sources.problems('a', 2);
      expect(two.latest.map((p) => p.url)).toEqual(['https://e.com/a', 'https://e.com/b']);
      expect(two.totals).toEqual(all.totals);
      expect(await s.sources.problems('none', 10)).toEqual({ latest: [], totals: { skipped: 0, failed: 0, duplicate: 0 } });
    });

    it('deletes a source with its pages and frontier', async () => {
      await s.sources.insert(source('a'));
      await s.sources.upsertPage('a', page('https://example.com/1'));
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/x', depth: 0 }]);
      expect(await s.sources.delete('a')).toBe(true);
      expect(await s.sources.delete('a')).toBe(false);
      expect(await s.sources.get('a')).toBeNull();
      expect(await s.sources.pages('a')).toEqual([]);
      expect(await s.sources.frontier('a')).toEqual([]);
    });
  });
}
