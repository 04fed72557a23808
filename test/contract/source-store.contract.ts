import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDLE_CRAWL, type PageRecord, type SourceRecord } from '../../shared/storage/ports/source-store.js';
import type { Storage } from '../../shared/storage/ports/storage.js';
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
    let s: Storage;

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

    it('keeps the frontier in the order added, each url once, with what was done', async () => {
      await s.sources.insert(source('a'));
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/c', depth: 0 }, { url: 'https://e.com/a', depth: 0 }]);
      await s.sources.addToFrontier('a', [{ url: 'https://e.com/b', depth: 1 }, { url: 'https://e.com/a', depth: 1 }]);
      await s.sources.addToFrontier('a', []);
      await s.sources.markDone('a', 'https://e.com/a');
      expect(await (await h.open()).sources.frontier('a')).toEqual([
        { url: 'https://e.com/c', depth: 0, done: false },
        { url: 'https://e.com/a', depth: 0, done: true },
        { url: 'https://e.com/b', depth: 1, done: false },
      ]);
      await s.sources.clearFrontier('a');
      expect(await s.sources.frontier('a')).toEqual([]);
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
