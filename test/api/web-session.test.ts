import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyedHash } from '../../shared/auth/keyed-hash.js';
import { WebSessions } from '../../shared/auth/web-sessions.js';
import { createLogger } from '../../shared/logging/create-logger.js';
import { DB_FILES } from '../../shared/storage/sqlite/open-database.js';
import { Reconciler } from '../../workers/reconciler.js';
import { KeyFailureLimiter } from '../../api/middleware/key-failure-limit.js';
import { MASTER_KEY, startTestService, waitFor, type TestService } from '../helpers/test-service.js';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

let svc: TestService;
let webDir: string;
let clientNo = 0;

/** Each test signs in from an address of its own (X-Forwarded-For, trusted from loopback), so failures counted for one never limit another. */
const newClient = () => `10.1.0.${++clientNo}`;

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

/** A request as the web app sends it: no API key, the session cookie when given. */
async function send(method: string, path: string, o: { cookie?: string; csrf?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
  if (o.cookie !== undefined) headers.cookie = `quarry_session=${o.cookie}`;
  if (o.csrf !== undefined) headers['x-csrf-token'] = o.csrf;
  const res = await fetch(svc.url + path, { method, headers, redirect: 'manual', body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

const cookieOf = (r: Reply) => /quarry_session=([^;]*)/.exec(r.headers.get('set-cookie') ?? '')?.[1];

async function signIn(key: string, client = newClient(), headers: Record<string, string> = {}) {
  const r = await send('POST', '/v1/admin/session', { body: { key }, headers: { 'x-forwarded-for': client, ...headers } });
  return { ...r, token: cookieOf(r), csrf: r.body?.csrf_token as string | undefined };
}

async function createKey(permissions: string[]): Promise<{ id: string; key: string }> {
  const r = await svc.call('POST', '/v1/admin/keys', { name: `web ${permissions.join('+')}`, permissions });
  expect(r.status).toBe(201);
  return r.body;
}

async function secret() {
  return svc.storage.keys.sharedSecret('unused: the service stored one at start');
}

/** Every value of every row the storage keeps, as text: what "never stored" is checked against. */
async function everythingStored(): Promise<string> {
  const out: string[] = [];
  if (svc.config.storage.backend === 'postgres') {
    const client = new pg.Client({ connectionString: svc.config.storage.databaseUrl! });
    await client.connect();
    try {
      const schema = svc.config.storage.schema;
      const tables = await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1`, [schema]);
      for (const { name } of tables.rows) {
        const rows = await client.query(`SELECT * FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`);
        out.push(JSON.stringify(rows.rows));
      }
    } finally {
      await client.end();
    }
    return out.join('\n');
  }
  for (const file of Object.values(DB_FILES)) {
    const db = new Database(join(svc.dataDir, file), { readonly: true });
    try {
      for (const { name } of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]) {
        out.push(JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all()));
      }
    } finally {
      db.close();
    }
  }
  return out.join('\n');
}

beforeAll(async () => {
  webDir = mkdtempSync(join(tmpdir(), 'quarry-web-'));
  mkdirSync(join(webDir, 'assets'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Quarry</title><script type="module" src="./assets/app-1a2b3c.js"></script>');
  writeFileSync(join(webDir, 'assets', 'app-1a2b3c.js'), 'console.log("app")');
  svc = await startTestService({ workers: false, env: { QUARRY_WEB_DIR: webDir, QUARRY_TRUST_PROXY: 'loopback' } });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs' })).status).toBe(201);
});

afterAll(async () => {
  await svc?.close();
  rmSync(webDir, { recursive: true, force: true });
});

describe('sign-in', () => {
  it('answers a session cookie with the right attributes, the key name and a CSRF token', async () => {
    const r = await signIn(MASTER_KEY);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'master key', csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_at: expect.any(String) });
    const hours = (Date.parse(r.body.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^quarry_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=(4319\d|43200)$/);
    expect(cookie).not.toMatch(/Secure/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const again = await send('GET', '/v1/admin/session', { cookie: r.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
  });

  it('marks the cookie Secure when the request came over https', async () => {
    const r = await signIn(MASTER_KEY, newClient(), { 'x-forwarded-proto': 'https' });
    expect(r.status).toBe(200);
    expect(r.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('signs in with an admin key under its own name', async () => {
    const admin = await createKey(['admin']);
    const r = await signIn(admin.key);
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('web admin');
  });

  it('refuses a wrong key with 401 and a key without admin with 403, setting no cookie', async () => {
    const wrong = await signIn('qk_not-a-key-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toMatch(/^That key is not valid: paste a key with the admin permission/);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const reader = await createKey(['read', 'write']);
    const forbidden = await signIn(reader.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toMatch(/lacks the admin permission/);
    expect(forbidden.headers.get('set-cookie')).toBeNull();
    expect((await send('POST', '/v1/admin/session', { body: {}, headers: { 'x-forwarded-for': newClient() } })).status).toBe(400);
  });

  it('limits repeated failures per client address: the 11th attempt in 15 minutes gets 429, even with the right key', async () => {
    const client = newClient();
    for (let i = 0; i < 10; i++) expect((await signIn(`qk_wrong-${i}`, client)).status).toBe(401);
    const limited = await signIn(MASTER_KEY, client);
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/Too many failed sign-ins/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(limited.token).toBeUndefined();
    expect((await signIn(MASTER_KEY, newClient())).status).toBe(200);
  });

  it('still limits failures in memory while Redis is unreachable', async () => {
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    try {
      const limiter = new KeyFailureLimiter(down, 'qtest-down');
      for (let i = 0; i < 10; i++) {
        await limiter.check('10.9.9.9');
        await limiter.fail('10.9.9.9');
      }
      await expect(limiter.check('10.9.9.9')).rejects.toMatchObject({ status: 429 });
      await expect(limiter.check('10.9.9.10')).resolves.toBeUndefined();
    } finally {
      down.disconnect();
    }
  });

  it('shares wrong keys between API processes through Redis: another process refuses the client after at most one try of its own', async () => {
    const [first, second] = [0, 1].map(() => new KeyFailureLimiter(svc.redis, `${svc.prefix}:two-processes`));
    for (let i = 0; i < 10; i++) {
      await first.check('10.9.8.7');
      await first.fail('10.9.8.7');
    }
    await expect(first.check('10.9.8.7')).rejects.toMatchObject({ status: 429 });
    // The second process has seen no wrong key from the client: one try, then Redis decides there too.
    await expect(second.check('10.9.8.7')).resolves.toBeUndefined();
    await second.fail('10.9.8.7');
    await expect(second.check('10.9.8.7')).rejects.toMatchObject({ status: 429 });
    await expect(second.check('10.9.8.6')).resolves.toBeUndefined();
  });

  it('refuses a cross-site sign-in (foreign Origin or Sec-Fetch-Site) and accepts its own origin', async () => {
    const evil = await signIn(MASTER_KEY, newClient(), { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body.message).toMatch(/Cross-site request refused/);
    expect(evil.headers.get('set-cookie')).toBeNull();
    expect((await signIn(MASTER_KEY, newClient(), { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await signIn(MASTER_KEY, newClient(), { origin: 'null' })).status).toBe(403);
    expect((await signIn(MASTER_KEY, newClient(), { origin: svc.url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });
});

describe('session authentication', () => {
  it('answers 401 without a cookie, with a forged one and with junk', async () => {
    expect((await send('GET', '/v1/admin/session')).status).toBe(401);
    expect((await send('GET', '/v1/admin/indexes')).status).toBe(401);
    const forged = randomBytes(32).toString('base64url');
    expect((await send('GET', '/v1/admin/session', { cookie: forged })).status).toBe(401);
    expect((await send('GET', '/v1/admin/indexes', { cookie: forged })).status).toBe(401);
    expect((await send('GET', '/v1/admin/indexes', { cookie: 'x'.repeat(5000) })).status).toBe(401);
  });

  it('answers 401 for an expired session', async () => {
    const s = await signIn(MASTER_KEY);
    const hash = keyedHash(await secret(), 'web-session', s.token!);
    await svc.storage.sessions.touch(hash, Date.now() - 60_000, Date.now() - 1);
    expect((await send('GET', '/v1/admin/session', { cookie: s.token })).status).toBe(401);
    const stale = await send('GET', '/v1/admin/indexes', { cookie: s.token });
    expect(stale.status).toBe(401);
    expect(stale.body.message).toMatch(/sign in again$/);
  });

  it('slides the expiry of a session in use and renews the cookie', async () => {
    const s = await signIn(MASTER_KEY);
    const hash = keyedHash(await secret(), 'web-session', s.token!);
    const soon = Date.now() + 60_000;
    await svc.storage.sessions.touch(hash, Date.now() - 120_000, soon);
    const r = await send('GET', '/v1/admin/indexes', { cookie: s.token });
    expect(r.status).toBe(200);
    expect(r.headers.get('set-cookie')).toMatch(/^quarry_session=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=(4319\d|43200)$/);
    const session = await send('GET', '/v1/admin/session', { cookie: s.token });
    expect(Date.parse(session.body.expires_at)).toBeGreaterThan(soon + 11 * 3_600_000);
  });

  it('reads everything the web app reads with the cookie, and pushes only with a key', async () => {
    const { token, csrf } = await signIn(MASTER_KEY);
    expect((await send('GET', '/v1/admin/keys', { cookie: token })).status).toBe(200);
    const search = { index_uid: 'docs', query: 'anything', boosting: 'title', filter: '', fields: [] };
    expect((await send('POST', '/v1/content/search', { cookie: token, csrf, body: search })).status).toBe(200);
    expect((await send('POST', '/v1/content/search', { cookie: token, body: search })).status).toBe(403);
    expect((await send('GET', '/v2/indexes/docs/status', { cookie: token })).body).toMatchObject({ index_uid: 'docs' });
    expect((await send('GET', '/v2/indexes/docs/documents', { cookie: token })).status).toBe(200);
    const conversations = await send('GET', '/v1/ui/conversations?uid=nope&from=2024-01-01&to=2024-01-02', { cookie: token });
    expect(conversations.status).toBe(404);
    expect((await send('GET', '/v1/ui/conversations?uid=nope&from=2024-01-01&to=2024-01-02')).status).toBe(401);
    expect((await send('GET', '/admin/queues', { cookie: token })).status).toBe(200);
    const push = await send('PUT', '/v2/indexes/docs/documents/a', { cookie: token, body: { title: 'A', content: '' } });
    expect(push.status).toBe(401);
  });

  it('needs the CSRF token on a state-changing request of a session, not on one with a key', async () => {
    const { token, csrf } = await signIn(MASTER_KEY);
    const body = { uid: 'from-app' };
    const missing = await send('POST', '/v1/admin/indexes', { cookie: token, body });
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ code: 403, message: 'Missing or wrong X-CSRF-Token header: reload the app' });
    expect((await send('POST', '/v1/admin/indexes', { cookie: token, csrf: csrf!.slice(1) + 'A', body })).status).toBe(403);
    expect((await send('POST', '/v1/admin/indexes', { cookie: token, csrf: 'short', body })).status).toBe(403);
    const evil = await send('POST', '/v1/admin/indexes', { cookie: token, csrf, body, headers: { origin: 'https://evil.example' } });
    expect(evil.status).toBe(403);
    expect((await svc.call('GET', '/v1/admin/indexes/from-app')).status).toBe(404);
    expect((await send('POST', '/v1/admin/indexes', { cookie: token, csrf, body, headers: { origin: svc.url } })).status).toBe(201);
    expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'from-key' })).status).toBe(201);
  });

  it('ends the session on sign-out (which needs the CSRF token) and clears the cookie', async () => {
    const { token, csrf } = await signIn(MASTER_KEY);
    expect((await send('DELETE', '/v1/admin/session', { cookie: token })).status).toBe(403);
    const out = await send('DELETE', '/v1/admin/session', { cookie: token, csrf });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('quarry_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
    expect((await send('GET', '/v1/admin/session', { cookie: token })).status).toBe(401);
    expect((await send('GET', '/v1/admin/indexes', { cookie: token })).status).toBe(401);
    expect((await send('DELETE', '/v1/admin/session', { cookie: token, csrf })).status).toBe(401);
  });

  it('stores only a keyed hash of the session token', async () => {
    const { token, csrf } = await signIn(MASTER_KEY);
    const stored = await everythingStored();
    expect(stored).toContain(csrf);
    expect(stored).toContain(keyedHash(await secret(), 'web-session', token!));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(MASTER_KEY);
  });

  it("ends a key's sessions when it is revoked, through the API or straight in the store", async () => {
    const viaApi = await createKey(['admin']);
    const a = await signIn(viaApi.key);
    expect((await send('GET', '/v1/admin/indexes', { cookie: a.token })).status).toBe(200);
    expect((await svc.call('DELETE', `/v1/admin/keys/${viaApi.id}`)).status).toBe(204);
    expect((await send('GET', '/v1/admin/indexes', { cookie: a.token })).status).toBe(401);
    expect(await svc.storage.sessions.deleteOfKey(viaApi.id)).toBe(0);

    // A key revoked in the store alone (the CLI's fallback when no server runs): the session's re-check of its key catches that.
    const viaCli = await createKey(['admin']);
    const b = await signIn(viaCli.key);
    await svc.storage.keys.revoke(viaCli.id);
    expect((await send('GET', '/v1/admin/session', { cookie: b.token })).status).toBe(401);
  });

  it('keeps master sessions only while the master key is the one they signed in with', async () => {
    const { token } = await signIn(MASTER_KEY);
    const ttl = svc.config.auth.sessionTtlMs;
    const same = new WebSessions(svc.storage.sessions, svc.storage.keys, await secret(), MASTER_KEY, ttl);
    const changed = new WebSessions(svc.storage.sessions, svc.storage.keys, await secret(), 'another-master-key-0123456789', ttl);
    const none = new WebSessions(svc.storage.sessions, svc.storage.keys, await secret(), null, ttl);
    expect(await same.resolve(token!)).not.toBeNull();
    expect(await changed.resolve(token!)).toBeNull();
    expect(await none.resolve(token!)).toBeNull();
  });

  it('drops expired sessions in the reconciler', async () => {
    const s = await signIn(MASTER_KEY);
    const hash = keyedHash(await secret(), 'web-session', s.token!);
    await svc.storage.sessions.touch(hash, Date.now() - 60_000, Date.now() - 1);
    const reconciler = new Reconciler(svc.storage, svc.queues, svc.redis, createLogger('silent', 'test'), { prefix: svc.prefix, batchSize: 16, graceMs: 0 });
    await reconciler.runOnce();
    expect(await svc.storage.sessions.delete(hash)).toBe(false);
  });
});

describe('openapi.json', () => {
  it('documents the session routes and the cookie', async () => {
    const doc = (await svc.call('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/admin/session']).sort()).toEqual(['delete', 'get', 'post']);
    expect(doc.paths['/v1/admin/session'].post.requestBody.content['application/json'].schema.required).toEqual(['key']);
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'quarry_session' });
  });
});

describe('keys: last used', () => {
  it('records when a key authenticates and lists it', async () => {
    const k = await createKey(['read']);
    const listed = async () => ((await svc.call('GET', '/v1/admin/keys')).body.keys as any[]).find((x) => x.id === k.id);
    expect((await listed()).last_used_at).toBeNull();
    const before = Date.now();
    expect((await svc.call('GET', '/v2/indexes/docs/status', undefined, { 'x-api-key': k.key })).status).toBe(200);
    const used = await waitFor(async () => (await listed()).last_used_at as string | null);
    expect(Date.parse(used!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(used!)).toBeLessThanOrEqual(Date.now());
  });
});

describe('the web app', () => {
  it('redirects / and /app to /app/', async () => {
    const root = await send('GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app/');
    const bare = await send('GET', '/app');
    expect(bare.headers.get('location')).toBe('/app/');
  });

  it('serves index.html for the app and its client-side routes, with the CSP and no caching', async () => {
    for (const path of ['/app/', '/app/x/y', '/app/indexes/docs?tab=keys']) {
      const r = await send('GET', path);
      expect(r.status).toBe(200);
      expect(r.body).toContain('<title>Quarry</title>');
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('content-security-policy')).toBe(CSP);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('caches hashed assets for a year and answers 404 for missing ones', async () => {
    const asset = await send('GET', '/app/assets/app-1a2b3c.js');
    expect(asset.status).toBe(200);
    expect(asset.body).toBe('console.log("app")');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(CSP);
    const missing = await send('GET', '/app/assets/gone-000.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBe(CSP);
  });

  it('answers 503 with what to run when the app is not built', async () => {
    const index = join(webDir, 'index.html');
    renameSync(index, `${index}.away`);
    try {
      const r = await send('GET', '/app/');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ code: 503, message: 'The web app is not built: run npm run build:web' });
      expect(r.headers.get('content-security-policy')).toBe(CSP);
    } finally {
      renameSync(`${index}.away`, index);
    }
  });
});
