import type pg from 'pg';
import type { CrawlProgress, FrontierEntry, PageRecord, SourceRecord, SourceStore, VisitRecord, WebsiteSettings } from '../ports/source-store.js';
import { frontierEntryOf, pageRecordOf, problemTotals, sourceRecordOf, type FrontierRow, type PageRow, type SourceRow } from '../source-rows.js';
import type { ListPage } from '../ports/list-page.js';
import { inTransaction } from './pg-transaction.js';

export class PgSourceStore implements SourceStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(s: SourceRecord) {
    await this.pool.query(
      `INSERT INTO sources (uid, kind, index_uid, settings, crawl, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [s.uid, s.kind, s.indexUid, JSON.stringify(s.settings), JSON.stringify(s.crawl), s.createdAt, s.updatedAt],
    );
  }

  async get(uid: string) {
    const { rows } = await this.pool.query<SourceRow>(`SELECT * FROM sources WHERE uid = $1`, [uid]);
    return rows[0] ? sourceRecordOf(rows[0]) : null;
  }

  async list(page?: ListPage<string>) {
    const { rows } = await this.pool.query<SourceRow>(
      `SELECT * FROM sources WHERE $2::text IS NULL OR uid > $2 ORDER BY uid LIMIT $1`, [page?.limit ?? null, page?.after ?? null]);
    return rows.map(sourceRecordOf);
  }

  async replaceSettings(uid: string, settings: WebsiteSettings, updatedAt: number) {
    const r = await this.pool.query(`UPDATE sources SET settings = $1, updated_at = $2 WHERE uid = $3`, [JSON.stringify(settings), updatedAt, uid]);
    return (r.rowCount ?? 0) > 0;
  }

  async setCrawl(uid: string, crawl: CrawlProgress) {
    return ((await this.pool.query(`UPDATE sources SET crawl = $1 WHERE uid = $2`, [JSON.stringify(crawl), uid])).rowCount ?? 0) > 0;
  }

  async delete(uid: string) {
    return inTransaction(this.pool, async (c) => {
      await c.query(`DELETE FROM source_pages WHERE source_uid = $1`, [uid]);
      await c.query(`DELETE FROM source_frontier WHERE source_uid = $1`, [uid]);
      return ((await c.query(`DELETE FROM sources WHERE uid = $1`, [uid])).rowCount ?? 0) > 0;
    });
  }

  async page(sourceUid: string, url: string) {
    const { rows } = await this.pool.query<PageRow>(`SELECT * FROM source_pages WHERE source_uid = $1 AND url = $2`, [sourceUid, url]);
    return rows[0] ? pageRecordOf(rows[0]) : null;
  }

  async pages(sourceUid: string) {
    return (await this.pool.query<PageRow>(`SELECT * FROM source_pages WHERE source_uid = $1 ORDER BY url`, [sourceUid])).rows.map(pageRecordOf);
  }

  async upsertPage(sourceUid: string, p: PageRecord) {
    await upsertPages(this.pool, sourceUid, [p]);
  }

  async deletePage(sourceUid: string, url: string) {
    await this.pool.query(`DELETE FROM source_pages WHERE source_uid = $1 AND url = $2`, [sourceUid, url]);
  }

  async problems(sourceUid: string, limit: number) {
    const [latest, totals] = await Promise.all([
      this.pool.query<PageRow>(
        `SELECT * FROM source_pages WHERE source_uid = $1 AND status <> 'indexed' ORDER BY last_seen_crawl DESC, url LIMIT $2`, [sourceUid, limit]),
      this.pool.query<{ status: string; n: string }>(
        `SELECT status, count(*) AS n FROM source_pages WHERE source_uid = $1 AND status <> 'indexed' GROUP BY status`, [sourceUid]),
    ]);
    return { latest: latest.rows.map(pageRecordOf), totals: problemTotals(totals.rows) };
  }

  async addToFrontier(sourceUid: string, entries: FrontierEntry[]) {
    await addToFrontier(this.pool, sourceUid, entries);
  }

  async frontier(sourceUid: string) {
    const { rows } = await this.pool.query<FrontierRow>(
      `SELECT url, depth, done, outcome FROM source_frontier WHERE source_uid = $1 ORDER BY seq`, [sourceUid]);
    return rows.map(frontierEntryOf);
  }

  async recordVisit(sourceUid: string, visit: VisitRecord) {
    await inTransaction(this.pool, async (c) => {
      await upsertPages(c, sourceUid, visit.pages);
      await addToFrontier(c, sourceUid, visit.follow);
      await c.query(`UPDATE source_frontier SET done = true, outcome = $1 WHERE source_uid = $2 AND url = $3`, [JSON.stringify(visit.outcome), sourceUid, visit.url]);
    });
  }

  async finishCrawl(sourceUid: string, crawl: CrawlProgress, sweepBefore: number | null) {
    return inTransaction(this.pool, async (c) => {
      let final = crawl;
      if (sweepBefore !== null) {
        const { rows } = await c.query<{ n: string }>(
          `WITH gone AS (DELETE FROM source_pages WHERE source_uid = $1 AND last_seen_crawl < $2 RETURNING status)
           SELECT count(*) FILTER (WHERE status = 'indexed') AS n FROM gone`, [sourceUid, sweepBefore]);
        final = { ...crawl, removed: crawl.removed + Number(rows[0].n) };
      }
      if (((await c.query(`UPDATE sources SET crawl = $1 WHERE uid = $2`, [JSON.stringify(final), sourceUid])).rowCount ?? 0) === 0) return null;
      await c.query(`DELETE FROM source_frontier WHERE source_uid = $1`, [sourceUid]);
      return final;
    });
  }

  async clearFrontier(sourceUid: string) {
    await this.pool.query(`DELETE FROM source_frontier WHERE source_uid = $1`, [sourceUid]);
  }
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

async function upsertPages(db: Queryable, sourceUid: string, pages: PageRecord[]) {
  for (const p of pages) {
    await db.query(
      `INSERT INTO source_pages (source_uid, url, etag, last_modified, content_hash, status, reason, last_seen_crawl, links)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (source_uid, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
         content_hash = excluded.content_hash, status = excluded.status, reason = excluded.reason, last_seen_crawl = excluded.last_seen_crawl,
         links = excluded.links`,
      [sourceUid, p.url, p.etag, p.lastModified, p.contentHash, p.status, p.reason, p.lastSeenCrawl, JSON.stringify(p.links)],
    );
  }
}

async function addToFrontier(db: Queryable, sourceUid: string, entries: FrontierEntry[]) {
  if (entries.length === 0) return;
  // unnest WITH ORDINALITY keeps the given order in seq, so the frontier is read back breadth first.
  await db.query(
    `INSERT INTO source_frontier (source_uid, url, depth, done)
     SELECT $1, u, d, false FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS x(u, d, o) ORDER BY o
     ON CONFLICT DO NOTHING`,
    [sourceUid, entries.map((e) => e.url), entries.map((e) => e.depth)],
  );
}
