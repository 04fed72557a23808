import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/test-service.js';

/**
 * The single-document PUT in its plain form is answered before Express (api/routes/direct-push.ts); the same
 * request with an escaped uid (`%61` is `a`) goes through the app's router. Both must give the same answers.
 */
let svc: TestService;
const page = { title: 'Page', content: '<p>Body</p>', source_url: 'https://example.com/a' };
const DIRECT = '/v2/indexes/docs/documents/a';
const ROUTED = '/v2/indexes/docs/documents/%61';
const HEADERS = ['content-type', 'x-frame-options', 'x-content-type-options', 'referrer-policy', 'content-security-policy', 'connection', 'retry-after'];

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
});
afterAll(() => svc.close());

async function both(body: unknown, headers: Record<string, string> = {}, paths = [DIRECT, ROUTED]) {
  const [direct, routed] = await Promise.all(paths.map((p) => svc.call('PUT', p, body, headers)));
  const view = (r: Awaited<ReturnType<TestService['call']>>) => ({
    status: r.status, body: r.body, headers: Object.fromEntries(HEADERS.map((h) => [h, r.headers.get(h)])),
  });
  expect(view(direct)).toEqual(view(routed));
  expect(direct.headers.get('x-request-id')).toBeTruthy();
  return { direct, routed };
}

describe('the direct push route answers as the routed one', () => {
  it('accepts, with a version; a repeat changes nothing and carries none', async () => {
    let { direct, routed } = await both(page);
    expect(direct.status).toBe(204);
    const versions = [Number(direct.headers.get('x-quarry-version')), Number(routed.headers.get('x-quarry-version'))];
    // One of the two writes changed the document, the other found it already so (the same uid), or both wrote.
    expect(versions.some((v) => v > 0)).toBe(true);
    ({ direct, routed } = await both(page));
    expect(direct.headers.get('x-quarry-version')).toBeNull();
    expect(routed.headers.get('x-quarry-version')).toBeNull();
    const stored = await svc.call('GET', '/v2/indexes/docs/documents/a');
    expect(stored.body).toMatchObject({ uid: 'a', title: 'Page', source_url: 'https://example.com/a' });
  });

  it('a body with a UTF-8 byte-order mark and a charset in its type is read as JSON', async () => {
    const { direct } = await both(`\uFEFF${JSON.stringify({ ...page, title: 'BOM' })}`, { 'content-type': 'application/json; charset=UTF-8' });
    expect(direct.status).toBe(204);
  });

  it('malformed JSON, a JSON null, a missing title, an unknown field, a NUL: the same 400s', async () => {
    for (const body of ['{"title": "x",', 'null', { content: 'x' }, { ...page, colour: 'red' }, '{"title":"a\\u0000","content":"x"}']) {
      const { direct } = await both(body);
      expect(direct.status, JSON.stringify(body)).toBe(400);
      expect(direct.body.code).toBe(400);
    }
  });

  it('a document uid over 512 characters is the same 400', async () => {
    const long = 'u'.repeat(513);
    const { direct } = await both(page, {}, [`/v2/indexes/docs/documents/${long}`, `/v2/indexes/docs/documents/%75${long.slice(1)}`]);
    expect(direct.body.message).toMatch(/document_uid: must be 1-512 characters/);
  });

  it('an unknown index is the same 404; a key that may not write is the same 403', async () => {
    let { direct } = await both(page, {}, ['/v2/indexes/nope/documents/a', '/v2/indexes/nope/documents/%61']);
    expect(direct.status).toBe(404);
    const ro = await svc.call('POST', '/v1/admin/keys', { name: 'ro', permissions: ['read'] });
    ({ direct } = await both(page, { 'x-api-key': ro.body.key }));
    expect(direct.status).toBe(403);
    expect(direct.body.message).toContain("'write' permission on index 'docs'");
  });

  it('both forms count under one route pattern in the metrics', async () => {
    const count = async () => {
      const text = (await svc.call('GET', '/metrics')).body as string;
      const line = text.split('\n').find((l) => l.startsWith('quarry_http_request_duration_seconds_count')
        && l.includes('route="/v2/indexes/:index_uid/documents/:document_uid"') && l.includes('status="204"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await count();
    await both(page);
    expect(await count()).toBe(before + 2);
  });

  // Last: it uses up this client's wrong-key budget for the rest of the file.
  it('wrong keys count alike on both forms: past the budget the right key is refused on both', async () => {
    let { direct } = await both(page, { 'x-api-key': 'wrong-key' });
    expect(direct.status).toBe(401);
    expect(direct.body).toMatchObject({ code: 401, message: 'Invalid API key' });
    // Two wrong keys per round (one per form): 10 in all, the budget (KEY_FAILURES).
    for (let i = 0; i < 4; i++) await both(page, { 'x-api-key': `wrong-${i}` });
    ({ direct } = await both(page));
    expect(direct.status).toBe(429);
    expect(direct.headers.get('retry-after')).toBeTruthy();
  });
});
