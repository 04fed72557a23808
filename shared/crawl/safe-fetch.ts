import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { isLocalhostName, isPublicAddress } from './public-address.js';

export const FETCH_DEFAULTS = {
  timeoutMs: 15_000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
} as const;

export interface SafeFetchOptions {
  /** Sent on every request, e.g. `QuarryBot/0.1.0 (+https://search.example.com)`. */
  userAgent: string;
  /** For the whole fetch, redirects included. */
  timeoutMs?: number;
  /** Of the decoded body; bytes past it are never read. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Reach private, loopback and link-local addresses too (tests, intranets). */
  allowPrivate?: boolean;
  headers?: Record<string, string>;
  /** Checked on the final response's headers before its body is read; false refuses it as 'content type'. */
  acceptContentType?: (contentType: string) => boolean;
  /** Keep the first maxBytes of a larger body instead of refusing it (robots.txt is read that way). */
  truncate?: boolean;
}

export type RefusalReason = 'private address' | 'not http' | 'too large' | 'content type';

export type SafeFetchResult =
  | { kind: 'response'; finalUrl: string; status: number; headers: IncomingHttpHeaders; body: Buffer }
  | { kind: 'refused'; finalUrl: string; reason: RefusalReason }
  | { kind: 'error'; reason: string };

class Refused extends Error {
  constructor(readonly reason: RefusalReason) {
    super(reason);
  }
}

/**
 * Resolves the host itself and checks every address before connecting, so the address checked is the
 * address used (no second DNS answer between check and connect).
 */
function publicOnlyLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
        return callback(new Refused('private address'), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

function decoded(res: IncomingMessage): Readable {
  switch ((res.headers['content-encoding'] ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(zlib.createGunzip());
    case 'deflate':
      return res.pipe(zlib.createInflate());
    case 'br':
      return res.pipe(zlib.createBrotliDecompress());
    default:
      return res;
  }
}

/** Reads at most maxBytes of the decoded body; null when it is longer and truncate is off. */
async function readCapped(res: IncomingMessage, maxBytes: number, truncate: boolean): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = decoded(res);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        if (!truncate) return null;
        chunks.push(chunk.subarray(0, chunk.length - (size - maxBytes)));
        return Buffer.concat(chunks);
      }
      chunks.push(chunk);
    }
  } finally {
    res.destroy();
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

function request(url: URL, options: SafeFetchOptions, signal: AbortSignal, retried = false): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'GET',
      signal,
      lookup: options.allowPrivate ? undefined : publicOnlyLookup(),
      headers: {
        'user-agent': options.userAgent,
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
        ...options.headers,
      },
    });
    req.on('response', resolve);
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as it was reused (its idle timeout): the GET was not
      // served, so it is sent once more on a new connection, as Node's documentation advises.
      if (!retried && req.reusedSocket && err.code === 'ECONNRESET' && !signal.aborted) resolve(request(url, options, signal, true));
      else reject(err);
    });
    req.end();
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET with the crawler's safety rules: http(s) only, public addresses only (every hop), redirects
 * followed by hand up to a limit, one deadline for the whole fetch, a cap on the decoded body.
 * Bodies are read only for 2xx responses.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const timeoutMs = options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? FETCH_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects;
  const signal = AbortSignal.timeout(timeoutMs);
  const seen = new Set<string>();
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { kind: 'error', reason: 'invalid url' };
  }
  for (;;) {
    url.hash = '';
    const here = url.href;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'refused', finalUrl: here, reason: 'not http' };
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && (isIP(literal) ? !isPublicAddress(literal) : isLocalhostName(literal))) {
      return { kind: 'refused', finalUrl: here, reason: 'private address' };
    }
    seen.add(here);
    let res: IncomingMessage;
    try {
      res = await request(url, options, signal);
    } catch (err) {
      if (err instanceof Refused || (err as { cause?: unknown }).cause instanceof Refused) {
        return { kind: 'refused', finalUrl: here, reason: 'private address' };
      }
      if (signal.aborted) return { kind: 'error', reason: 'timeout' };
      return { kind: 'error', reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
    }
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status) && res.headers.location) {
      res.resume();
      let next: URL;
      try {
        next = new URL(res.headers.location, url);
      } catch {
        return { kind: 'error', reason: 'invalid redirect' };
      }
      next.hash = '';
      if (seen.has(next.href)) return { kind: 'error', reason: 'redirect loop' };
      if (seen.size > maxRedirects) return { kind: 'error', reason: 'too many redirects' };
      url = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      res.resume();
      return { kind: 'response', finalUrl: here, status, headers: res.headers, body: Buffer.alloc(0) };
    }
    const contentType = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (options.acceptContentType && !options.acceptContentType(contentType)) {
      res.destroy();
      return { kind: 'refused', finalUrl: here, reason: 'content type' };
    }
    const declared = Number(res.headers['content-length']);
    const plain = !res.headers['content-encoding'] || res.headers['content-encoding'] === 'identity';
    if (plain && !options.truncate && Number.isFinite(declared) && declared > maxBytes) {
      res.destroy();
      return { kind: 'refused', finalUrl: here, reason: 'too large' };
    }
    try {
      const body = await readCapped(res, maxBytes, options.truncate ?? false);
      if (body === null) return { kind: 'refused', finalUrl: here, reason: 'too large' };
      return { kind: 'response', finalUrl: here, status, headers: res.headers, body };
    } catch (err) {
      if (signal.aborted) return { kind: 'error', reason: 'timeout' };
      return { kind: 'error', reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
    }
  }
}
