import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

/**
 * Content search in its plain form is answered before Express (api/routes/content-search.ts,
 * directContentSearch); the same request with a query string goes through the app's router. Both must give
 * the same answers.
 */
let svc: TestService;
const DIRECT = '/v1/content/search';
const ROUTED = '/v1/content/search?via=app';
const HEADERS = ['content-type', 'x-frame-options', 'x-content-type-options', 'referrer-policy', 'content-security-policy', 'connection', 'retry-after'];
const schema = { fields: { title: { type: 'text' }, body: { type: 'html' }, status: { type: 'string' } } };
const request = { index_uid: 'shop', query: 'trail', boosting: 'title^2 body^1', filter: '', fields: ['status'] };

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/content/indexes', { uid: 'shop', language_code: 'en', schema })).status).toBe(200);
  for (const [uid, title] of [['a', 'Trail shoes'], ['b', 'Trail map'], ['c', 'Road shoes']]) {
    const doc = { uid, fields: { title, body: `<p>${title} for the hills.</p>`, status: uid === 'b' ? 'draft' : 'published' } };
    expect((await svc.call('POST', '/v1/content/indexes/shop/documents', doc)).status).toBe(204);
  }
  await waitFor(async () => {
    const p = (await svc.call('GET', '/v1/admin/indexes/shop')).body.progress;
    return p.pending === 0 ? p : null;
  });
});
afterAll(() => svc.close());

async function both(body: unknown, headers: Record<string, string> = {}) {
  const [direct, routed] = await Promise.all([DIRECT, ROUTED].map((p) => svc.call('POST', p, body, headers)));
  const view = (r: Awaited<ReturnType<TestService['call']>>) => ({
    status: r.status, body: r.body, headers: Object.fromEntries(HEADERS.map((h) => [h, r.headers.get(h)])),
  });
  expect(view(direct)).toEqual(view(routed));
  expect(direct.headers.get('x-request-id')).toBeTruthy();
  expect(direct.headers.get('content-length')).toBe(routed.headers.get('content-length'));
  return { direct, routed };
}

describe('the direct content search answers as the routed one', () => {
  it('the same results, fields and headers; with a filter too', async () => {
    let { direct } = await both(request);
    expect(direct.status).toBe(200);
    expect(direct.body.results.map((r: { uid: string }) => r.uid).sort()).toEqual(['a', 'b']);
    ({ direct } = await both({ ...request, filter: 'status:published' }));
    expect(direct.body.results.map((r: { uid: string }) => r.uid)).toEqual(['a']);
  });

  it('a byte-order mark and a charset in the type are read as JSON', async () => {
    const { direct } = await both(`\uFEFF${JSON.stringify(request)}`, { 'content-type': 'application/json; charset=UTF-8' });
    expect(direct.status).toBe(200);
  });

  it('malformed JSON, null, a bare string, a missing field, an unknown index, a bad filter, a NUL: the same answers', async () => {
    const bodies = ['{"index_uid": "shop",', 'null', '"shop"', { ...request, boosting: undefined }, { ...request, index_uid: 'nope' },
      { ...request, filter: 'status:(' }, { ...request, query: 'x', fields: ['colour'] }, '{"index_uid":"shop","query":"a\\u0000"}'];
    for (const body of bodies) {
      const { direct } = await both(body);
      expect(direct.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(direct.body.code).toBe(direct.status);
    }
  });

  it('an over-long index uid is the same 400; a key scoped to another index is the same 403', async () => {
    let { direct } = await both({ ...request, index_uid: 'x'.repeat(65) });
    expect(direct.status).toBe(400);
    expect(direct.body.message).toMatch(/index_uid: must be at most 64 characters/);
    const other = await svc.call('POST', '/v1/admin/keys', { name: 'other', permissions: ['read'], indexes: ['elsewhere'] });
    expect(other.status).toBe(201);
    ({ direct } = await both(request, { 'x-api-key': other.body.key }));
    expect(direct.status).toBe(403);
    expect(direct.body.message).toContain("'read' permission on index 'shop'");
  });

  it('both forms count under one route pattern in the metrics', async () => {
    const count = async () => {
      const text = (await svc.call('GET', '/metrics')).body as string;
      const line = text.split('\n').find((l) => l.startsWith('quarry_http_request_duration_seconds_count')
        && l.includes('route="/v1/content/search"') && l.includes('method="POST"') && l.includes('status="200"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await count();
    await both(request);
    expect(await count()).toBe(before + 2);
  });

  // Last: it uses up this client's wrong-key budget for the rest of the file.
  it('wrong keys count alike on both forms: past the budget the right key is refused on both', async () => {
    let { direct } = await both(request, { 'x-api-key': 'wrong-key' });
    expect(direct.status).toBe(401);
    expect(direct.body).toMatchObject({ code: 401, message: 'Invalid API key' });
    for (let i = 0; i < 4; i++) await both(request, { 'x-api-key': `wrong-${i}` });
    ({ direct } = await both(request));
    expect(direct.status).toBe(429);
    expect(direct.headers.get('retry-after')).toBeTruthy();
  });
});
