import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
const page = (n: number) => ({ title: `Page ${n}`, content: `<h1>Page ${n}</h1><p>Body of page ${n}.<br>Second line</p>`, source_url: `https://example.com/${n}` });

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
});
afterAll(() => svc.close());

describe('document push: errors', () => {
  it('401 for a missing or unknown key, with the spec body', async () => {
    for (const headers of [{ 'x-api-key': '' }, { 'x-api-key': 'nope' }]) {
      const r = await svc.call('GET', '/v2/indexes/docs/documents', undefined, headers);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ code: 401, message: 'Invalid API key' });
    }
  });

  it('accepts X-API-KEY in any case', async () => {
    const r = await svc.call('GET', '/v2/indexes/docs/documents', undefined, { 'X-API-KEY': 'test-master-key-0123456789' });
    expect(r.status).toBe(200);
  });

  it('404 for an unknown index', async () => {
    const r = await svc.call('PUT', '/v2/indexes/nope/documents/a', page(1));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(404);
    expect(r.body.message).toContain("'nope'");
  });

  it('400 for malformed JSON', async () => {
    const r = await svc.call('PUT', '/v2/indexes/docs/documents/a', '{"title": "x",');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 400 });
    expect(r.body.message).toMatch(/Malformed JSON/);
  });

  it('400 naming the field for a missing title, a bad url, a bad date and unknown fields', async () => {
    const cases: [unknown, RegExp][] = [
      [{ content: 'x' }, /title: is required/],
      [{ title: 'x', content: 'x', source_url: 'ftp://x' }, /source_url: must be an absolute http\(s\) URL/],
      [{ title: 'x', content: 'x', last_modified: 'yesterday' }, /last_modified: must be an ISO 8601/],
      [{ title: 'x', content: 'x', colour: 'red' }, /unknown field\(s\) 'colour'/],
      [{ title: 5, content: 'x' }, /title: /],
    ];
    for (const [body, message] of cases) {
      const r = await svc.call('PUT', '/v2/indexes/docs/documents/a', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
  });

  it('400 for a 513-character uid, 204 for 512', async () => {
    const long = 'u'.repeat(513);
    const r = await svc.call('PUT', `/v2/indexes/docs/documents/${long}`, page(1));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/document_uid: must be 1-512 characters/);
    expect((await svc.call('PUT', `/v2/indexes/docs/documents/${'u'.repeat(512)}`, page(1))).status).toBe(204);
    expect((await svc.call('DELETE', `/v2/indexes/docs/documents/${'u'.repeat(512)}`)).status).toBe(204);
  });

  it('400 for a NUL character anywhere (no store may hold one), a backslash-escaped one is text', async () => {
    const body = (content: string) => `{"title":"t","content":${JSON.stringify(content)}}`;
    const nul = await svc.call('PUT', '/v2/indexes/docs/documents/nul', body('a\u0000b'));
    expect(nul.status).toBe(400);
    expect(nul.body.message).toMatch(/NUL character/);
    expect((await svc.call('PUT', '/v2/indexes/docs/documents/a%00b', page(1))).status).toBe(400);
    expect((await svc.call('GET', '/v2/indexes/docs/documents?after-uid=%00')).status).toBe(400);
    // A literal backslash before "u0000" is not a NUL.
    expect((await svc.call('PUT', '/v2/indexes/docs/documents/slash', body('a\\u0000b'))).status).toBe(204);
  });

  it('413 for a body over the limit, before reading it whole', async () => {
    const big = { title: 't', content: 'x'.repeat(21 * 1024 * 1024) };
    const r = await svc.call('PUT', '/v2/indexes/docs/documents/big', big);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe(413);
  });

  it('403 for a key without write permission or limited to another index', async () => {
    const ro = await svc.call('POST', '/v1/admin/keys', { name: 'ro', permissions: ['read'] });
    expect(ro.status).toBe(201);
    const other = await svc.call('POST', '/v1/admin/keys', { name: 'other', permissions: ['read', 'write'], indexes: ['elsewhere'] });
    let r = await svc.call('PUT', '/v2/indexes/docs/documents/a', page(1), { 'x-api-key': ro.body.key });
    expect(r.status).toBe(403);
    expect((await svc.call('GET', '/v2/indexes/docs/documents', undefined, { 'x-api-key': ro.body.key })).status).toBe(200);
    r = await svc.call('GET', '/v2/indexes/docs/documents', undefined, { 'x-api-key': other.body.key });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("index 'docs'");
  });

  it('404 with the error body for unknown routes, and a request id on every response', async () => {
    const r = await svc.call('GET', '/v2/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(404);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    const echoed = await svc.call('GET', '/healthz', undefined, { 'x-request-id': 'abc-123' });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
  });
});

describe('document push: upsert, list, delete', () => {
  it('lists documents by uid with limit and after-uid, with content as pushed', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'listing', language_code: 'en' });
    const uids = ['b', 'a', 'https://example.com/x?y=1', 'c', 'é'];
    for (const [i, uid] of uids.entries()) {
      expect((await svc.call('PUT', `/v2/indexes/listing/documents/${encodeURIComponent(uid)}`, page(i))).status).toBe(204);
    }
    const all = await svc.call('GET', '/v2/indexes/listing/documents?limit=1000');
    expect(all.body.documents.map((d: { uid: string }) => d.uid)).toEqual([...uids].sort());
    expect(all.body.documents[0]).toEqual({ uid: 'a', title: 'Page 1', content: page(1).content });
    const first = await svc.call('GET', '/v2/indexes/listing/documents?limit=2');
    expect(first.body.documents.map((d: { uid: string }) => d.uid)).toEqual(['a', 'b']);
    const next = await svc.call('GET', '/v2/indexes/listing/documents?limit=2&after-uid=b');
    expect(next.body.documents.map((d: { uid: string }) => d.uid)).toEqual(['c', 'https://example.com/x?y=1']);
    for (const bad of ['limit=0', 'limit=1001', 'limit=abc']) {
      const r = await svc.call('GET', `/v2/indexes/listing/documents?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toMatch(/limit/);
    }
  });

  it('updates in place, deletes with 204 (also when absent), and re-push of identical content changes nothing', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'upd', language_code: 'en' });
    const first = await svc.call('PUT', '/v2/indexes/upd/documents/x', page(1));
    expect(first.headers.get('x-quarry-version')).toBeTruthy();
    await svc.call('PUT', '/v2/indexes/upd/documents/x', page(2));
    let list = await svc.call('GET', '/v2/indexes/upd/documents');
    expect(list.body.documents).toEqual([{ uid: 'x', title: 'Page 2', content: page(2).content }]);
    await waitFor(async () => (await svc.call('GET', '/v2/indexes/upd/status')).body.indexed === 1);
    const same = await svc.call('PUT', '/v2/indexes/upd/documents/x', page(2));
    expect(same.status).toBe(204);
    expect(same.headers.get('x-quarry-version')).toBeNull();
    expect((await svc.call('DELETE', '/v2/indexes/upd/documents/x')).status).toBe(204);
    expect((await svc.call('DELETE', '/v2/indexes/upd/documents/never-existed')).status).toBe(204);
    list = await svc.call('GET', '/v2/indexes/upd/documents');
    expect(list.body.documents).toEqual([]);
    const gone = await waitFor(async () => {
      const s = (await svc.call('GET', '/v2/indexes/upd/status')).body;
      return s.documents === 0 && s.pending_deletes === 0 ? s : null;
    });
    expect(gone).toMatchObject({ documents: 0, indexed: 0, pending: 0 });
    expect(await svc.keywordUids('upd', 'page', ['title', 'content'])).toEqual([]);
  });

  it('batch upsert returns one result per document and stores the valid ones', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'batch', language_code: 'en' });
    const r = await svc.call('POST', '/v2/indexes/batch/documents', {
      documents: [{ uid: 'one', ...page(1) }, { uid: 'two', content: 'no title' }, { uid: '', ...page(3) }, { uid: 'four', ...page(4) }],
      delete: ['zzz'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ accepted: 2, rejected: 2, unchanged: 1 });
    expect(r.body.results[1]).toMatchObject({ uid: 'two', status: 'rejected', code: 400 });
    expect(r.body.results[1].message).toMatch(/title: is required/);
    const list = await svc.call('GET', '/v2/indexes/batch/documents');
    expect(list.body.documents.map((d: { uid: string }) => d.uid)).toEqual(['four', 'one']);
    const status = await waitFor(async () => {
      const s = (await svc.call('GET', '/v2/indexes/batch/status')).body;
      return s.indexed === 2 ? s : null;
    });
    expect(status).toMatchObject({ index_uid: 'batch', documents: 2, indexed: 2, pending: 0, failed: 0, last_error: null });
    const doc = await svc.call('GET', '/v2/indexes/batch/documents/one');
    expect(doc.body).toMatchObject({ uid: 'one', title: 'Page 1', status: { state: 'indexed' } });
  });
});
