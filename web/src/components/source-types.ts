// The admin API's website-source shapes as the source pages read them (api/schemas/source-schemas.ts; the
// server is the authority and validates every write). Written out here because the schema module pulls in
// the crawler's selector checks, which do not belong in the browser bundle; the counters are the store's own.
import type { CrawlProgress, CrawlStateName } from '../../../shared/storage/ports/source-store';
import { seg } from '../api';

export type CrawlState = CrawlStateName;

export type CrawlCounters = Pick<CrawlProgress, 'discovered' | 'fetched' | 'indexed' | 'unchanged' | 'skipped' | 'failed' | 'removed'>;

export interface CrawlView extends CrawlCounters {
  state: CrawlState;
  started_at: string | null;
  finished_at: string | null;
  last_error: string | null;
}

export interface Problem {
  url: string;
  status: 'skipped' | 'failed' | 'duplicate';
  reason: string | null;
}

/** Every setting a source has, in the body's names: what the form edits. */
export interface SourceSettings {
  start_urls: string[];
  sitemaps: string[];
  include: string[];
  exclude: string[];
  max_pages: number;
  max_depth: number;
  content_selector: string | null;
  drop_selectors: string[] | null;
  fragments: string[];
  recrawl_hours: number | null;
}

/** As `GET /v1/admin/sources` lists it: the crawl without its problems. */
export interface SourceSummary extends SourceSettings {
  uid: string;
  kind: 'website';
  index_uid: string;
  next_crawl_at: string | null;
  created_at: string;
  updated_at: string;
  crawl: CrawlView;
}

/** As `GET /v1/admin/sources/{uid}` answers. */
export interface SourceView extends SourceSummary {
  crawl: CrawlView & { problems: Problem[]; problem_totals: Record<Problem['status'], number> };
}

/** The server's defaults for a new source (docs/web-sources.md). */
export const NEW_SOURCE: SourceSettings = {
  start_urls: [], sitemaps: [], include: [], exclude: [], max_pages: 1000, max_depth: 10,
  content_selector: null, drop_selectors: null, fragments: [], recrawl_hours: null,
};

export const COUNTERS: { key: keyof CrawlCounters; label: string; hint: string }[] = [
  { key: 'discovered', label: 'Discovered', hint: 'Urls admitted to the crawl' },
  { key: 'fetched', label: 'Fetched', hint: 'Pages fetched, or checked with a 304' },
  { key: 'indexed', label: 'Indexed', hint: 'New or changed pages written to the index' },
  { key: 'unchanged', label: 'Unchanged', hint: 'Found unchanged, not written again' },
  { key: 'skipped', label: 'Skipped', hint: 'Not indexed on purpose: not html, too large, duplicate, noindex, robots.txt' },
  { key: 'failed', label: 'Failed', hint: 'Could not be fetched' },
  { key: 'removed', label: 'Removed', hint: 'Taken out of the index: gone, or no longer linked' },
];

/** A crawl waiting or under way: while one is, the pages poll every 2 s. */
export const isCrawling = (c: { state: CrawlState }) => c.state === 'queued' || c.state === 'running';

export const STATE_TONE: Record<CrawlState, string | undefined> = { idle: undefined, queued: 'warn', running: 'warn', done: 'ok', failed: 'bad' };

export const sourcePath = (uid: string) => `/v1/admin/sources/${seg(uid)}`;
