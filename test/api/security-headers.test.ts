import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWeb } from '../../scripts/build-web.mjs';
import { ensureWidget } from '../../scripts/build-widget.mjs';
import { rawRequest } from '../helpers/raw-http.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

/**
 * Issue 22, finding 1: the queue dashboard could be framed by a page on another port of the same host, and a
 * click there paused every queue. Every response of the service, whatever produced it (the web app, the
 * dashboard's own Express app, static files, redirects, 404s, errors, Node's answers to broken requests),
 * carries the headers that forbid framing and sniffing and none that names the framework; a change on the
 * dashboard made with credentials the browser attaches by itself needs the dashboard's CSRF token.
 */
let svc: TestService;
const basic = (key: string) => `Basic ${Buffer.from(`admin:${key}`).toString('base64')}`;

beforeAll(async () => {
  await Promise.all([ensureWeb(), ensureWidget()]);
  svc = await startTestService({ workers: false });
  await svc.call('POST', '/v1/admin/indexes', { uid: 'docs' });
});
afterAll(async () => {
  await svc?.close();
});

interface Seen {
  url: string;
  status: number;
  headers: Headers;
}

/** What every response must carry, whatever it is; a list of what is wrong with `r`. */
function problemsOf(r: { url: string; status: number; get: (name: string) => string | null }): string[] {
  const p: string[] = [];
  const csp = r.get('content-security-policy') ?? '';
  if (!/(^|;)\s*frame-ancestors 'none'/.test(csp)) p.push(`CSP without frame-ancestors 'none': '${csp}'`);
  if (r.get('x-frame-options') !== 'DENY') p.push(`X-Frame-Options '${r.get('x-frame-options')}'`);
  if (r.get('x-content-type-options') !== 'nosniff') p.push(`X-Content-Type-Options '${r.get('x-content-type-options')}'`);
  if (!r.get('referrer-policy')) p.push('no Referrer-Policy');
  if (r.get('x-powered-by') !== null) p.push(`X-Powered-By '${r.get('x-powered-by')}'`);
  return p.map((m) => `${r.status} ${r.url}: ${m}`);
}

/** Same-origin links of an HTML page (href and src, resolved against its <base href>). */
function linksOf(html: string, pageUrl: string): string[] {
  const base = new URL(/<base\s+href="([^"]*)"/i.exec(html)?.[1] ?? pageUrl, pageUrl);
  return [...html.matchAll(/\s(?:href|src)="([^"#]+)"/gi)]
    .map((m) => new URL(m[1], base))
    .filter((u) => u.origin === new URL(pageUrl).origin)
    .map((u) => u.pathname + u.search);
}

/**
 * Fetches each start path as a browser would ask for a page (Accept: text/html), follows redirects and the
 * links of every HTML page on this server, and returns every response seen.
 */
async function crawl(starts: string[], headers: Record<string, string>): Promise<Seen[]> {
  const queue = [...starts];
  const visited = new Set<string>();
  const seen: Seen[] = [];
  while (queue.length && visited.size < 300) {
    const path = queue.shift()!;
    if (visited.has(path)) continue;
    visited.add(path);
    const res = await fetch(`${svc.url}${path}`, { headers: { accept: 'text/html,*/*;q=0.8', ...headers }, redirect: 'manual' });
    const body = await res.text();
    seen.push({ url: path, status: res.status, headers: res.headers });
    const location = res.headers.get('location');
    if (location) queue.push(new URL(location, `${svc.url}${path}`).pathname);
    if ((res.headers.get('content-type') ?? '').startsWith('text/html')) queue.push(...linksOf(body, `${svc.url}${path}`));
  }
  return seen;
}

const PAGES = [
  '/', '/app', '/app/', '/app/keys', '/app/indexes/docs', '/app/index.html', '/app/assets/missing.js', '/app/%ED%A0%80',
  '/admin/queues', '/admin/queues/', '/admin/queues/queue/index', '/admin/queues/queue/index/1', '/admin/queues/static',
  '/admin/queues/static/missing.js', '/admin/queues/api/queues', '/admin/queues/api/queues/nope/1', '/admin/queues/nope',
  '/widget.js', '/widget/nope.js', '/openapi.json', '/healthz', '/readyz', '/metrics', '/nope', '/v1/admin/keys',
  '/v1/ui/search?uid=nope&query=x', '/v2/indexes/docs/status',
];

describe('security headers on every response', () => {
  it('a crawl of every page, asset, redirect and error, signed in and not: each response forbids framing and sniffing, none names Express', async () => {
    const seen = [
      ...(await crawl(PAGES, { authorization: basic(MASTER_KEY) })),
      ...(await crawl(PAGES, {})),
    ];
    const problems = seen.flatMap((s) => problemsOf({ url: s.url, status: s.status, get: (n) => s.headers.get(n) }));
    expect(problems).toEqual([]);
    const html = seen.filter((s) => (s.headers.get('content-type') ?? '').startsWith('text/html'));
    const pages = (prefix: string) => html.filter((s) => s.status === 200 && s.url.startsWith(prefix));
    // The crawl reached the pages it is about: the web app's, the dashboard's, and redirects with HTML bodies.
    expect(pages('/app/').length).toBeGreaterThanOrEqual(3);
    expect(pages('/admin/queues').length).toBeGreaterThanOrEqual(3);
    expect(html.filter((s) => s.status >= 300 && s.status < 400).length).toBeGreaterThanOrEqual(2);
    // The static files the pages name were fetched too (scripts, stylesheets, icons).
    expect(seen.filter((s) => s.status === 200 && /\/(assets|static)\//.test(s.url)).length).toBeGreaterThanOrEqual(4);
    // Pages run only this server's scripts.
    for (const s of [...pages('/app/'), ...pages('/admin/queues')]) {
      expect(s.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    }
  });

  it('Node\'s own answer to a malformed request carries them too', async () => {
    const r = await rawRequest(svc.url, { method: 'GET', path: '/healthz', headers: { 'content-length': 'not-a-number' } });
    expect(r.status).toBe(400);
    expect(problemsOf({ url: 'malformed', status: r.status, get: (n) => r.headers[n] ?? null })).toEqual([]);
  });
});

describe('the queue dashboard\'s changes need its CSRF token', () => {
  const sameOrigin = () => ({ origin: svc.url, 'sec-fetch-site': 'same-origin' });
  const pauseAll = (headers: Record<string, string>) =>
    fetch(`${svc.url}/admin/queues/api/queues/pause`, { method: 'PUT', headers: { ...sameOrigin(), ...headers } });
  const resumeAll = (headers: Record<string, string>) =>
    fetch(`${svc.url}/admin/queues/api/queues/resume`, { method: 'PUT', headers: { ...sameOrigin(), ...headers } });
  const paused = () => svc.queues.index.isPaused();

  /** The cookie the dashboard's page hands its client (axios sends its value back as X-XSRF-TOKEN). */
  async function tokenCookie(headers: Record<string, string>): Promise<string> {
    const page = await fetch(`${svc.url}/admin/queues`, { headers });
    expect(page.status).toBe(200);
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith('XSRF-TOKEN='));
    expect(cookie).toBeDefined();
    return cookie!;
  }
  const valueOf = (cookie: string) => cookie.split(';')[0].slice('XSRF-TOKEN='.length);

  it('its page sets the token in a Strict cookie of the dashboard\'s path that its script can read', async () => {
    const cookie = await tokenCookie({ authorization: basic(MASTER_KEY) });
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/admin\/queues(;|$)/);
    expect(cookie).not.toMatch(/HttpOnly/i);
    expect(valueOf(cookie).length).toBeGreaterThanOrEqual(20);
  });

  it('"Pause all" with remembered Basic credentials from the dashboard\'s own origin but without the token is refused; nothing is paused', async () => {
    const r = await pauseAll({ authorization: basic(MASTER_KEY) });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ code: 403, message: expect.stringContaining('X-XSRF-TOKEN') });
    expect((await pauseAll({ authorization: basic(MASTER_KEY), 'x-xsrf-token': 'forged-token-0123456789' })).status).toBe(403);
    // The token of another admin key does not serve this one.
    const other = (await svc.call('POST', '/v1/admin/keys', { name: 'other admin', permissions: ['admin'] })).body.key as string;
    const othersToken = valueOf(await tokenCookie({ authorization: basic(other) }));
    expect((await pauseAll({ authorization: basic(MASTER_KEY), 'x-xsrf-token': othersToken })).status).toBe(403);
    expect(await paused()).toBe(false);
  });

  it('a page on another port of the same host is refused even with the token; the dashboard\'s page with it pauses and resumes', async () => {
    const token = valueOf(await tokenCookie({ authorization: basic(MASTER_KEY) }));
    const otherPort = `http://127.0.0.1:${Number(new URL(svc.url).port) + 1}`;
    const cross = await fetch(`${svc.url}/admin/queues/api/queues/pause`, {
      method: 'PUT', headers: { authorization: basic(MASTER_KEY), 'x-xsrf-token': token, origin: otherPort, 'sec-fetch-site': 'same-site' },
    });
    expect(cross.status).toBe(403);
    expect(await paused()).toBe(false);

    expect((await pauseAll({ authorization: basic(MASTER_KEY), 'x-xsrf-token': token })).status).toBe(200);
    expect(await paused()).toBe(true);
    expect((await resumeAll({ authorization: basic(MASTER_KEY), 'x-xsrf-token': token })).status).toBe(200);
    expect(await paused()).toBe(false);
  });

  it('a script with X-API-Key (a header no other page can make a browser send) needs no token', async () => {
    expect((await pauseAll({ 'x-api-key': MASTER_KEY })).status).toBe(200);
    expect((await resumeAll({ 'x-api-key': MASTER_KEY })).status).toBe(200);
    expect(await paused()).toBe(false);
  });

  it('a web-app session changes queues with its own CSRF token as X-XSRF-TOKEN, which the page hands it', async () => {
    const signIn = await fetch(`${svc.url}/v1/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: MASTER_KEY }) });
    const session = signIn.headers.getSetCookie()[0].split(';')[0];
    const { csrf_token: csrf } = await signIn.json();
    expect(valueOf(await tokenCookie({ cookie: session }))).toBe(csrf);
    const refused = await pauseAll({ cookie: session });
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toContain('X-XSRF-TOKEN');
    expect(await paused()).toBe(false);
    expect((await pauseAll({ cookie: session, 'x-xsrf-token': csrf })).status).toBe(200);
    expect((await resumeAll({ cookie: session, 'x-xsrf-token': csrf })).status).toBe(200);
    expect(await paused()).toBe(false);
  });
});
