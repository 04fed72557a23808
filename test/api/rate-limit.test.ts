import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import express, { type Request, type RequestHandler } from 'express';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { errorHandler } from '../../api/middleware/error-handler.js';
import { admission, searchRateLimit, type RateLimitOptions } from '../../api/middleware/rate-limit.js';
import { deleteKeys } from '../helpers/test-service.js';

const prefix = `qtest-${randomUUID().slice(0, 8)}`;
const uidOf = (req: Request) => (typeof req.query.uid === 'string' ? req.query.uid : typeof req.body?.uid === 'string' ? req.body.uid : undefined);

let redis: Redis;
const closers: Array<() => Promise<void> | void> = [];
let limiterCount = 0;

/** Options for a limiter whose keys no other test touches. */
function options(perClient: number, perUid: number, extra: Partial<RateLimitOptions> = {}): RateLimitOptions {
  return {
    redis, prefix: `${prefix}:rl${++limiterCount}`, uidOf,
    perClient: { points: perClient, seconds: 60 }, perUid: { points: perUid, seconds: 60 }, ...extra,
  };
}

/** What the stand-in route did: requests it started work for, and those it answered after their count. */
const work = { started: 0, answered: 0 };

/**
 * A stand-in for one API process: the middleware in front of a search route, on a real socket. The route
 * waits for the request's count when it runs beside the work (overlaps), as the search interface's do.
 */
async function serve(limit: RequestHandler) {
  const app = express();
  app.set('trust proxy', 'loopback'); // lets a test speak for several client addresses through X-Forwarded-For
  app.use(express.json());
  app.use(limit);
  app.all('/v1/ui/search', async (req, res, next) => {
    work.started++;
    const refused = await admission(req);
    if (refused) return next(refused);
    work.answered++;
    res.json({ ok: true });
  });
  app.use(errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    const closed = new Promise((r) => server.close(r));
    server.closeAllConnections();
    await closed;
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (client: string, uid?: string, init: RequestInit = {}) => {
    const res = await fetch(`${url}/v1/ui/search${uid === undefined ? '' : `?uid=${uid}`}`, {
      ...init,
      headers: { 'x-forwarded-for': client, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
}

function client(r: Redis) {
  r.on('error', () => {}); // refused connections are the point of these tests
  closers.push(() => r.disconnect());
  return r;
}

/** Until a client is ready the limiter lets requests through unlimited, which is not what most tests are about. */
async function ready(r: Redis) {
  client(r);
  await once(r, 'ready');
  return r;
}

beforeAll(async () => {
  redis = await ready(new Redis(inject('redisUrl')));
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  for (const close of closers.reverse()) await close();
});

describe('searchRateLimit', () => {
  it('rejects a client address over its budget with 429, Retry-After and a message naming the limit', async () => {
    const call = await serve(searchRateLimit(options(3, 1000)));
    for (let i = 2; i >= 0; i--) {
      const ok = await call('10.0.0.1', 'cfg');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(i));
      expect(Number(ok.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    const limited = await call('10.0.0.1', 'cfg');
    expect(limited.status).toBe(429);
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(limited.body.code).toBe(429);
    expect(limited.body.message).toBe(`Rate limit per client address exceeded (3 requests per 60 seconds); retry in ${retryAfter} seconds`);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    expect((await call('10.0.0.2', 'cfg')).status).toBe(200);
    expect((await call('10.0.0.1')).status).toBe(429); // no uid: the client limit still applies
  });

  it('does not spend per-uid points on requests already refused per client', async () => {
    const call = await serve(searchRateLimit(options(1, 2)));
    expect((await call('10.0.1.1', 'shared')).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await call('10.0.1.1', 'shared')).status).toBe(429);
    expect((await call('10.0.1.2', 'shared')).status).toBe(200);
    const limited = await call('10.0.1.3', 'shared');
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/^Rate limit per configuration uid exceeded \(2 requests per 60 seconds\); retry in \d+ seconds$/);
  });

  it('shares the per-uid budget between API processes through Redis', async () => {
    const o = options(1000, 3);
    const first = await serve(searchRateLimit(o));
    const second = await serve(searchRateLimit({ ...o, redis: await ready(new Redis(inject('redisUrl'))) }));
    expect((await first('10.0.2.1', 'busy')).status).toBe(200);
    expect((await second('10.0.2.2', 'busy')).status).toBe(200);
    expect((await first('10.0.2.3', 'busy')).status).toBe(200);
    const limited = await second('10.0.2.4', 'busy');
    expect(limited.status).toBe(429);
    expect(limited.body.message).toContain('per configuration uid');
    expect((await first('10.0.2.5', 'busy')).status).toBe(429);

    expect((await first('10.0.2.6', 'quiet')).status).toBe(200); // other uids keep their own budget
    expect((await second('10.0.2.6', 'quiet')).status).toBe(200);
  });

  it('reports the tighter of the two limits in the RateLimit headers', async () => {
    const call = await serve(searchRateLimit(options(5, 3)));
    const withUid = await call('10.0.3.1', 'tight');
    expect([withUid.headers.get('ratelimit-limit'), withUid.headers.get('ratelimit-remaining')]).toEqual(['3', '2']);
    const withoutUid = await call('10.0.3.1');
    expect([withoutUid.headers.get('ratelimit-limit'), withoutUid.headers.get('ratelimit-remaining')]).toEqual(['5', '3']);
  });

  it('takes the uid from a JSON body', async () => {
    const call = await serve(searchRateLimit(options(1000, 1)));
    const post = (c: string) => call(c, undefined, { method: 'POST', body: JSON.stringify({ uid: 'posted' }) });
    expect((await post('10.0.4.1')).status).toBe(200);
    expect((await post('10.0.4.2')).status).toBe(429);
  });

  it('keys a very long uid by its hash, not by itself', async () => {
    const o = options(1000, 1);
    const call = await serve(searchRateLimit(o));
    const post = (c: string) => call(c, undefined, { method: 'POST', body: JSON.stringify({ uid: 'u'.repeat(100_000) }) });
    expect((await post('10.0.7.1')).status).toBe(200);
    expect((await post('10.0.7.2')).status).toBe(429);
    // One SCAN call covers only part of a Redis other runs share: walk the cursor to the end.
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${o.prefix}:uid:*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    expect(keys).toEqual([`${o.prefix}:uid:sha256:${createHash('sha256').update('u'.repeat(100_000)).digest('hex')}`]);
  });

  it('lets requests through when Redis refuses connections, and reports the error', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));

    const errors: unknown[] = [];
    // Like the app's own client: commands would wait in the offline queue for a Redis that is not there.
    const down = client(new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null }));
    const call = await serve(searchRateLimit(options(1, 1, { redis: down, onError: (e) => errors.push(e) })));
    for (let i = 0; i < 4; i++) {
      const res = await call('10.0.5.1', 'cfg');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
    expect(errors).toHaveLength(4); // one per request: a failed client limit skips the uid limit
  });

  it('lets requests through when a connected Redis stops answering', async () => {
    const proxy = await freezableProxy(new URL(inject('redisUrl')));
    const errors: unknown[] = [];
    const stalled = await ready(new Redis({ host: '127.0.0.1', port: proxy.port, maxRetriesPerRequest: null }));
    const call = await serve(searchRateLimit(options(1, 1, { redis: stalled, onError: (e) => errors.push(e), timeoutMs: 100 })));
    expect((await call('10.0.6.1', 'cfg')).status).toBe(200);
    expect((await call('10.0.6.1', 'cfg')).status).toBe(429);

    proxy.freeze();
    const res = await call('10.0.6.2', 'cfg');
    expect(res.status).toBe(200);
    expect(String(errors[0])).toContain('did not answer');
  });

  it('counts beside the work when asked (overlaps): the same 429s, nothing answered for a refused request, a known key refused before any work', async () => {
    const call = await serve(searchRateLimit(options(2, 1000, { overlaps: () => true })));
    const before = { ...work };
    for (let i = 0; i < 2; i++) {
      const ok = await call('10.0.3.1', 'cfg');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('2');
    }
    const refused = await call('10.0.3.1', 'cfg');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body.message).toMatch(/^Rate limit per client address exceeded/);
    // The third request's work started beside its count and was not answered; the fourth never reached the route.
    expect(work.started - before.started).toBe(3);
    expect(work.answered - before.answered).toBe(2);
    expect((await call('10.0.3.1', 'cfg')).status).toBe(429);
    expect(work.started - before.started).toBe(3);
    expect((await call('10.0.3.2', 'cfg')).status).toBe(200);
  });
});

/** A TCP proxy to Redis that can stop forwarding while the connection stays up: a hung Redis. */
async function freezableProxy(target: URL) {
  let frozen = false;
  const sockets: Socket[] = [];
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port || 6379), target.hostname);
    sockets.push(inbound, outbound);
    inbound.on('data', (d) => frozen || outbound.write(d));
    outbound.on('data', (d) => frozen || inbound.write(d));
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      frozen = true;
    },
  };
}
