import { gunzipSync } from 'node:zlib';
import type { ChildNode, Element } from 'domhandler';
import { parseCappedDocument } from '../ingest/depth-capped-parser.js';
import type { HostLimiter } from './host-limiter.js';
import { safeFetch, type SafeFetchOptions } from './safe-fetch.js';

export const SITEMAP_DEFAULTS = {
  /** The sitemap protocol's own limits for one file: 50,000 urls, 50 MB uncompressed. */
  maxUrls: 50_000,
  maxBytes: 50 * 1024 * 1024,
  /** Sitemap files read in one crawl, indexes included. */
  maxSitemaps: 100,
} as const;

export interface SitemapEntry {
  url: string;
  /** ISO 8601, or null when absent or not a date. */
  lastmod: string | null;
}

export type ParsedSitemap = { kind: 'urlset'; entries: SitemapEntry[] } | { kind: 'index'; entries: SitemapEntry[] };

const localName = (el: Element) => el.name.slice(el.name.indexOf(':') + 1).toLowerCase();
const elements = (nodes: ChildNode[]) => nodes.filter((n): n is Element => n.type === 'tag');

function textOf(el: Element | undefined): string {
  if (!el) return '';
  return el.children.map((c) => ('data' in c && typeof c.data === 'string' ? c.data : c.type === 'tag' ? textOf(c) : '')).join('').trim();
}

function entryOf(el: Element): SitemapEntry | null {
  const children = elements(el.children);
  const loc = textOf(children.find((c) => localName(c) === 'loc'));
  let url: URL;
  try {
    url = new URL(loc);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const lastmodText = textOf(children.find((c) => localName(c) === 'lastmod'));
  const time = lastmodText ? Date.parse(lastmodText) : NaN;
  return { url: url.href, lastmod: Number.isNaN(time) ? null : new Date(time).toISOString() };
}

/** A `<urlset>` or `<sitemapindex>` document; null when it is neither. Keeps at most maxUrls entries. */
export function parseSitemap(xml: string, maxUrls: number = SITEMAP_DEFAULTS.maxUrls): ParsedSitemap | null {
  // Depth-capped: nesting costs htmlparser2 quadratic time, and textOf recurses per level.
  const root = elements(parseCappedDocument(xml, { xmlMode: true }).children)[0];
  if (!root) return null;
  const kind = localName(root) === 'urlset' ? 'urlset' : localName(root) === 'sitemapindex' ? 'index' : null;
  if (!kind) return null;
  const item = kind === 'urlset' ? 'url' : 'sitemap';
  const entries: SitemapEntry[] = [];
  for (const el of elements(root.children)) {
    if (entries.length >= maxUrls) break;
    if (localName(el) !== item) continue;
    const entry = entryOf(el);
    if (entry) entries.push(entry);
  }
  return { kind, entries };
}

export interface ReadSitemapsOptions extends Omit<SafeFetchOptions, 'headers' | 'acceptContentType' | 'truncate'> {
  limiter?: HostLimiter;
  maxUrls?: number;
  maxSitemaps?: number;
}

export interface SitemapsResult {
  /** Page urls, each once, with the latest lastmod any sitemap gave it. */
  entries: SitemapEntry[];
  errors: { url: string; reason: string }[];
}

/**
 * Reads sitemaps and the sitemaps their indexes name (gzip files too), breadth first, until the url or
 * file limit. A file that fails is reported and the rest still read.
 */
export async function readSitemaps(urls: string[], options: ReadSitemapsOptions): Promise<SitemapsResult> {
  const maxUrls = options.maxUrls ?? SITEMAP_DEFAULTS.maxUrls;
  const maxSitemaps = options.maxSitemaps ?? SITEMAP_DEFAULTS.maxSitemaps;
  const maxBytes = options.maxBytes ?? SITEMAP_DEFAULTS.maxBytes;
  const pages = new Map<string, string | null>();
  const errors: SitemapsResult['errors'] = [];
  const queue = [...urls];
  const read = new Set<string>();
  while (queue.length > 0 && read.size < maxSitemaps && pages.size < maxUrls) {
    const url = queue.shift()!;
    if (read.has(url)) continue;
    read.add(url);
    const fetchIt = () => safeFetch(url, { ...options, maxBytes });
    const result = await (options.limiter ? options.limiter.run(url, fetchIt) : fetchIt());
    if (result.kind === 'error' || result.kind === 'refused') {
      errors.push({ url, reason: result.reason });
      continue;
    }
    if (result.status !== 200) {
      errors.push({ url, reason: `http ${result.status}` });
      continue;
    }
    let body = result.body;
    if (body[0] === 0x1f && body[1] === 0x8b) {
      try {
        body = gunzipSync(body, { maxOutputLength: maxBytes });
      } catch (err) {
        errors.push({ url, reason: err instanceof RangeError ? 'too large' : 'bad gzip' });
        continue;
      }
    }
    const parsed = parseSitemap(body.toString('utf8'), maxUrls - pages.size);
    if (!parsed) {
      errors.push({ url, reason: 'not a sitemap' });
      continue;
    }
    if (parsed.kind === 'index') {
      queue.push(...parsed.entries.map((e) => e.url));
      continue;
    }
    for (const { url: page, lastmod } of parsed.entries) {
      const known = pages.get(page);
      pages.set(page, known && (!lastmod || known > lastmod) ? known : lastmod);
    }
  }
  return { entries: [...pages].map(([url, lastmod]) => ({ url, lastmod })), errors };
}
