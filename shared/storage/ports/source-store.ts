import type { ListPage } from './list-page.js';

/** What a website source crawls and keeps; the admin API's body fields, camel-cased. */
export interface WebsiteSettings {
  startUrls: string[];
  sitemaps: string[];
  include: string[];
  exclude: string[];
  maxPages: number;
  maxDepth: number;
  /** null: the extractor's default. */
  contentSelector: string | null;
  /** null: the extractor's defaults (navigation, site header and footer, scripts...). */
  dropSelectors: string[] | null;
  fragments: string[];
  /** null: crawled only when asked to. */
  recrawlHours: number | null;
}

export type CrawlStateName = 'idle' | 'queued' | 'running' | 'done' | 'failed';

/** The latest crawl of a source, kept with the source so a retried job resumes from it. */
export interface CrawlProgress {
  state: CrawlStateName;
  /** Numbers the crawls of a source; page records carry the number of the last crawl that saw them. */
  crawl: number;
  discovered: number;
  fetched: number;
  indexed: number;
  /** Fetched (or answered 304) and found unchanged: not written again. */
  unchanged: number;
  skipped: number;
  failed: number;
  /** Pages taken out of the index: gone (404/410), or not met again by a crawl that finished. */
  removed: number;
  startedAt: number | null;
  finishedAt: number | null;
  lastError: string | null;
}

export interface SourceRecord {
  uid: string;
  kind: 'website';
  /** The push index the source's pages are written to. */
  indexUid: string;
  settings: WebsiteSettings;
  crawl: CrawlProgress;
  createdAt: number;
  updatedAt: number;
}

/** One url the crawler has dealt with: what a recrawl sends as validators and compares content with. */
export interface PageRecord {
  url: string;
  etag: string | null;
  lastModified: string | null;
  /** Of the extracted text; null when the page was never indexed. */
  contentHash: string | null;
  /** `indexed` pages are in the index under their url; the rest are not. */
  status: 'indexed' | 'duplicate' | 'skipped' | 'failed';
  reason: string | null;
  lastSeenCrawl: number;
  /** Followable links of the page when last fetched: a 304 answer has no body, yet its links must be followed. */
  links: string[];
}

/** A url waiting to be fetched in the current crawl, with its link depth from a seed. */
export interface FrontierEntry {
  url: string;
  depth: number;
}

/** The counters of CrawlProgress that pages add to. */
export type CrawlCounter = 'fetched' | 'indexed' | 'unchanged' | 'skipped' | 'failed' | 'removed';

/** What dealing with one url added to the crawl's counters (absent: 0). */
export type VisitOutcome = Partial<Record<CrawlCounter, number>>;

/** One url of the frontier dealt with: everything the crawl keeps about it, stored at once. */
export interface VisitRecord {
  url: string;
  /** Page records written: the url's own and, for a redirect or canonical, the url its page is kept under. */
  pages: PageRecord[];
  /** Urls its links admitted to the crawl. */
  follow: FrontierEntry[];
  outcome: VisitOutcome;
}

/** Problem pages (not indexed) of a source: the latest few and how many there are of each status. */
export interface PageProblems {
  /** Newest crawl first, then by url. */
  latest: PageRecord[];
  totals: { skipped: number; failed: number; duplicate: number };
}

export const IDLE_CRAWL: CrawlProgress = {
  state: 'idle', crawl: 0, discovered: 0, fetched: 0, indexed: 0, unchanged: 0, skipped: 0, failed: 0, removed: 0, startedAt: null, finishedAt: null, lastError: null,
};

export interface SourceStore {
  insert(record: SourceRecord): Promise<void>;
  get(uid: string): Promise<SourceRecord | null>;
  /** By uid (code point order); a page of them after the uid `page.after`, or every source without `page`. */
  list(page?: ListPage<string>): Promise<SourceRecord[]>;
  /** Replaces settings and updatedAt (the caller merged the patch); the crawl is left as it is. False when missing. */
  replaceSettings(uid: string, settings: WebsiteSettings, updatedAt: number): Promise<boolean>;
  /** Replaces the crawl progress; false when the source is gone (deleted mid-crawl). */
  setCrawl(uid: string, crawl: CrawlProgress): Promise<boolean>;
  /** The source with its pages and frontier. */
  delete(uid: string): Promise<boolean>;

  page(sourceUid: string, url: string): Promise<PageRecord | null>;
  /** Every page record of the source, by url. */
  pages(sourceUid: string): Promise<PageRecord[]>;
  upsertPage(sourceUid: string, page: PageRecord): Promise<void>;
  deletePage(sourceUid: string, url: string): Promise<void>;
  /**
   * At most `limit` records that are not `indexed` (newest crawl first, then by url) and the count of each
   * status: read from an index of the problem pages alone, however many pages the source has.
   */
  problems(sourceUid: string, limit: number): Promise<PageProblems>;

  /** Adds urls not already in the frontier (first one wins), in order. */
  addToFrontier(sourceUid: string, entries: FrontierEntry[]): Promise<void>;
  /**
   * Every url the frontier ever held in this crawl, in the order added, with whether it was dealt with
   * and, when it was, its outcome.
   */
  frontier(sourceUid: string): Promise<(FrontierEntry & { done: boolean; outcome: VisitOutcome | null })[]>;
  /**
   * In one transaction: the visit's page records written, its links added to the frontier, and the url
   * marked done with its outcome. A crawl that dies mid-visit leaves none of it, so the url is visited
   * again from the state before, and its outcome is counted once.
   */
  recordVisit(sourceUid: string, visit: VisitRecord): Promise<void>;
  /**
   * Ends a crawl in one transaction: with `sweepBefore`, page records last seen in an older crawl are
   * deleted and those that were `indexed` added to `crawl.removed`; the crawl progress is written and the
   * frontier cleared. Returns the progress written; null when the source is gone.
   */
  finishCrawl(sourceUid: string, crawl: CrawlProgress, sweepBefore: number | null): Promise<CrawlProgress | null>;
  clearFrontier(sourceUid: string): Promise<void>;
}
