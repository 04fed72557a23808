import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { z } from 'zod';
import { isLocalhostName, isPublicAddress } from '../../shared/crawl/public-address.js';
import { nextCrawlDue } from '../../shared/crawl/recrawl-schedule.js';
import { AppError } from '../../shared/errors/app-error.js';
import { queueCrawl, type CrawlQueue } from '../../shared/jobs/crawl-queue.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { IDLE_CRAWL, type PageProblems, type SourceRecord, type WebsiteSettings } from '../../shared/storage/ports/source-store.js';
import type { ListPage } from '../../shared/storage/ports/list-page.js';
import type { createSourceSchema, updateSourceSchema } from '../schemas/source-schemas.js';
import type { IndexService } from './index-service.js';
import type { PushService } from './push-service.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** How long creating or editing a source waits for its seed hosts' addresses. */
const LOOKUP_DEADLINE_MS = 1000;

/** A source's pages go to an index of its own, named after it. */
export const sourceIndexUid = (uid: string) => `source-${uid}`;

/** The language the source's index analyses text in; its index can be switched like any other. */
const SOURCE_LANGUAGE = 'en';
/** Problem pages a source's view lists (the latest crawl's first); `problem_totals` counts them all. */
const PROBLEMS_SHOWN = 100;
const NO_PROBLEMS: PageProblems = { latest: [], totals: { skipped: 0, failed: 0, duplicate: 0 } };

type CreateBody = z.output<typeof createSourceSchema>;
type UpdateBody = z.output<typeof updateSourceSchema>;

/** Website sources: their settings, their own push index, and starting their crawls. */
export class SourceService {
  constructor(
    private readonly storage: Storage,
    private readonly indexes: IndexService,
    private readonly push: PushService,
    private readonly crawls: CrawlQueue,
    private readonly options: { allowPrivate: boolean },
  ) {}

  async create(body: CreateBody): Promise<SourceRecord> {
    if (await this.storage.sources.get(body.uid)) throw new AppError('conflict', `Source '${body.uid}' already exists; change it with PATCH /v1/admin/sources/${body.uid}`);
    const settings = settingsOf(body);
    await this.checkAddresses(settings);
    const { index } = await this.indexes.createPushIndex(sourceIndexUid(body.uid), SOURCE_LANGUAGE);
    const now = Date.now();
    const record: SourceRecord = { uid: body.uid, kind: 'website', indexUid: index.uid, settings, crawl: IDLE_CRAWL, createdAt: now, updatedAt: now };
    await this.storage.sources.insert(record);
    return record;
  }

  async get(uid: string): Promise<SourceRecord> {
    const source = await this.storage.sources.get(uid);
    if (!source) throw new AppError('not_found', `Source '${uid}' does not exist`);
    return source;
  }

  async update(uid: string, patch: UpdateBody): Promise<SourceRecord> {
    const source = await this.get(uid);
    const s = source.settings;
    const settings: WebsiteSettings = {
      startUrls: patch.start_urls ?? s.startUrls,
      sitemaps: patch.sitemaps ?? s.sitemaps,
      include: patch.include ?? s.include,
      exclude: patch.exclude ?? s.exclude,
      maxPages: patch.max_pages ?? s.maxPages,
      maxDepth: patch.max_depth ?? s.maxDepth,
      contentSelector: patch.content_selector === undefined ? s.contentSelector : patch.content_selector,
      dropSelectors: patch.drop_selectors === undefined ? s.dropSelectors : patch.drop_selectors,
      fragments: patch.fragments ?? s.fragments,
      recrawlHours: patch.recrawl_hours === undefined ? s.recrawlHours : patch.recrawl_hours,
    };
    if (settings.startUrls.length + settings.sitemaps.length === 0) {
      throw new AppError('invalid_request', 'Invalid request: start_urls: give at least one of start_urls or sitemaps');
    }
    await this.checkAddresses(settings);
    const now = Date.now();
    if (!(await this.storage.sources.replaceSettings(uid, settings, now))) throw new AppError('not_found', `Source '${uid}' does not exist`);
    return { ...source, settings, updatedAt: now };
  }

  /** The source, its page records and its pages in its index; the (then empty) index stays. */
  async delete(uid: string): Promise<void> {
    const source = await this.get(uid);
    const index = await this.storage.indexes.get(source.indexUid);
    if (index) {
      const indexed = (await this.storage.sources.pages(uid)).filter((p) => p.status === 'indexed');
      await Promise.all(indexed.map((p) => this.push.delete(index, p.url)));
    }
    await this.storage.sources.delete(uid);
  }

  /** Queues a crawl; a crawl already queued or running is left to finish and reported as it is. */
  async startCrawl(uid: string): Promise<SourceRecord> {
    const queued = await queueCrawl(this.storage.sources, this.crawls, await this.get(uid));
    if (!queued) throw new AppError('not_found', `Source '${uid}' does not exist`);
    return queued;
  }

  /** A page of sources by uid, as the list shows them: without `problems` and their totals, a query per source. */
  async list(page: ListPage<string>) {
    return (await this.storage.sources.list(page)).map((source) => {
      const view = this.summary(source, NO_PROBLEMS);
      const { problems: _, problem_totals: __, ...crawl } = view.crawl;
      return { ...view, crawl };
    });
  }

  async view(source: SourceRecord) {
    return this.summary(source, await this.storage.sources.problems(source.uid, PROBLEMS_SHOWN));
  }

  private summary(source: SourceRecord, problems: PageProblems) {
    const { settings: s, crawl: c } = source;
    return {
      uid: source.uid,
      kind: source.kind,
      index_uid: source.indexUid,
      start_urls: s.startUrls,
      sitemaps: s.sitemaps,
      include: s.include,
      exclude: s.exclude,
      max_pages: s.maxPages,
      max_depth: s.maxDepth,
      content_selector: s.contentSelector,
      drop_selectors: s.dropSelectors,
      fragments: s.fragments,
      recrawl_hours: s.recrawlHours,
      next_crawl_at: iso(nextCrawlDue(source)),
      created_at: iso(source.createdAt)!,
      updated_at: iso(source.updatedAt)!,
      crawl: {
        state: c.state,
        discovered: c.discovered,
        fetched: c.fetched,
        indexed: c.indexed,
        unchanged: c.unchanged,
        skipped: c.skipped,
        failed: c.failed,
        removed: c.removed,
        started_at: iso(c.startedAt),
        finished_at: iso(c.finishedAt),
        last_error: c.lastError,
        problems: problems.latest.map((p) => ({ url: p.url, status: p.status as keyof PageProblems['totals'], reason: p.reason })),
        problem_totals: problems.totals,
      },
    };
  }

  /**
   * Refuses seeds on private and loopback addresses up front (the crawler refuses them again at
   * every fetch). A host that does not resolve yet is let through: the crawl will report it.
   */
  /**
   * Refuses seeds whose host resolves to a private address, looking every host up at once under one deadline:
   * one at a time, 100 hosts that do not resolve held the request for 15 s. A host not resolved in time is left to
   * the crawler, which checks every address it connects to anyway.
   */
  private async checkAddresses(settings: WebsiteSettings): Promise<void> {
    if (this.options.allowPrivate) return;
    const seeds = [...settings.startUrls.map((u, i) => [`start_urls.${i}`, u]), ...settings.sitemaps.map((u, i) => [`sitemaps.${i}`, u])];
    const deadline = new Promise<null>((resolve) => setTimeout(resolve, LOOKUP_DEADLINE_MS, null).unref());
    const resolved = await Promise.all(seeds.map(async ([field, url]) => {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      const addresses = isIP(host)
        ? [host]
        : isLocalhostName(host)
          ? ['127.0.0.1']
          : await Promise.race([lookup(host, { all: true }).then((all) => all.map((a) => a.address), () => null), deadline]);
      return { field, url, addresses: addresses ?? [] };
    }));
    const refused = resolved.find((r) => r.addresses.some((a) => !isPublicAddress(a)));
    if (refused) {
      throw new AppError('invalid_request', `Invalid request: ${refused.field}: ${refused.url} is on a private or loopback address, which the crawler refuses unless the operator sets QUARRY_CRAWL_ALLOW_PRIVATE=true`);
    }
  }
}

function settingsOf(b: CreateBody): WebsiteSettings {
  return {
    startUrls: b.start_urls,
    sitemaps: b.sitemaps,
    include: b.include,
    exclude: b.exclude,
    maxPages: b.max_pages,
    maxDepth: b.max_depth,
    contentSelector: b.content_selector,
    dropSelectors: b.drop_selectors,
    fragments: b.fragments,
    recrawlHours: b.recrawl_hours,
  };
}
