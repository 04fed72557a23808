import { z } from 'zod';
import { checkSelector } from '../../shared/crawl/extract-page.js';
import { normalizeUrl } from '../../shared/crawl/url-policy.js';
import { nextCursorSchema, pageQuerySchema, uidCursor } from './list-page.js';

const crawlUrl = z.string().max(2048).refine((u) => normalizeUrl(u) !== null && /^https?:\/\//i.test(u.trim()), {
  message: 'must be an absolute http(s) URL without a user name or password',
});

const selector = z.string().trim().min(1, 'must not be empty').max(1000).superRefine((css, ctx) => {
  const problem = checkSelector(css);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const pattern = z.string().trim().min(1, 'must not be empty').max(1000)
  .describe('A glob: `*` matches any run of characters; starting with `/` it is matched against path and query, else against the whole url');

const settings = {
  start_urls: z.array(crawlUrl).max(100).describe('Pages the crawl starts from and follows links of'),
  sitemaps: z.array(crawlUrl).max(100).describe('Sitemaps or sitemap indexes whose pages are crawled'),
  include: z.array(pattern).max(100).describe('With patterns here, a url must match one to be crawled'),
  exclude: z.array(pattern).max(100).describe('A url matching any of these is never fetched'),
  max_pages: z.number().int('must be a whole number').min(1, 'must be from 1 to 100000').max(100_000, 'must be from 1 to 100000'),
  max_depth: z.number().int('must be a whole number').min(0, 'must be from 0 to 100').max(100, 'must be from 0 to 100'),
  content_selector: selector.nullable().describe('CSS alternatives for the main content, first match wins; default `main, article, body`'),
  drop_selectors: z.array(selector).max(100).nullable().describe('Elements removed before the content is taken; default: navigation, site header and footer, scripts, forms...'),
  fragments: z.array(selector).max(20).describe('CSS selectors whose matches are kept as node trees and returned as `metadata`'),
  recrawl_hours: z.number().int('must be a whole number').min(1, 'must be from 1 to 8760').max(8760, 'must be from 1 to 8760').nullable()
    .describe('Crawl again this long after the last crawl finished; null: only when asked'),
};

/** Room for the `source-` prefix of the source's own index uid. */
export const sourceUidSchema = z.string().regex(/^[A-Za-z0-9_-]{1,57}$/, 'use 1-57 letters, digits, hyphens or underscores');

const needsSeed = (b: { start_urls?: string[]; sitemaps?: string[] }) => (b.start_urls?.length ?? 0) + (b.sitemaps?.length ?? 0) > 0;
const SEED_MESSAGE = { message: 'give at least one of start_urls or sitemaps', path: ['start_urls'] };

export const createSourceSchema = z.strictObject({
  uid: sourceUidSchema,
  kind: z.literal('website', { error: "must be 'website' (the only kind of source so far)" }),
  start_urls: settings.start_urls.default([]),
  sitemaps: settings.sitemaps.default([]),
  include: settings.include.default([]),
  exclude: settings.exclude.default([]),
  max_pages: settings.max_pages.default(1000),
  max_depth: settings.max_depth.default(10),
  content_selector: settings.content_selector.default(null),
  drop_selectors: settings.drop_selectors.default(null),
  fragments: settings.fragments.default([]),
  recrawl_hours: settings.recrawl_hours.default(null),
}).refine(needsSeed, SEED_MESSAGE);

export const updateSourceSchema = z.strictObject({
  start_urls: settings.start_urls.optional(),
  sitemaps: settings.sitemaps.optional(),
  include: settings.include.optional(),
  exclude: settings.exclude.optional(),
  max_pages: settings.max_pages.optional(),
  max_depth: settings.max_depth.optional(),
  content_selector: settings.content_selector.optional(),
  drop_selectors: settings.drop_selectors.optional(),
  fragments: settings.fragments.optional(),
  recrawl_hours: settings.recrawl_hours.optional(),
});

export const crawlViewSchema = z.object({
  state: z.enum(['idle', 'queued', 'running', 'done', 'failed']),
  discovered: z.number().int().describe('Urls admitted to the crawl'),
  fetched: z.number().int().describe('Pages fetched (a 304 counts: the page was checked)'),
  indexed: z.number().int().describe('Pages written to the index, new or changed'),
  unchanged: z.number().int().describe('Pages found unchanged (304, or the same content): not written again'),
  skipped: z.number().int().describe('Urls not indexed on purpose: not html, too large, duplicate, noindex, disallowed by robots.txt'),
  failed: z.number().int().describe('Urls that could not be fetched (timeout, http errors, not found, gone)'),
  removed: z.number().int().describe('Pages taken out of the index: gone (404/410) or no longer linked or listed after a finished crawl'),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  last_error: z.string().nullable(),
  problems: z.array(z.object({ url: z.string(), status: z.enum(['skipped', 'failed', 'duplicate']), reason: z.string().nullable() }))
    .describe('The latest 100 urls of the source that were skipped, failed or collapsed as duplicates, with the reason: those the latest crawl met first, then by url'),
  problem_totals: z.object({ skipped: z.number().int(), failed: z.number().int(), duplicate: z.number().int() })
    .describe('How many urls of the source are in each problem status, listed or not'),
});

export const sourceViewSchema = z.object({
  uid: z.string(),
  kind: z.literal('website'),
  index_uid: z.string().describe('The push index the pages are written to; name it in a configuration to search the source'),
  start_urls: z.array(z.string()),
  sitemaps: z.array(z.string()),
  include: z.array(z.string()),
  exclude: z.array(z.string()),
  max_pages: z.number().int(),
  max_depth: z.number().int(),
  content_selector: z.string().nullable(),
  drop_selectors: z.array(z.string()).nullable(),
  fragments: z.array(z.string()),
  recrawl_hours: z.number().int().nullable(),
  next_crawl_at: z.string().nullable()
    .describe('When the recrawl schedule queues the next crawl (workers check every minute; a past time is due at the next check); null without recrawl_hours or while a crawl is queued or running'),
  created_at: z.string(),
  updated_at: z.string(),
  crawl: crawlViewSchema,
});

export const sourceListQuerySchema = pageQuerySchema('Sources', uidCursor);

export const sourceListSchema = z.object({
  sources: z.array(sourceViewSchema.extend({ crawl: crawlViewSchema.omit({ problems: true, problem_totals: true }) }))
    .describe('A page of sources by uid, each with its crawl progress but not its problems (read one source for those)'),
  next_cursor: nextCursorSchema,
});
