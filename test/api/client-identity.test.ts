import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASTER_KEY, startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { widgetCall, type WidgetResponse } from '../helpers/widget-client.js';

/**
 * Who the client is (issue 22, findings 2, 6 and 8). The service trusts one proxy, 127.0.0.1, by address
 * (QUARRY_TRUST_PROXY=127.0.0.1): requests from there speak for the client their X-Forwarded-For names, as
 * a reverse proxy's do. Every other loopback address is a client reaching the API directly, whose proxy
 * headers must change nothing. IPv6 clients arrive through the trusted proxy (the service listens on IPv4).
 */
let svc: TestService;
const PROXY = '127.0.0.1';
const RATE = 8;
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let uid: string;

/** Proxy headers a direct client may send, different every time: none of them may make it another client. */
const spoofed = (i: number): Record<string, string> => ({
  'x-forwarded-for': `198.51.100.${i}, 2001:db8:${i}::1`,
  forwarded: `for=192.0.2.${i};proto=https, for="[2001:db8:cafe::${i}]"`,
  'x-real-ip': `203.0.113.${i}`,
  'x-client-ip': `192.0.2.${i}`,
});

const call = (method: string, path: string, from: string, headers: Record<string, string> = {}, params: Record<string, unknown> = {}) =>
  widgetCall(svc.url, method, path, params, { from, headers });
const search = (from: string, query: string, session: string, headers: Record<string, string> = {}) =>
  call('GET', '/v1/ui/search', from, headers, { uid, 'session-id': session, query });
const signIn = (from: string, key: string, headers: Record<string, string> = {}) => call('POST', '/v1/admin/session', from, headers, { key });
const suggestions = async (query: string) =>
  ((await call('GET', '/v1/ui/autocomplete', PROXY, { 'x-forwarded-for': '192.0.2.250' }, { uid, query })).body.suggestions as { suggestion: string }[]).map((s) => s.suggestion);

function expectKeyLimited(r: WidgetResponse): void {
  expect(r.status).toBe(429);
  expect(r.body.message).toMatch(/^Too many failed sign-ins or wrong API keys from this address \(10 in 15 minutes\): wait \d+ seconds/);
  const retryAfter = Number(r.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(800);
  expect(retryAfter).toBeLessThanOrEqual(900);
}

beforeAll(async () => {
  svc = await startTestService({
    env: { QUARRY_TRUST_PROXY: PROXY, QUARRY_RATE_LIMIT_CLIENT: `${RATE}/600`, QUARRY_RATE_LIMIT_UID: '100000/10', QUARRY_METRICS_TOKEN: METRICS_TOKEN },
  });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'kb' })).status).toBe(201);
  expect((await svc.call('PUT', '/v2/indexes/kb/documents/refunds', { title: 'Refunds', content: '<p>How refunds work: call support or write to us.</p>' })).status).toBe(204);
  await waitFor(async () => ((await svc.call('GET', '/v1/admin/indexes/kb')).body.progress.pending === 0 ? true : null));
  uid = (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'who', indexes: ['kb'], autocomplete_min_queries: 0 })).body.uid;
}, 60_000);
afterAll(() => svc?.close());

describe('proxy headers from a client that is not a trusted proxy change nothing', () => {
  it('the per-client rate limit: a direct client rotating X-Forwarded-For, Forwarded and X-Real-IP gets 429 past its budget', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= RATE + 4; i++) statuses.push((await search('127.0.99.1', 'refunds', `s${i}`, spoofed(i))).status);
    expect(statuses.slice(0, RATE)).toEqual(Array(RATE).fill(200));
    expect(statuses.slice(RATE)).toEqual([429, 429, 429, 429]);
    // The trusted proxy still speaks for many clients: each forwarded address has its own budget.
    for (let i = 1; i <= RATE + 4; i++) expect((await search(PROXY, 'refunds', `p${i}`, { 'x-forwarded-for': `198.51.100.${i}` })).status).toBe(200);
  });

  it('the sign-in limit: 15 wrong keys from one direct client with rotating proxy headers end in 429, the right key too', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 15; i++) statuses.push((await signIn('127.0.99.2', `qk_wrong-${i}`, spoofed(i))).status);
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
    expectKeyLimited(await signIn('127.0.99.2', MASTER_KEY, spoofed(99)));
    expect((await signIn('127.0.99.20', MASTER_KEY)).status).toBe(200);
  });

  it('learning: one direct client rotating proxy headers and sessions publishes no suggestion; three forwarded visitors do', async () => {
    for (let i = 1; i <= 6; i++) expect((await search('127.0.99.3', 'refund scam call 555-0100', `bot-${i}`, spoofed(i))).status).toBe(200);
    for (const n of [1, 2, 3]) expect((await search(PROXY, 'refunds policy', `visitor-${n}`, { 'x-forwarded-for': `192.0.2.${n}` })).status).toBe(200);
    await svc.flushEvents();
    expect(await suggestions('refund scam')).toEqual([]);
    expect(await suggestions('refunds pol')).toEqual(['refunds policy']);
  });
});

describe('IPv6: the addresses of one /64 are one client', () => {
  /** The i-th address of the /64 2001:db8:aa:<net>::/64, each differing in its interface part. */
  const inNet = (i: number, net = 'bb') => `2001:db8:aa:${net}:${i.toString(16)}:${((i * 7919) & 0xffff).toString(16)}:0:${i.toString(16)}`;

  it('shares one rate-limit budget across the /64; another /64 has its own', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= RATE + 2; i++) statuses.push((await search(PROXY, 'refunds', `v6-${i}`, { 'x-forwarded-for': inNet(i) })).status);
    expect(statuses).toEqual([...Array(RATE).fill(200), 429, 429]);
    expect((await search(PROXY, 'refunds', 'v6-other', { 'x-forwarded-for': '2001:db8:aa:bc::1' })).status).toBe(200);
    // IPv4-mapped IPv6 is the IPv4 client it maps.
    for (let i = 0; i < RATE; i++) expect((await search(PROXY, 'refunds', `m${i}`, { 'x-forwarded-for': '198.51.100.77' })).status).toBe(200);
    expect((await search(PROXY, 'refunds', 'mapped', { 'x-forwarded-for': '::ffff:198.51.100.77' })).status).toBe(429);
  });

  it('shares one wrong-key budget across the /64', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) statuses.push((await signIn(PROXY, `qk_wrong-${i}`, { 'x-forwarded-for': inNet(i, 'cc') })).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    expect((await signIn(PROXY, MASTER_KEY, { 'x-forwarded-for': '2001:db8:aa:bd::1' })).status).toBe(200);
  });

  it('learning counts one network for the whole /64', async () => {
    for (let i = 1; i <= 5; i++) expect((await search(PROXY, 'refund from one line', `line-${i}`, { 'x-forwarded-for': inNet(i, 'dd') })).status).toBe(200);
    for (const n of [1, 2, 3]) expect((await search(PROXY, 'refund from three lines', `lines-${n}`, { 'x-forwarded-for': inNet(1, `e${n}`) })).status).toBe(200);
    await svc.flushEvents();
    expect(await suggestions('refund from')).toEqual(['refund from three lines']);
  });
});

describe('wrong API keys on keyed routes', () => {
  const basic = (key: string) => `Basic ${Buffer.from(`admin:${key}`).toString('base64')}`;
  /** A wrong key on each kind of keyed route, in turn: push, content, admin, dashboard (Basic), metrics (Bearer), readiness. */
  const wrongKey = (from: string, i: number) => {
    const key = `qk_wrong-key-${i}`;
    switch (i % 6) {
      case 0: return call('PUT', '/v2/indexes/kb/documents/guess', from, { 'x-api-key': key }, { title: 'x', content: 'x' });
      case 1: return call('POST', '/v1/content/search', from, { 'x-api-key': key }, { index_uid: 'kb', query: 'x', boosting: 'title' });
      case 2: return call('GET', '/v1/admin/indexes', from, { 'x-api-key': key });
      case 3: return call('GET', '/admin/queues/', from, { authorization: basic(key) });
      case 4: return call('GET', '/metrics', from, { authorization: `Bearer ${key}` });
      default: return call('GET', '/readyz', from, { 'x-api-key': key });
    }
  };

  it('15 wrong keys on one keyed route: the 11th and later get 429 with Retry-After', async () => {
    const answers: WidgetResponse[] = [];
    for (let i = 0; i < 15; i++) answers.push(await call('PUT', '/v2/indexes/kb/documents/guess', '127.0.98.1', { 'x-api-key': `qk_wrong-${i}` }, { title: 'x', content: 'x' }));
    expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
    for (const a of answers.slice(10)) expectKeyLimited(a);
  });

  it('count together across routes, with sign-in; once out of them every key of that client is refused, the right one too', async () => {
    const from = '127.0.98.2';
    const before: number[] = [];
    for (let i = 0; i < 10; i++) before.push((await wrongKey(from, i)).status);
    expect(before).not.toContain(429);
    for (let i = 10; i < 16; i++) expectKeyLimited(await wrongKey(from, i));
    expectKeyLimited(await call('PUT', '/v2/indexes/kb/documents/right', from, { 'x-api-key': MASTER_KEY }, { title: 'x', content: 'x' }));
    expectKeyLimited(await call('GET', '/metrics', from, { authorization: `Bearer ${METRICS_TOKEN}` }));
    expectKeyLimited(await signIn(from, MASTER_KEY));
    // Without a key nothing is guessed: the client's anonymous requests and other clients' keys go on.
    expect((await call('GET', '/healthz', from)).status).toBe(200);
    expect((await call('PUT', '/v2/indexes/kb/documents/right', '127.0.98.3', { 'x-api-key': MASTER_KEY }, { title: 'x', content: 'x' })).status).toBe(204);
  });

  it('the metrics token and right keys count nothing', async () => {
    const from = '127.0.98.4';
    for (let i = 0; i < 15; i++) {
      expect((await call('GET', '/metrics', from, { authorization: `Bearer ${METRICS_TOKEN}` })).status).toBe(200);
      expect((await call('GET', '/v1/admin/indexes', from, { 'x-api-key': MASTER_KEY })).status).toBe(200);
    }
  });
});
