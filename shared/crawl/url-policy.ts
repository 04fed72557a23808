import { createHash } from 'node:crypto';

export const CRAWL_DEFAULTS = {
  maxPages: 1000,
  maxDepth: 10,
} as const;

/**
 * The one spelling of a url the crawler keys pages by: http(s) only, no fragment, no default port,
 * scheme and host lowercased, the path's dot segments and percent-encoding as the URL standard writes
 * them. Query strings are kept as they are (their order can matter to a site). Urls with credentials
 * are refused. Null when the url is not crawlable.
 */
export function normalizeUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return null;
  url.hash = '';
  return url.href;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A url pattern is a glob where `*` matches any run of characters (slashes included) and everything
 * else matches itself. A pattern starting with `/` is matched against the path and query
 * (`/docs/*`), any other against the whole normalized url (`https://example.com/blog/*`); either way
 * the whole of it must match.
 */
export function compileUrlPattern(pattern: string): (url: string) => boolean {
  const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
  if (pattern.startsWith('/')) {
    return (url) => {
      const { pathname, search } = new URL(url);
      return re.test(pathname + search);
    };
  }
  return (url) => re.test(url);
}

export interface CrawlPolicyOptions {
  /** Start and sitemap urls: their hosts (name and port, either scheme) make the crawl's scope. */
  seeds: string[];
  include?: string[];
  exclude?: string[];
  maxPages?: number;
  /** Links followed from a seed (depth 0). */
  maxDepth?: number;
}

export type CollapseResult =
  | { kind: 'unique'; url: string }
  | { kind: 'duplicate'; of: string }
  | { kind: 'outOfScope' };

/**
 * Which urls a crawl fetches and under which url each fetched page is kept. One instance per crawl:
 * it remembers every url admitted and every page kept.
 */
export class CrawlPolicy {
  private readonly hosts: Set<string>;
  private readonly include: ((url: string) => boolean)[];
  private readonly exclude: ((url: string) => boolean)[];
  private readonly maxPages: number;
  private readonly maxDepth: number;
  private readonly admitted = new Set<string>();
  private readonly kept = new Set<string>();
  private readonly hashes = new Map<string, string>();

  constructor(options: CrawlPolicyOptions) {
    this.hosts = new Set(options.seeds.map((s) => normalizeUrl(s)).filter((u): u is string => u !== null).map((u) => new URL(u).host));
    this.include = (options.include ?? []).map(compileUrlPattern);
    this.exclude = (options.exclude ?? []).map(compileUrlPattern);
    this.maxPages = options.maxPages ?? CRAWL_DEFAULTS.maxPages;
    this.maxDepth = options.maxDepth ?? CRAWL_DEFAULTS.maxDepth;
  }

  /** On a seed's host, matching an include pattern (when there are any) and no exclude pattern. */
  inScope(url: string): boolean {
    const normalized = normalizeUrl(url);
    if (!normalized || !this.hosts.has(new URL(normalized).host)) return false;
    if (this.include.length > 0 && !this.include.some((m) => m(normalized))) return false;
    return !this.exclude.some((m) => m(normalized));
  }

  /**
   * The normalized url to fetch, or null when it is out of scope, too deep, already admitted, or the
   * crawl has admitted its maximum of pages.
   */
  admit(url: string, depth: number): string | null {
    const normalized = normalizeUrl(url);
    if (!normalized || depth > this.maxDepth || this.admitted.size >= this.maxPages) return null;
    if (this.admitted.has(normalized) || !this.inScope(normalized)) return null;
    this.admitted.add(normalized);
    return normalized;
  }

  /** The url is kept as a page of this crawl (by collapse): fetching it again would find a duplicate of itself. */
  isKept(url: string): boolean {
    const normalized = normalizeUrl(url);
    return normalized !== null && this.kept.has(normalized);
  }

  get admittedCount(): number {
    return this.admitted.size;
  }

  /**
   * Decides the url a fetched page is kept under: its canonical when that is in scope, else the url it
   * was finally fetched from. A second page under a url already kept, or with the same content as a
   * kept page, is a duplicate. The kept url counts as admitted, so a link to it is not fetched again.
   */
  collapse(page: { finalUrl: string; canonical: string | null; contentHash: string }): CollapseResult {
    const finalUrl = normalizeUrl(page.finalUrl);
    if (!finalUrl || !this.inScope(finalUrl)) return { kind: 'outOfScope' };
    const canonical = page.canonical ? normalizeUrl(page.canonical) : null;
    const url = canonical && this.inScope(canonical) ? canonical : finalUrl;
    if (this.kept.has(url)) return { kind: 'duplicate', of: url };
    const sameContent = this.hashes.get(page.contentHash);
    if (sameContent) return { kind: 'duplicate', of: sameContent };
    this.kept.add(url);
    this.hashes.set(page.contentHash, url);
    this.admitted.add(url);
    this.admitted.add(finalUrl);
    return { kind: 'unique', url };
  }
}

/** A page's content fingerprint: whitespace runs count as one space, so reflowed markup is not a change. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text.replace(/\s+/g, ' ').trim()).digest('hex');
}
