import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlerUserAgent, fetchPage, type FetchPageOptions } from '../../shared/crawl/fetch-page.js';
import { isLocalhostName, isPublicAddress } from '../../shared/crawl/public-address.js';
import { html, redirect, startSite, type TestSite } from './crawl-site.js';

const ua = crawlerUserAgent('https://search.example.com');
const opts: FetchPageOptions = { userAgent: ua, allowPrivate: true };
let site: TestSite;
let releaseSlow: () => void = () => {};

beforeAll(async () => {
  site = await startSite({

    '/page': html('<title>Page</title><p>Hello</p>', { etag: '"v1"', 'last-modified': 'Mon, 02 Nov 2026 10:00:00 GMT' }),
    '/conditional': (req, res) => {
      if (req.headers['if-none-match'] === '"v1"' || req.headers['if-modified-since'] === 'Mon, 02 Nov 2026 10:00:00 GMT') {
        return res.writeHead(304).end();
      }
      res.writeHead(200, { 'content-type': 'text/html', etag: '"v1"', 'last-modified': 'Mon, 02 Nov 2026 10:00:00 GMT' }).end('<p>v1</p>');
    },
    '/r1': redirect('/r2'),
    '/r2': redirect('/page', 302),
    '/loop-a': redirect('/loop-b'),
    '/loop-b': redirect('/loop-a'),
    ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`/chain${i}`, redirect(`/chain${i + 1}`)])),
    '/chain8': html('<p>end of chain</p>'),
    '/removed': (_req, res) => res.writeHead(410, { 'content-type': 'text/html' }).end('gone'),
    '/error': (_req, res) => res.writeHead(503).end(),
    '/slow': (_req, res) => {
      // Never answers until the test is over: the fetch can only end by its own timeout.
      releaseSlow = () => res.writeHead(200, { 'content-type': 'text/html' }).end('late');
    },
    '/huge': html(`<p>${'x'.repeat(200_000)}</p>`),
    '/huge-streamed': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      for (let i = 0; i < 50; i++) res.write(`<p>${'y'.repeat(10_000)}</p>`);
      res.end();
    },
    '/gzip-bomb': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync('<p>' + 'z'.repeat(2_000_000)));
    },
    '/gzipped': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync('<p>compressed</p>'));
    },
    '/file.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4'),
    '/xhtml': (_req, res) => res.writeHead(200, { 'content-type': 'application/xhtml+xml' }).end('<html xmlns="http://www.w3.org/1999/xhtml"><p>x</p></html>'),
    '/latin1': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' }).end(Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0x3c, 0x2f, 0x70, 0x3e])),
    '/to-ftp': redirect('ftp://example.com/file'),
  });
});
afterAll(async () => {
  releaseSlow();
  await site.close();
});

describe('fetchPage', () => {
  it('fetches a page with our user agent and returns its validators', async () => {
    const r = await fetchPage(site.url('/page'), opts);
    expect(r).toEqual({
      kind: 'fetched',
      finalUrl: site.url('/page'),
      status: 200,
      etag: '"v1"',
      lastModified: 'Mon, 02 Nov 2026 10:00:00 GMT',
      html: '<title>Page</title><p>Hello</p>',
    });
    expect(site.headers['/page']['user-agent']).toMatch(/^QuarryBot\/\d+\.\d+\.\d+ \(\+https:\/\/search\.example\.com\)$/);
  });

  it('sends If-None-Match / If-Modified-Since and reports 304 as not modified', async () => {
    expect(await fetchPage(site.url('/conditional'), { ...opts, etag: '"v1"' })).toEqual({ kind: 'notModified', finalUrl: site.url('/conditional') });
    expect(site.headers['/conditional']['if-none-match']).toBe('"v1"');
    expect(await fetchPage(site.url('/conditional'), { ...opts, lastModified: 'Mon, 02 Nov 2026 10:00:00 GMT' })).toMatchObject({ kind: 'notModified' });
    expect(await fetchPage(site.url('/conditional'), { ...opts, etag: '"v0"' })).toMatchObject({ kind: 'fetched', html: '<p>v1</p>' });
  });

  it('follows redirects, reporting the final url', async () => {
    expect(await fetchPage(site.url('/r1'), opts)).toMatchObject({ kind: 'fetched', finalUrl: site.url('/page') });
  });

  it('stops at a redirect loop and past the redirect limit', async () => {
    expect(await fetchPage(site.url('/loop-a'), opts)).toEqual({ kind: 'failed', reason: 'redirect loop' });
    expect(await fetchPage(site.url('/chain0'), opts)).toEqual({ kind: 'failed', reason: 'too many redirects' });
    expect(site.log).toContain('GET /chain5');
    expect(site.log).not.toContain('GET /chain6');
    expect(await fetchPage(site.url('/chain0'), { ...opts, maxRedirects: 8 })).toMatchObject({ kind: 'fetched', finalUrl: site.url('/chain8') });
  });

  it('reports 404 and 410 with their status, other errors as failed', async () => {
    expect(await fetchPage(site.url('/nowhere'), opts)).toEqual({ kind: 'failed', reason: 'not found', status: 404 });
    expect(await fetchPage(site.url('/removed'), opts)).toEqual({ kind: 'failed', reason: 'gone', status: 410 });
    expect(await fetchPage(site.url('/error'), opts)).toEqual({ kind: 'failed', reason: 'http 503', status: 503 });
  });

  it('sends a request once more when the kept-alive connection it went out on was reset, once', async () => {
    // A server of its own, so which connections are new and which reused is known.
    const served = new WeakSet<object>();
    let resets = 0;
    const own = await startSite({
      '/first': (req, res) => {
        served.add(req.socket);
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>first</p>');
      },
      // The server closing an idle kept-alive connection just as the client reuses it.
      '/reset-reused': (req, res) => {
        if (served.has(req.socket)) return void (resets++, req.socket.destroy());
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>after the reset</p>');
      },
      '/reset-always': (req) => void (resets++, req.socket.destroy()),
    });
    try {
      expect(await fetchPage(own.url('/first'), opts)).toMatchObject({ kind: 'fetched' });
      expect(await fetchPage(own.url('/reset-reused'), opts)).toMatchObject({ kind: 'fetched', status: 200, html: '<p>after the reset</p>' });
      expect(resets).toBe(1);
      expect(own.log).toEqual(['GET /first', 'GET /reset-reused', 'GET /reset-reused']);
      // Reset again on the new connection: no third try.
      expect(await fetchPage(own.url('/reset-always'), opts)).toEqual({ kind: 'failed', reason: 'ECONNRESET' });
      expect(own.log.filter((l) => l === 'GET /reset-always')).toHaveLength(2);
    } finally {
      await own.close();
    }
  });

  it('gives up on a page that does not answer within the timeout', async () => {
    expect(await fetchPage(site.url('/slow'), { ...opts, timeoutMs: 300 })).toEqual({ kind: 'failed', reason: 'timeout' });
  });

  it('skips bodies over the size cap, declared, streamed or compressed', async () => {
    const small = { ...opts, maxBytes: 100_000 };
    expect(await fetchPage(site.url('/huge'), small)).toEqual({ kind: 'skipped', finalUrl: site.url('/huge'), reason: 'too large' });
    expect(await fetchPage(site.url('/huge-streamed'), small)).toMatchObject({ kind: 'skipped', reason: 'too large' });
    expect(await fetchPage(site.url('/gzip-bomb'), small)).toMatchObject({ kind: 'skipped', reason: 'too large' });
    expect(await fetchPage(site.url('/gzipped'), small)).toMatchObject({ kind: 'fetched', html: '<p>compressed</p>' });
  });

  it('accepts only HTML and XHTML, and decodes the declared charset', async () => {
    expect(await fetchPage(site.url('/file.pdf'), opts)).toEqual({ kind: 'skipped', finalUrl: site.url('/file.pdf'), reason: 'not html' });
    expect(await fetchPage(site.url('/xhtml'), opts)).toMatchObject({ kind: 'fetched' });
    expect(await fetchPage(site.url('/latin1'), opts)).toMatchObject({ kind: 'fetched', html: '<p>é</p>' });
    expect(await fetchPage(site.url('/to-ftp'), opts)).toMatchObject({ kind: 'skipped', reason: 'not http' });
  });

  it('refuses loopback and private addresses unless allowed, without sending a request', async () => {
    const before = site.log.length;
    const strict = { userAgent: ua };
    const port = new URL(site.url('/')).port;
    for (const url of [site.url('/page'), `http://localhost:${port}/page`, `http://[::ffff:127.0.0.1]:${port}/page`, `http://[::1]:${port}/page`, `http://2130706433:${port}/page`, `http://localhost.:${port}/page`, `http://app.localhost.:${port}/page`]) {
      expect(await fetchPage(url, strict)).toMatchObject({ kind: 'skipped', reason: 'private address' });
    }
    expect(site.log.length).toBe(before);
    expect(await fetchPage(site.url('/page'), opts)).toMatchObject({ kind: 'fetched' });
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['2606:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['64:ff9b::808:808', true], // well-known NAT64 prefix: the IPv4 address it carries decides
    ['64:ff9b:1::a00:1', false], // local-use NAT64 (RFC 8215), whatever it carries
    ['64:ff9b:1::808:808', false],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', false],
    ['2002:c0a8:0101::1', false],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('isLocalhostName', () => {
  it.each([
    ['localhost', true],
    ['localhost.', true],
    ['LOCALHOST.', true],
    ['localhost..', true],
    ['app.localhost', true],
    ['app.localhost.', true],
    ['localhost.example.com', false],
    ['notlocalhost', false],
    ['example.com.', false],
  ])('%s → %s', (name, expected) => {
    expect(isLocalhostName(name)).toBe(expected);
  });
});
