import type { CrawlProgress, FrontierEntry, PageRecord, SourceRecord, SourceStore, VisitRecord, WebsiteSettings } from '../ports/source-store.js';
import { frontierEntryOf, pageRecordOf, problemTotals, sourceRecordOf, type FrontierRow, type PageRow, type SourceRow } from '../source-rows.js';
import type { ListPage } from '../ports/list-page.js';
import { immediate, type Db } from './open-database.js';
import { uidPageParams, type UidPageParams } from './list-page-params.js';

export class SqliteSourceStore implements SourceStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      insert: db.prepare(
        `INSERT INTO sources (uid, kind, index_uid, settings, crawl, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      get: db.prepare<[string], SourceRow>(`SELECT * FROM sources WHERE uid = ?`),
      list: db.prepare<[UidPageParams], SourceRow>(`SELECT * FROM sources WHERE @after IS NULL OR uid > @after ORDER BY uid LIMIT @limit`),
      settings: db.prepare(`UPDATE sources SET settings = ?, updated_at = ? WHERE uid = ?`),
      crawl: db.prepare(`UPDATE sources SET crawl = ? WHERE uid = ?`),
      delete: db.prepare(`DELETE FROM sources WHERE uid = ?`),
      deletePages: db.prepare(`DELETE FROM source_pages WHERE source_uid = ?`),
      page: db.prepare<[string, string], PageRow>(`SELECT * FROM source_pages WHERE source_uid = ? AND url = ?`),
      pages: db.prepare<[string], PageRow>(`SELECT * FROM source_pages WHERE source_uid = ? ORDER BY url`),
      upsertPage: db.prepare(
        `INSERT INTO source_pages (source_uid, url, etag, last_modified, content_hash, status, reason, last_seen_crawl, links)
         VALUES (@sourceUid, @url, @etag, @lastModified, @contentHash, @status, @reason, @lastSeenCrawl, @links)
         ON CONFLICT (source_uid, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
           content_hash = excluded.content_hash, status = excluded.status, reason = excluded.reason, last_seen_crawl = excluded.last_seen_crawl,
           links = excluded.links`,
      ),
      deletePage: db.prepare(`DELETE FROM source_pages WHERE source_uid = ? AND url = ?`),
      // INDEXED BY: without statistics the planner would count the totals over every page of the source.
      problems: db.prepare<[string, number], PageRow>(
        `SELECT * FROM source_pages INDEXED BY source_pages_problems WHERE source_uid = ? AND status <> 'indexed' ORDER BY last_seen_crawl DESC, url LIMIT ?`,
      ),
      problemTotals: db.prepare<[string], { status: string; n: number }>(
        `SELECT status, count(*) AS n FROM source_pages INDEXED BY source_pages_problems WHERE source_uid = ? AND status <> 'indexed' GROUP BY status`,
      ),
      sweepCount: db.prepare<[string, number], { n: number }>(
        `SELECT count(*) AS n FROM source_pages WHERE source_uid = ? AND last_seen_crawl < ? AND status = 'indexed'`,
      ),
      sweep: db.prepare(`DELETE FROM source_pages WHERE source_uid = ? AND last_seen_crawl < ?`),
      addFrontier: db.prepare(`INSERT INTO source_frontier (source_uid, url, depth, done) VALUES (?, ?, ?, 0) ON CONFLICT DO NOTHING`),
      frontier: db.prepare<[string], FrontierRow>(
        `SELECT url, depth, done, outcome FROM source_frontier WHERE source_uid = ? ORDER BY seq`,
      ),
      markDone: db.prepare(`UPDATE source_frontier SET done = 1, outcome = ? WHERE source_uid = ? AND url = ?`),
      clearFrontier: db.prepare(`DELETE FROM source_frontier WHERE source_uid = ?`),
    };
  }

  async insert(s: SourceRecord) {
    this.q.insert.run(s.uid, s.kind, s.indexUid, JSON.stringify(s.settings), JSON.stringify(s.crawl), s.createdAt, s.updatedAt);
  }

  async get(uid: string) {
    const r = this.q.get.get(uid);
    return r ? sourceRecordOf(r) : null;
  }

  async list(page?: ListPage<string>) {
    return this.q.list.all(uidPageParams(page)).map(sourceRecordOf);
  }

  async replaceSettings(uid: string, settings: WebsiteSettings, updatedAt: number) {
    return this.q.settings.run(JSON.stringify(settings), updatedAt, uid).changes > 0;
  }

  async setCrawl(uid: string, crawl: CrawlProgress) {
    return this.q.crawl.run(JSON.stringify(crawl), uid).changes > 0;
  }

  async delete(uid: string) {
    return immediate(this.db, () => {
      this.q.deletePages.run(uid);
      this.q.clearFrontier.run(uid);
      return this.q.delete.run(uid).changes > 0;
    });
  }

  async page(sourceUid: string, url: string) {
    const r = this.q.page.get(sourceUid, url);
    return r ? pageRecordOf(r) : null;
  }

  async pages(sourceUid: string) {
    return this.q.pages.all(sourceUid).map(pageRecordOf);
  }

  async upsertPage(sourceUid: string, page: PageRecord) {
    this.q.upsertPage.run({ sourceUid, ...page, links: JSON.stringify(page.links) });
  }

  async deletePage(sourceUid: string, url: string) {
    this.q.deletePage.run(sourceUid, url);
  }

  async problems(sourceUid: string, limit: number) {
    return { latest: this.q.problems.all(sourceUid, limit).map(pageRecordOf), totals: problemTotals(this.q.problemTotals.all(sourceUid)) };
  }

  async addToFrontier(sourceUid: string, entries: FrontierEntry[]) {
    immediate(this.db, () => {
      for (const e of entries) this.q.addFrontier.run(sourceUid, e.url, e.depth);
    });
  }

  async frontier(sourceUid: string) {
    return this.q.frontier.all(sourceUid).map(frontierEntryOf);
  }

  async recordVisit(sourceUid: string, visit: VisitRecord) {
    immediate(this.db, () => {
      for (const page of visit.pages) this.q.upsertPage.run({ sourceUid, ...page, links: JSON.stringify(page.links) });
      for (const e of visit.follow) this.q.addFrontier.run(sourceUid, e.url, e.depth);
      this.q.markDone.run(JSON.stringify(visit.outcome), sourceUid, visit.url);
    });
  }

  async finishCrawl(sourceUid: string, crawl: CrawlProgress, sweepBefore: number | null) {
    return immediate(this.db, () => {
      let final = crawl;
      if (sweepBefore !== null) {
        final = { ...crawl, removed: crawl.removed + this.q.sweepCount.get(sourceUid, sweepBefore)!.n };
        this.q.sweep.run(sourceUid, sweepBefore);
      }
      if (this.q.crawl.run(JSON.stringify(final), sourceUid).changes === 0) return null;
      this.q.clearFrontier.run(sourceUid);
      return final;
    });
  }

  async clearFrontier(sourceUid: string) {
    this.q.clearFrontier.run(sourceUid);
  }
}
