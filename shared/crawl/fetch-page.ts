import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../config/project-root.js';
import { safeFetch, type SafeFetchOptions } from './safe-fetch.js';

const version = (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** The crawler's user agent: a name site owners can match in robots.txt and a url that says who we are. */
export function crawlerUserAgent(baseUrl: string): string {
  return `QuarryBot/${version} (+${baseUrl})`;
}

/** The token robots.txt groups are matched against. */
export const ROBOTS_AGENT = 'QuarryBot';

export interface FetchPageOptions extends Omit<SafeFetchOptions, 'headers' | 'acceptContentType' | 'truncate'> {
  /** Validators from the last fetch of this page: a 304 answer becomes 'notModified'. */
  etag?: string | null;
  lastModified?: string | null;
}

export type PageSkipReason = 'not html' | 'too large' | 'private address' | 'not http';

export type FetchPageResult =
  | { kind: 'fetched'; finalUrl: string; status: number; etag: string | null; lastModified: string | null; html: string }
  | { kind: 'notModified'; finalUrl: string }
  | { kind: 'skipped'; finalUrl: string; reason: PageSkipReason }
  /** status 404 or 410 means the page is gone and should leave the index. */
  | { kind: 'failed'; reason: string; status?: number };

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

function charsetOf(contentType: string | undefined): string {
  const declared = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? '')?.[1];
  if (declared) {
    try {
      new TextDecoder(declared);
      return declared;
    } catch {
      // An unknown charset label: read as UTF-8, which most pages are.
    }
  }
  return 'utf-8';
}

export async function fetchPage(url: string, options: FetchPageOptions): Promise<FetchPageResult> {
  const headers: Record<string, string> = {};
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  const result = await safeFetch(url, {
    ...options,
    headers,
    // A missing content type is sniffed by browsers; accepting it lets pages from bare servers through.
    acceptContentType: (type) => type === '' || HTML_TYPES.has(type),
  });
  if (result.kind === 'error') return { kind: 'failed', reason: result.reason };
  if (result.kind === 'refused') {
    return { kind: 'skipped', finalUrl: result.finalUrl, reason: result.reason === 'content type' ? 'not html' : result.reason };
  }
  const { status, headers: h, finalUrl } = result;
  if (status === 304) return { kind: 'notModified', finalUrl };
  if (status === 404) return { kind: 'failed', reason: 'not found', status };
  if (status === 410) return { kind: 'failed', reason: 'gone', status };
  if (status < 200 || status >= 300) return { kind: 'failed', reason: `http ${status}`, status };
  return {
    kind: 'fetched',
    finalUrl,
    status,
    etag: typeof h.etag === 'string' ? h.etag : null,
    lastModified: typeof h['last-modified'] === 'string' ? h['last-modified'] : null,
    html: new TextDecoder(charsetOf(h['content-type'])).decode(result.body),
  };
}
