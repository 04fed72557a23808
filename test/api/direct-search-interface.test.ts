import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

/**
 * The search interface's GET search without a body is answered before Express
 * (api/routes/direct-search-interface.ts); the same request with a trailing slash goes through the app's
 * router. Both must give the same answers: status, results (feedback_data apart: each search signs its own
 * event), CORS, rate-limit and security headers, error bodies, metrics.
 */
let svc: TestService;
let uid = '';
const DIRECT = '/v1/ui/search';
const ROUTED = '/v1/ui/search/';
const HEADERS = ['content-type', 'vary', 'access-control-allow-origin', 'access-control-expose-headers', 'ratelimit-limit', 'retry-after',
  'x-frame-options', 'x-content-type-options', 'referrer-policy', 'content-security-policy', 'connection'];
/** Per client address and per uid: a client over its budget is refused on both forms (the last test). */
const BUDGET = 40;

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_RATE_LIMIT_CLIENT: `${BUDGET}/600`, QUARRY_RATE_LIMIT_UID: '100000/600' } });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'kb', language_code: 'en' })).status).toBe(201);
  for (const [id, title] of [['refund', 'Refund policy'], ['install', 'Install guide'], ['ship', 'Shipping and refunds']]) {
    expect((await svc.call('PUT', `/v2/indexes/kb/documents/${id}`, { title, content: `<p>${title}: what to do and when.</p>` })).status).toBe(204);
  }
  await waitFor(async () => ((await svc.call('GET', '/v1/admin/indexes/kb')).body.progress.pending === 0 ? true : null));
  const r = await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'ui', indexes: ['kb'], result_count: 5, allowed_origins: ['https://shop.example'] });
  expect(r.status).toBe(201);
  uid = r.body.uid;
});
afterAll(() => svc.close());

async function get(path: string, params: Record<string, string>, headers: Record<string, string>) {
  const res = await fetch(`${svc.url}${path}?${new URLSearchParams(params)}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function both(given: Record<string, string>, headers: Record<string, string> = {}) {
  const params = headers['x-session-id'] || 'session-id' in given ? given : { 'session-id': 's0', ...given };
  const direct = await get(DIRECT, params, headers);
  const routed = await get(ROUTED, params, headers);
  const view = (r: Awaited<ReturnType<typeof get>>) => ({
    status: r.status,
    body: r.body?.results ? { results: r.body.results.map(({ feedback_data: _, ...rest }: Record<string, unknown>) => rest) } : r.body,
    headers: Object.fromEntries(HEADERS.map((h) => [h, r.headers.get(h)])),
  });
  expect(view(direct)).toEqual(view(routed));
  expect(direct.headers.get('x-request-id')).toBeTruthy();
  return { direct, routed };
}

describe('the direct search-interface search answers as the routed one', () => {
  it('the same results and headers, with and without an allowed Origin, with the session as a header', async () => {
    let { direct } = await both({ uid, query: 'refund', 'session-id': 's1' });
    expect(direct.status).toBe(200);
    expect(direct.body.results.map((r: { title: string }) => r.title)).toContain('Refund policy');
    expect(direct.body.results[0].feedback_data).toBeTruthy();
    ({ direct } = await both({ uid, query: 'refund' }, { origin: 'https://shop.example', 'x-session-id': 's2' }));
    expect(direct.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(direct.headers.get('ratelimit-limit')).toBe(String(BUDGET));
  });

  it('a disallowed Origin is the same 403; the service\'s own origin is no cross-origin use', async () => {
    let { direct } = await both({ uid, query: 'refund' }, { origin: 'https://evil.example' });
    expect(direct.status).toBe(403);
    expect(direct.body.message).toContain('allowed_origins');
    ({ direct } = await both({ uid, query: 'refund' }, { origin: svc.url }));
    expect(direct.status).toBe(200);
  });

  it('no uid, an unknown uid, an over-long uid, an empty query, a bad device: the same 400s and 404s', async () => {
    const cases: Record<string, string>[] = [{ query: 'refund' }, { uid: 'nope', query: 'refund' }, { uid: 'u'.repeat(101), query: 'x' }, { uid, query: '  ' },
      { uid, query: 'refund', device: 'toaster' }, { uid, query: 'refund', retrieval: 'psychic' }];
    for (const params of cases) {
      const { direct } = await both(params);
      expect(direct.status, JSON.stringify(params)).toBeGreaterThanOrEqual(400);
      expect(direct.body.code).toBe(direct.status);
    }
  });

  it('a preview is answered alike and leaves no rate-limit count in Redis', async () => {
    const keys = async () => (await svc.redis.keys(`${svc.prefix}:rl:*`)).sort();
    const before = await keys();
    const { direct } = await both({ uid, query: 'install', preview: 'true' });
    expect(direct.status).toBe(200);
    expect(await keys()).toEqual(before);
  });

  it('both forms count under one route pattern in the metrics', async () => {
    const count = async () => {
      const text = (await svc.call('GET', '/metrics')).body as string;
      const line = text.split('\n').find((l) => l.startsWith('quarry_http_request_duration_seconds_count')
        && l.includes('route="/v1/ui/search"') && l.includes('method="GET"') && l.includes('status="200"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await count();
    await both({ uid, query: 'refund' });
    expect(await count()).toBe(before + 2);
  });

  // Last: it uses up this client's budget.
  it('the client limit counts both forms: past it both are the same 429 with Retry-After', async () => {
    let last = await both({ uid, query: 'refund' });
    for (let i = 0; i < BUDGET && last.direct.status === 200; i++) last = await both({ uid, query: 'refund' });
    expect(last.direct.status).toBe(429);
    expect(last.direct.headers.get('retry-after')).toBeTruthy();
  });
});
