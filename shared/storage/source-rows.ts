import type { FrontierEntry, PageProblems, PageRecord, SourceRecord, VisitOutcome } from './ports/source-store.js';

/** A sources row as both adapters store it: settings and crawl as JSON text, times as ms since epoch. */
export interface SourceRow {
  uid: string;
  kind: string;
  index_uid: string;
  settings: string;
  crawl: string;
  created_at: number | string;
  updated_at: number | string;
}

export interface PageRow {
  url: string;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  status: string;
  reason: string | null;
  last_seen_crawl: number | string;
  links: string;
}

export function sourceRecordOf(r: SourceRow): SourceRecord {
  return {
    uid: r.uid,
    kind: r.kind as SourceRecord['kind'],
    indexUid: r.index_uid,
    settings: JSON.parse(r.settings),
    crawl: JSON.parse(r.crawl),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function pageRecordOf(r: PageRow): PageRecord {
  return {
    url: r.url,
    etag: r.etag,
    lastModified: r.last_modified,
    contentHash: r.content_hash,
    status: r.status as PageRecord['status'],
    reason: r.reason,
    lastSeenCrawl: Number(r.last_seen_crawl),
    links: JSON.parse(r.links),
  };
}

export interface FrontierRow {
  url: string;
  depth: number;
  done: number | boolean;
  outcome: string | null;
}

export function frontierEntryOf(r: FrontierRow): FrontierEntry & { done: boolean; outcome: VisitOutcome | null } {
  return { url: r.url, depth: r.depth, done: r.done === true || r.done === 1, outcome: r.outcome === null ? null : JSON.parse(r.outcome) };
}

export function problemTotals(rows: { status: string; n: number | string }[]): PageProblems['totals'] {
  const totals = { skipped: 0, failed: 0, duplicate: 0 };
  for (const r of rows) if (r.status in totals) totals[r.status as keyof typeof totals] = Number(r.n);
  return totals;
}
