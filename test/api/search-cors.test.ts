import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../api/middleware/error-handler.js';
import { searchCors } from '../../api/middleware/search-cors.js';
import { AppError } from '../../shared/errors/app-error.js';

const CONFIGS: Record<string, string[]> = {
  site: ['https://example.com'],
  anyone: ['*'],
  subdomains: ['https://*.example.org'],
  ports: ['https://secure.example:443', 'http://dev.example:8080'],
  closed: [],
};
const uidOf = (req: Request) => (typeof req.query.uid === 'string' ? req.query.uid : typeof req.body?.uid === 'string' ? req.body.uid : undefined);

let server: ReturnType<express.Express['listen']>;
let url: string;

beforeAll(async () => {
  const app = express();
  app.use(express.json());
  app.use(searchCors(async (uid) => CONFIGS[uid] ?? null, uidOf));
  app.all('/v1/ui/search', (req, res) => {
    const uid = uidOf(req);
    if (uid === undefined || !(uid in CONFIGS)) throw new AppError('not_found', `No configuration ${uid}`);
    res.json({ ok: true });
  });
  app.use(errorHandler);
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  const closed = new Promise((r) => server.close(r));
  server.closeAllConnections();
  await closed;
});

async function call(uid: string | undefined, headers: Record<string, string>, init: RequestInit = {}) {
  const res = await fetch(`${url}/v1/ui/search${uid === undefined ? '' : `?uid=${uid}`}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const get = (uid: string | undefined, origin: string) => call(uid, { origin });
const preflight = (uid: string | undefined, origin: string, requestHeaders?: string) =>
  call(uid, { origin, 'access-control-request-method': 'POST', ...(requestHeaders ? { 'access-control-request-headers': requestHeaders } : {}) }, { method: 'OPTIONS' });

describe('searchCors, real requests', () => {
  it('leaves requests without an Origin alone', async () => {
    const res = await call('site', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('echoes an allowed origin and exposes the rate limit headers', async () => {
    const res = await get('site', 'https://example.com');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://example.com');
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset');
  });

  it('checks the uid of a JSON body', async () => {
    const post = (origin: string) =>
      call(undefined, { origin, 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ uid: 'site' }) });
    expect((await post('https://example.com')).headers.get('access-control-allow-origin')).toBe('https://example.com');
    expect((await post('https://evil.example')).status).toBe(403);
  });

  it('refuses any other origin with 403 and no CORS headers', async () => {
    const res = await get('site', 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: 403,
      message: "Origin https://evil.example is not allowed for configuration site; add it to the configuration's allowed_origins",
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    for (const origin of ['http://example.com', 'https://example.com:8443', 'https://www.example.com', 'null']) {
      expect((await get('site', origin)).status, origin).toBe(403);
    }
    expect((await get('closed', 'https://example.com')).status).toBe(403);
  });

  it("lets the service's own origin through (the web app's Try it), whatever the configuration allows", async () => {
    const post = (origin: string) =>
      call(undefined, { origin, 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ uid: 'closed' }) });
    const own = await post(url);
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    // Same host, other port or scheme: another origin, refused.
    expect((await post(url.replace(/:\d+$/, ':1'))).status).toBe(403);
    expect((await post(url.replace('http:', 'https:'))).status).toBe(403);
  });

  it('allows every origin for *', async () => {
    for (const origin of ['https://anything.example', 'http://localhost:3000']) {
      const res = await get('anyone', origin);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    }
  });

  it('matches any subdomain for https://*.example.org, and only subdomains', async () => {
    for (const origin of ['https://a.example.org', 'https://x.y.example.org', 'https://A.Example.org']) {
      expect((await get('subdomains', origin)).status, origin).toBe(200);
    }
    for (const origin of ['https://example.org', 'https://badexample.org', 'http://a.example.org', 'https://a.example.org.evil.example']) {
      expect((await get('subdomains', origin)).status, origin).toBe(403);
    }
  });

  it('compares scheme and host case-insensitively with default ports normalized', async () => {
    for (const origin of ['https://secure.example', 'HTTPS://Secure.Example:443', 'http://dev.example:8080']) {
      const res = await get('ports', origin);
      expect(res.status, origin).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    }
    for (const origin of ['http://dev.example', 'https://secure.example:8443', 'http://secure.example']) {
      expect((await get('ports', origin)).status, origin).toBe(403);
    }
  });

  it('leaves an unknown uid to the route, without CORS headers', async () => {
    const res = await get('nope', 'https://example.com');
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('searchCors, preflight', () => {
  it('answers an allowed origin with 204 and the CORS headers', async () => {
    const res = await preflight('site', 'https://example.com', 'content-type, x-custom');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://example.com');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type, x-custom');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
  });

  it('allows Content-Type and X-Session-Id when the browser names no headers', async () => {
    const res = await preflight('site', 'https://example.com');
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, X-Session-Id');
  });

  it('refuses a disallowed origin when the uid is in the query string', async () => {
    const res = await preflight('site', 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers permissively without a uid, and the real request is checked', async () => {
    const res = await preflight(undefined, 'https://evil.example');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    const real = await call(undefined, { origin: 'https://evil.example', 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ uid: 'site' }) });
    expect(real.status).toBe(403);
    expect(real.headers.get('access-control-allow-origin')).toBeNull();
  });
});
