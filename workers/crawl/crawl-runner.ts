import type { Logger } from 'pino';
import { extractPage, type ExtractedPage } from '../../shared/crawl/extract-page.js';
import { fetchPage, type FetchPageResult } from '../../shared/crawl/fetch-page.js';
import { HostLimiter, type HostLimiterOptions } from '../../shared/crawl/host-limiter.js';
import { RobotsCache } from '../../shared/crawl/robots.js';
import { readSitemaps } from '../../shared/crawl/sitemaps.js';
import { contentHash, CrawlPolicy, normalizeUrl } from '../../shared/crawl/url-policy.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import type { CrawlPayload } from '../../shared/jobs/crawl-queue.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { CrawlCounter, CrawlProgress, FrontierEntry, PageRecord, SourceRecord, VisitOutcome } from '../../shared/storage/ports/source-store.js';
import type { SourcePages } from './source-pages.js';

export interface CrawlRunnerOptions {
  userAgent: string;
  allowPrivate: boolean;
  /** Pages in flight at once over all hosts (the host limiter still holds each host to its own limit). */
  parallel?: number;
  hostLimits?: HostLimiterOptions;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface CrawlDeps {
  storage: Storage;
  pages: SourcePages;
  log: Logger;
  /** Aborted when the worker shuts down: the crawl stops after the pages in flight and throws CrawlPaused. */
  signal?: AbortSignal;
}

/** Stops a crawl whose source was deleted, or whose crawl number moved on, while it ran. */
class Superseded extends Error {}

/** The crawl stopped for a shutdown with its frontier saved; the next attempt resumes it. */
export class CrawlPaused extends Error {
  constructor() {
    super('crawl paused for a worker shutdown');
  }
}

const MAX_TITLE = 4096;
/** Document uids are at most 512 characters (API.md); longer urls are skipped rather than renamed. */
const MAX_UID = 512;
const DEFAULT_PARALLEL = 8;

/**
 * One crawl of one source, resumable: every url admitted is in the stored frontier before it is
 * fetched. A url's page records, the links it admitted and its outcome are stored in one transaction
 * after its document write (recordVisit), so a retried job skips what was done and redoes at most the
 * pages in flight when the worker died, from the records as they were before them (their document
 * writes are idempotent). The counters are the sum of the stored outcomes: each url counts once.
 */
export async function runCrawl(payload: CrawlPayload, deps: CrawlDeps, options: CrawlRunnerOptions): Promise<void> {
  const { storage } = deps;
  const store = storage.sources;
  const source = await store.get(payload.sourceUid);
  if (!source || source.crawl.crawl !== payload.crawl || source.crawl.state === 'done') return;
  const n = payload.crawl;
  const resuming = source.crawl.state === 'running';
  const progress: CrawlProgress = resuming ? { ...source.crawl } : { ...source.crawl, state: 'running', startedAt: Date.now(), finishedAt: null, lastError: null };
  if (!resuming) await store.clearFrontier(source.uid);
  const save = async () => {
    if (!(await store.setCrawl(source.uid, progress))) throw new Superseded();
  };
  await save();
  const index = await storage.indexes.get(source.indexUid);
  if (!index) throw new Error(`the source's index '${source.indexUid}' does not exist`);

  const s = source.settings;
  const fetchOptions = { userAgent: options.userAgent, allowPrivate: options.allowPrivate, timeoutMs: options.timeoutMs };
  const limiter = new HostLimiter(options.hostLimits);
  const robots = new RobotsCache(fetchOptions, limiter);
  const policy = new CrawlPolicy({ seeds: [...s.startUrls, ...s.sitemaps], include: s.include, exclude: s.exclude, maxPages: s.maxPages, maxDepth: s.maxDepth });
  const pending: FrontierEntry[] = [];
  /** Sitemap lastmod per url (lost on a resume, which then just fetches). */
  const lastmods = new Map<string, string>();

  const stored = await store.frontier(source.uid);
  if (stored.length > 0) {
    // Resume: the policy learns again what this crawl admitted and kept before the worker stopped, and the
    // counters are what the urls dealt with added (whatever the dead attempt saved, pages in flight included).
    Object.assign(progress, { discovered: stored.length, fetched: 0, indexed: 0, unchanged: 0, skipped: 0, failed: 0, removed: 0 });
    for (const e of stored) {
      policy.admit(e.url, e.depth);
      if (!e.done) pending.push({ url: e.url, depth: e.depth });
      if (e.outcome) addOutcome(progress, e.outcome);
    }
    for (const p of await store.pages(source.uid)) {
      if (p.lastSeenCrawl === n && p.status === 'indexed' && p.contentHash) policy.collapse({ finalUrl: p.url, canonical: null, contentHash: p.contentHash });
    }
  } else {
    const seeds: FrontierEntry[] = s.startUrls.map((url) => ({ url, depth: 0 }));
    const sitemaps = await sitemapsToRead(s, robots);
    if (sitemaps.length > 0) {
      const { entries, errors } = await readSitemaps(sitemaps, { ...fetchOptions, limiter });
      for (const e of errors) deps.log.warn({ source: source.uid, sitemap: e.url, reason: e.reason }, 'sitemap not read');
      seeds.push(...entries.map((e) => ({ url: e.url, depth: 0 })));
      for (const e of entries) {
        const url = normalizeUrl(e.url);
        if (url && e.lastmod) lastmods.set(url, e.lastmod);
      }
    }
    const admitted = admitAll(policy, seeds);
    await store.addToFrontier(source.uid, admitted);
    pending.push(...admitted);
    progress.discovered += admitted.length;
    await save();
  }

  const crawlPage = async ({ url, depth }: FrontierEntry) => {
    const v = await visit(url, { source, index, n, policy, robots, limiter, fetchOptions, options, deps, lastmod: lastmods.get(url) ?? null });
    const follow = admitAll(policy, v.links.map((link) => ({ url: link, depth: depth + 1 })));
    await store.recordVisit(source.uid, { url, pages: v.pages, follow, outcome: v.outcome });
    // Counted only once stored: a page in flight when the worker dies counts when it is redone.
    pending.push(...follow);
    progress.discovered += follow.length;
    addOutcome(progress, v.outcome);
    await save();
  };

  // A fixed number of lanes pull from the shared frontier; a lane that finds it empty ends only when
  // no other lane can add to it any more.
  let active = 0;
  // One lane failing stops the others, so a retried attempt never runs beside leftovers of this one.
  let stopped = false;
  const lane = async (): Promise<void> => {
    while (!stopped && !deps.signal?.aborted) {
      const next = pending.shift();
      if (!next) {
        if (active === 0) return;
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      active++;
      try {
        await crawlPage(next);
      } catch (err) {
        stopped = true;
        throw err;
      } finally {
        active--;
      }
    }
  };
  try {
    const lanes = await Promise.allSettled(Array.from({ length: options.parallel ?? DEFAULT_PARALLEL }, lane));
    const failure = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failure) throw failure.reason;
    if (deps.signal?.aborted) throw new CrawlPaused();
    // Pages not met again are gone from the site, unless the page limit cut this crawl short. Their documents
    // go first (again, harmlessly, on a resume); their records go, and are counted, with the crawl's end.
    const sweep = policy.admittedCount < s.maxPages;
    if (sweep) {
      for (const p of await store.pages(source.uid)) {
        if (p.lastSeenCrawl < n && p.status === 'indexed') await deps.pages.delete(index, p.url);
      }
    }
    if (!(await store.finishCrawl(source.uid, { ...progress, state: 'done', finishedAt: Date.now() }, sweep ? n : null))) throw new Superseded();
  } catch (err) {
    if (err instanceof Superseded) return;
    throw err;
  }
}

/**
 * The source's sitemaps and those named by the robots.txt of its start urls' origins, each once. A
 * robots.txt sitemap off the crawl's hosts is not read, so a robots.txt never sends the crawl to a
 * host the source does not name.
 */
async function sitemapsToRead(s: SourceRecord['settings'], robots: RobotsCache): Promise<string[]> {
  const normalized = (urls: string[]) => urls.map((u) => normalizeUrl(u)).filter((u): u is string => u !== null);
  const hosts = new Set(normalized([...s.startUrls, ...s.sitemaps]).map((u) => new URL(u).host));
  const origins = new Set(normalized(s.startUrls).map((u) => new URL(u).origin));
  const named = (await Promise.all([...origins].map(async (origin) => (await robots.rulesFor(origin)).sitemaps))).flat();
  return [...new Set([...normalized(s.sitemaps), ...normalized(named).filter((u) => hosts.has(new URL(u).host))])];
}

function addOutcome(progress: CrawlProgress, outcome: VisitOutcome): void {
  for (const [counter, n] of Object.entries(outcome) as [CrawlCounter, number][]) progress[counter] += n;
}

function admitAll(policy: CrawlPolicy, entries: FrontierEntry[]): FrontierEntry[] {
  const out: FrontierEntry[] = [];
  for (const e of entries) {
    const url = policy.admit(e.url, e.depth);
    if (url) out.push({ url, depth: e.depth });
  }
  return out;
}

interface VisitContext {
  source: SourceRecord;
  index: IndexRecord;
  n: number;
  policy: CrawlPolicy;
  robots: RobotsCache;
  limiter: HostLimiter;
  fetchOptions: { userAgent: string; allowPrivate: boolean; timeoutMs?: number };
  options: CrawlRunnerOptions;
  deps: CrawlDeps;
  /** The url's sitemap lastmod (ISO 8601), if a sitemap gave one. */
  lastmod: string | null;
}

/** What one url came to: the page records to store, what it added to the counters, the links to follow. */
interface Visit {
  pages: PageRecord[];
  outcome: VisitOutcome;
  links: string[];
}

/**
 * Fetches, extracts and indexes one url. Documents are written (and deleted) here; the page records are
 * returned, to be stored with the url's outcome at once.
 */
async function visit(url: string, c: VisitContext): Promise<Visit> {
  const { source, n, deps } = c;
  const store = deps.storage.sources;
  const v: Visit = { pages: [], outcome: {}, links: [] };
  const count = (counter: CrawlCounter) => (v.outcome[counter] = (v.outcome[counter] ?? 0) + 1);
  const record = (status: PageRecord['status'], reason: string | null, over: Partial<PageRecord> = {}) =>
    v.pages.push({ url, etag: null, lastModified: null, contentHash: null, status, reason, lastSeenCrawl: n, links: [], ...over });
  // Kept already by this crawl, under its own url, as the target of another url's redirect or canonical.
  if (c.policy.isKept(url)) return v;
  const previous = await store.page(source.uid, url);
  // A page leaving the index (gone, now skipped, now a duplicate) takes its document with it.
  const unindex = async () => {
    if (previous?.status === 'indexed') {
      await deps.pages.delete(c.index, url);
      count('removed');
    }
  };
  const skip = async (reason: string) => {
    count('skipped');
    await unindex();
    record('skipped', reason);
    return v;
  };

  if (url.length > MAX_UID) return skip('url longer than 512 characters');
  if (!(await c.robots.isAllowed(url))) return skip('disallowed by robots.txt');
  // A sitemap saying the page has not changed since the copy we indexed spares even the conditional request.
  const unchangedPerSitemap = previous?.status === 'indexed' && previous.lastModified !== null && c.lastmod !== null
    && Date.parse(c.lastmod) <= Date.parse(previous.lastModified);
  const validators = previous?.status === 'indexed' ? { etag: previous.etag, lastModified: previous.lastModified } : {};
  const result: FetchPageResult = unchangedPerSitemap
    ? { kind: 'notModified', finalUrl: url }
    : await c.limiter.run(url, () => fetchPage(url, { ...c.fetchOptions, maxBytes: c.options.maxBytes, ...validators }));

  if (result.kind === 'notModified') {
    if (previous?.status !== 'indexed') {
      // A 304 to a request without validators: a broken server; nothing to keep.
      count('failed');
      record('failed', 'http 304 to an unconditional request');
      return v;
    }
    if (!unchangedPerSitemap) count('fetched');
    v.links = previous.links;
    // Kept as before, so later copies of it under other urls are duplicates; unless this crawl already kept a copy.
    const kept = previous.contentHash ? c.policy.collapse({ finalUrl: url, canonical: null, contentHash: previous.contentHash }) : null;
    if (kept?.kind === 'duplicate' && kept.of !== url) {
      count('skipped');
      await unindex();
      v.pages.push({ ...previous, contentHash: null, status: 'duplicate', reason: `same page as ${kept.of}`, lastSeenCrawl: n });
      return v;
    }
    count('unchanged');
    v.pages.push({ ...previous, lastSeenCrawl: n });
    return v;
  }
  if (result.kind === 'skipped') return skip(result.reason);
  if (result.kind === 'failed') {
    count('failed');
    if (result.status === 404 || result.status === 410) {
      await unindex();
      record('failed', result.reason);
    } else if (previous?.status === 'indexed') {
      // A passing error (timeout, 503) keeps the last good copy in the index until the page is really gone.
      v.pages.push({ ...previous, reason: result.reason, lastSeenCrawl: n });
    } else {
      record('failed', result.reason);
    }
    return v;
  }

  count('fetched');
  const page = extractPage(result.html, result.finalUrl, {
    contentSelector: source.settings.contentSelector ?? undefined,
    dropSelectors: source.settings.dropSelectors ?? undefined,
    fragments: source.settings.fragments,
  });
  v.links = page.links;
  const validatorsNow = { etag: result.etag, lastModified: result.lastModified, links: page.links };
  if (page.noindex) {
    count('skipped');
    await unindex();
    record('skipped', 'noindex', validatorsNow);
    return v;
  }
  const hash = pageHash(page);
  const kept = c.policy.collapse({ finalUrl: result.finalUrl, canonical: page.canonical, contentHash: hash });
  if (kept.kind === 'outOfScope') {
    v.links = [];
    return skip('redirected out of scope');
  }
  // Another lane kept this very page meanwhile (a redirect or canonical to it): its records are that lane's.
  if (kept.kind === 'duplicate' && kept.of === url) return v;
  if (kept.kind === 'duplicate' || kept.url !== url) {
    // Kept under another url (a duplicate, a redirect or a canonical): this url holds no document.
    const of = kept.kind === 'duplicate' ? kept.of : kept.url;
    count('skipped');
    await unindex();
    record('duplicate', `same page as ${of}`, validatorsNow);
    if (kept.kind === 'duplicate') return v;
  }
  const keptUrl = kept.kind === 'unique' ? kept.url : url;
  if (keptUrl.length > MAX_UID) return v;
  const keptPrevious = keptUrl === url ? previous : await store.page(source.uid, keptUrl);
  if (keptPrevious?.status === 'indexed' && keptPrevious.contentHash === hash) {
    count('unchanged');
  } else {
    try {
      await index(c, keptUrl, page, result);
    } catch (err) {
      // A page the store refuses (fragments over the metadata limit) fails alone, not the crawl.
      if (!(err instanceof AppError) || err.kind !== 'invalid_document') throw err;
      count('failed');
      v.pages.push({ url: keptUrl, etag: null, lastModified: null, contentHash: null, status: 'failed', reason: err.message, lastSeenCrawl: n, links: page.links });
      return v;
    }
    count('indexed');
  }
  v.pages.push({ url: keptUrl, status: 'indexed', reason: null, contentHash: hash, lastSeenCrawl: n, ...validatorsNow });
  return v;
}

/** What decides whether a page changed: its text, title and fragments (whitespace runs count as one space). */
function pageHash(page: ExtractedPage): string {
  return contentHash(`${page.title}\n${page.text}\n${JSON.stringify(page.fragments)}`);
}

async function index(c: VisitContext, uid: string, page: ExtractedPage, fetched: Extract<FetchPageResult, { kind: 'fetched' }>) {
  const lastModified = fetched.lastModified ? new Date(fetched.lastModified) : null;
  const doc = {
    title: (page.title || uid).slice(0, MAX_TITLE),
    content: page.contentHtml,
    source_url: uid,
    last_modified: lastModified && !Number.isNaN(lastModified.getTime()) ? lastModified.toISOString() : null,
  };
  await c.deps.pages.upsert(c.index, uid, doc, c.source.settings.fragments.length > 0 ? page.fragments : undefined);
}
