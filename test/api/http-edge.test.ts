import { Writable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logging/create-logger.js';
import { MASTER_KEY, startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { filler, rawRequest, trickle } from '../helpers/raw-http.js';

/**
 * The HTTP edge (issue 14): nothing is read or parsed before its route group's authentication or rate
 * limit, every group has a body limit of its own, and a body that trickles in is cut off while other
 * requests are answered. Requests go over plain sockets so a test decides what is sent and when.
 */
const TWENTY_MB = 20_000_000;
let svc: TestService;
/** The app's log lines (info and up, as in production), parsed. */
const logLines: { level: number; msg: string; error?: string; message?: string }[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const l of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(l));
    done();
  },
});

beforeAll(async () => {
  svc = await startTestService({
    workers: false,
    log: createLogger('info', 'api', sink),
    // Each test speaks for its own client address; a short request timeout keeps the slow-loris cases short.
    env: { QUARRY_TRUST_PROXY: 'loopback', QUARRY_RATE_LIMIT_CLIENT: '2/600', QUARRY_REQUEST_TIMEOUT_SECONDS: '3' },
  });
});
afterAll(async () => {
  await svc?.close();
});

const searchInterface = (client: string) =>
  fetch(`${svc.url}/v1/ui/search?uid=nope&query=hello&session-id=s1`, { headers: { 'x-forwarded-for': client } });

/** Uses up a client address's budget (2 requests), then sees its first 429. */
async function exhaust(client: string) {
  for (let i = 0; i < 2; i++) expect((await searchInterface(client)).status).toBe(404);
  expect((await searchInterface(client)).status).toBe(429);
}

describe('bodies are not read before rate limits and authentication', () => {
  it('a 20 MB body from a rate-limited address gets 429 without being parsed (not JSON: parsing would give 400)', async () => {
    await exhaust('10.14.0.1');
    const r = await rawRequest(svc.url, {
      method: 'POST', path: '/v1/ui/search',
      headers: { 'x-forwarded-for': '10.14.0.1', 'content-type': 'application/json', 'content-length': TWENTY_MB },
      chunks: filler(TWENTY_MB),
    });
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body)).toMatchObject({ code: 429, message: expect.stringContaining('Rate limit per client address') });
    expect(r.headers['retry-after']).toMatch(/^\d+$/);
    // The server answered and closed instead of reading the rest.
    expect(r.headers.connection).toBe('close');
    expect(r.closed).toBe(true);
    expect(r.bodyBytesWhenAnswered).toBeLessThan(TWENTY_MB);
  });

  it('a rate-limited address is answered before its declared body arrives at all', async () => {
    await exhaust('10.14.0.2');
    // 20 MB declared, 64 KB sent: a server reading the body first would wait for the rest (until its request timeout).
    const r = await rawRequest(svc.url, {
      method: 'POST', path: '/v1/tool/chat',
      headers: { 'x-forwarded-for': '10.14.0.2', 'content-length': TWENTY_MB, origin: 'https://site.example' },
      chunks: filler(64 * 1024),
    });
    expect(r.status).toBe(429);
    // A widget on any site can read the refusal and its Retry-After.
    expect(r.headers['access-control-allow-origin']).toBe('https://site.example');
  }, 20_000);

  it('a push route without a key answers 401 before reading the body', async () => {
    const r = await rawRequest(svc.url, {
      method: 'POST', path: '/v2/indexes/docs/documents',
      headers: { 'content-type': 'application/json', 'content-length': TWENTY_MB },
      chunks: filler(64 * 1024),
    });
    expect(r.status).toBe(401);
    expect(r.closed).toBe(true);
  }, 20_000);

  it('an admin route without a key answers 401 before reading the body', async () => {
    const r = await rawRequest(svc.url, {
      method: 'POST', path: '/v1/admin/configurations', headers: { 'content-length': 5_000_000 }, chunks: filler(64 * 1024),
    });
    expect(r.status).toBe(401);
  }, 20_000);
});

describe('each route group has its own body limit', () => {
  it('a search-interface body over 32 KB is 413 with a message, before it is read', async () => {
    const body = JSON.stringify({ uid: 'nope', query: 'q'.repeat(100_000), 'session-id': 's' });
    const res = await fetch(`${svc.url}/v1/ui/search`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.14.0.3' }, body,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 413, message: expect.stringMatching(/32768 byte limit/) });

    const declared = await rawRequest(svc.url, {
      method: 'POST', path: '/v1/ui/chat', headers: { 'x-forwarded-for': '10.14.0.3', 'content-length': TWENTY_MB }, chunks: filler(64 * 1024),
    });
    expect(declared.status).toBe(413);
    expect(declared.closed).toBe(true);
  });

  it('a chunked search-interface body is cut off at the limit', async () => {
    const r = await rawRequest(svc.url, {
      method: 'POST', path: '/v1/ui/search',
      headers: { 'x-forwarded-for': '10.14.0.4', 'transfer-encoding': 'chunked' },
      chunks: (function* () {
        for (let i = 0; i < 10; i++) yield Buffer.from(`10000\r\n${'x'.repeat(0x10000)}\r\n`);
        yield Buffer.from('0\r\n\r\n');
      })(),
    });
    expect(r.status).toBe(413);
  });

  it('push routes keep QUARRY_MAX_BODY_BYTES: a 100 KB document is accepted', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'edge' });
    const r = await svc.call('PUT', '/v2/indexes/edge/documents/big', { title: 'Big', content: `<p>${'word '.repeat(20_000)}</p>` });
    expect(r.status).toBe(204);
  });
});

describe('a body that trickles in is cut off', () => {
  it('a trickling push body is answered 408 and closed at the request timeout, while a probe on another route is answered', async () => {
    const slow = rawRequest(svc.url, {
      method: 'PUT', path: '/v2/indexes/edge/documents/slow',
      headers: { 'x-api-key': MASTER_KEY, 'content-type': 'application/json', 'content-length': 1000 },
      chunks: trickle(1000, 200), // 200 s if it ran to the end
    });
    const probe = await fetch(`${svc.url}/healthz`);
    expect(probe.status).toBe(200);
    const r = await slow;
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body)).toMatchObject({ code: 408 });
    expect(r.closed).toBe(true);
    expect(r.bodyBytesWhenAnswered).toBeLessThan(1000);
  }, 30_000);

  it('a trickling search-interface body is answered 408 while searches from other clients are answered', async () => {
    const slow = rawRequest(svc.url, {
      method: 'POST', path: '/v1/ui/search',
      headers: { 'x-forwarded-for': '10.14.0.5', 'content-type': 'application/json', 'content-length': 1000 },
      chunks: trickle(1000, 200),
    });
    expect((await searchInterface('10.14.0.6')).status).toBe(404);
    const r = await slow;
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body)).toMatchObject({ code: 408, message: expect.any(String) });
    expect(r.closed).toBe(true);
  }, 30_000);
});

describe('identifiers are bounded at the edge', () => {
  const huge = 'i'.repeat(1_000_000);

  it('a 1 MB index_uid in a content search is a 400 naming the field, not a lookup echoing it', async () => {
    const r = await svc.call('POST', '/v1/content/search', { index_uid: huge, query: 'x', boosting: 'title' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/index_uid: must be at most 64 characters/);
    expect(JSON.stringify(r.body).length).toBeLessThan(1000);
  });

  it('a key limited to one index gets a 400, not a 403 quoting the 1 MB uid', async () => {
    const key = (await svc.call('POST', '/v1/admin/keys', { name: 'scoped', permissions: ['read'], indexes: ['edge'] })).body.key;
    const r = await svc.call('POST', '/v1/content/search', { index_uid: huge, query: 'x', boosting: 'title' }, { 'x-api-key': key });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body).length).toBeLessThan(1000);
  });

  it('admin path identifiers longer than any real one are a 400 naming the parameter', async () => {
    const long = 'c'.repeat(5000);
    for (const path of [`/v1/admin/configurations/${long}`, `/v1/admin/indexes/${long}`, `/v1/admin/indexes/edge/documents/${'d'.repeat(600)}/sections`]) {
      const r = await svc.call('GET', path);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^Invalid request: (uid|doc): must be at most \d+ characters$/);
    }
  });

  it('date parameters are bounded, so a 400 never quotes kilobytes back', async () => {
    const long = '2024-01-01'.repeat(1000);
    const r = await svc.call('GET', `/v1/admin/configurations/nope/conversations?from=${long}&to=2024-02-01`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/from: must be at most 40 characters/);
    expect(JSON.stringify(r.body).length).toBeLessThan(1000);
  });
});

describe('conversation listings come in pages', () => {
  let uid: string;
  beforeAll(async () => {
    uid = (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'Pages', indexes: ['edge'] })).body.uid;
    for (let i = 0; i < 25; i++) {
      await svc.storage.conversations.append(uid, `conv-${i}`, 'session-hash', { question: 'q', reply: 'r', references: [], at: Date.parse('2026-01-01') + (i % 5) * 1000 });
    }
  });

  /** Follows next_cursor from the first page to the last; the ids in order and how many pages. */
  async function walk(get: (cursor: string | null) => Promise<{ status: number; body: any }>, idOf: (c: any) => string) {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await get(cursor);
      expect(r.status).toBe(200);
      expect(r.body.conversations.length).toBeLessThanOrEqual(10);
      ids.push(...r.body.conversations.map(idOf));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    return { ids, pages };
  }
  const range = 'from=2025-12-31&to=2026-01-02&limit=10';

  it('the admin listing pages with limit and next_cursor, every conversation once', async () => {
    const { ids, pages } = await walk(
      (cursor) => svc.call('GET', `/v1/admin/configurations/${uid}/conversations?${range}${cursor ? `&cursor=${cursor}` : ''}`), (c) => c.id);
    expect(pages).toBe(3);
    expect([...ids].sort()).toEqual(Array.from({ length: 25 }, (_, i) => `conv-${i}`).sort());
  });

  it('the search interface\'s listing pages the same way', async () => {
    let n = 0;
    const { ids, pages } = await walk((cursor) => svc.call('GET', `/v1/ui/conversations?uid=${uid}&${range}${cursor ? `&cursor=${cursor}` : ''}`,
      undefined, { 'x-forwarded-for': `10.15.0.${++n}` }), (c) => c.conversation_id);
    expect(pages).toBe(3);
    expect(new Set(ids).size).toBe(25);
  });

  it('a limit over 1000 or a cursor this API did not give is a 400 naming it', async () => {
    const big = await svc.call('GET', `/v1/admin/configurations/${uid}/conversations?from=2025-12-31&to=2026-01-02&limit=5000`);
    expect(big.status).toBe(400);
    expect(big.body.message).toMatch(/limit: must be from 1 to 1000/);
    const forged = await svc.call('GET', `/v1/admin/configurations/${uid}/conversations?from=2025-12-31&to=2026-01-02&cursor=bm9wZQ`);
    expect(forged.status).toBe(400);
    expect(forged.body.message).toMatch(/cursor: /);
  });
});

describe('compressed bodies', () => {
  const COMPRESS = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
  let client = 0;
  /** Each request from an address of its own: the file's client limit is 2 requests. */
  const send = (path: string, encoding: string, body: Buffer, headers: Record<string, string> = {}) =>
    fetch(svc.url + path, {
      method: path.startsWith('/v2/') ? 'PUT' : 'POST', body: new Uint8Array(body),
      headers: { 'content-type': 'application/json', 'content-encoding': encoding, 'x-forwarded-for': `10.22.4.${++client}`, ...headers },
    });
  const ROUTES: { name: string; path: string; headers: Record<string, string> }[] = [
    { name: 'push (keyed)', path: '/v2/indexes/edge-compressed/documents/a', headers: { 'x-api-key': MASTER_KEY } },
    { name: 'admin (keyed)', path: '/v1/admin/indexes', headers: { 'x-api-key': MASTER_KEY } },
    { name: 'search interface (anonymous)', path: '/v1/ui/search', headers: {} },
    { name: 'sign-in (anonymous)', path: '/v1/admin/session', headers: {} },
  ];

  for (const [encoding, compress] of Object.entries(COMPRESS)) {
    it(`a body that does not inflate as ${encoding} is a 400 naming the encoding on keyed and anonymous routes, logged as a client error`, async () => {
      const from = logLines.length;
      const whole = compress(Buffer.from(JSON.stringify({ uid: 'x', query: 'refunds', title: 'T', content: 'c', key: 'k' })));
      const corrupt = [Buffer.from('this was never compressed'), whole.subarray(0, whole.length - 4), Buffer.concat([whole.subarray(0, 6), Buffer.alloc(64, 0xa5)])];
      for (const route of ROUTES) {
        for (const body of corrupt) {
          const r = await send(route.path, encoding, body, route.headers);
          expect(r.status, `${route.name}: ${body.toString('hex', 0, 12)}`).toBe(400);
          expect(await r.json()).toEqual({ code: 400, error: 'invalid_request', message: expect.stringContaining(`not valid ${encoding} data`) });
        }
      }
      await waitFor(() => logLines.length - from >= ROUTES.length * corrupt.length * 2, 5000);
      const lines = logLines.slice(from);
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      expect(lines.filter((l) => l.msg === 'request rejected' && /not valid/.test(l.message ?? ''))).toHaveLength(ROUTES.length * corrupt.length);
    });
  }

  it('a well-formed compressed body is read as if it were sent plain', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'edge-compressed' });
    for (const [encoding, compress] of Object.entries(COMPRESS)) {
      const r = await send(`/v2/indexes/edge-compressed/documents/${encoding}`, encoding, compress(Buffer.from(JSON.stringify({ title: encoding, content: 'x' }))), { 'x-api-key': MASTER_KEY });
      expect(r.status, encoding).toBe(204);
    }
  });

  it('an encoding the service does not inflate is a 415 naming it, on keyed and anonymous routes', async () => {
    for (const route of ROUTES) {
      const r = await send(route.path, 'x-quarry-unknown', Buffer.from('{}'), route.headers);
      expect(r.status, route.name).toBe(415);
      expect(await r.json()).toMatchObject({ code: 415, message: expect.stringContaining("'x-quarry-unknown'") });
    }
  });

  it('a body that inflates past its route group\'s limit is a 413 saying so', async () => {
    // 10 MB of spaces is about 10 KB of gzip: the search interface's limit is 32 KB inflated.
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"uid":"x","query":"'), Buffer.alloc(10_000_000, 'a'), Buffer.from('"}')]));
    expect(bomb.length).toBeLessThan(32_768);
    const r = await send('/v1/ui/search', 'gzip', bomb);
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ code: 413, message: expect.stringMatching(/32768 byte limit .* once decompressed/) });
  });
});
