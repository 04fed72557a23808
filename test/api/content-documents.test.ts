import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
const schema = {
  fields: {
    title: { type: 'text' }, body: { type: 'html' }, status: { type: 'string' }, tags: { type: 'string', multi_valued: true },
    price: { type: 'float' }, stock: { type: 'int' }, published: { type: 'date' }, featured: { type: 'boolean' },
  },
};

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/content/indexes', { uid: 'shop', language_code: 'en', schema })).status).toBe(200);
});
afterAll(() => svc.close());

const progress = async () => (await svc.call('GET', '/v1/admin/indexes/shop')).body.progress;

describe('content interface documents', () => {
  it('stores a typed document (204) and the pipeline indexes it', async () => {
    const r = await svc.call('POST', '/v1/content/indexes/shop/documents', {
      uid: 'sku-1',
      fields: { title: 'Trail shoes', body: '<h2>Grip</h2><p>Deep lugs.</p>', status: 'published', tags: ['sport'], price: 89.5, stock: 3, published: '2026-06-14T08:00:00Z', featured: true },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('x-quarry-version')).toBeTruthy();
    expect(await waitFor(async () => (await progress()).indexed === 1)).toBe(true);
    expect(await svc.keywordUids('shop', 'lugs', ['title', 'body'], 5)).toEqual(['sku-1']);
  });

  it.each([
    [{ uid: 'x', fields: { price: 'cheap' } }, /fields\.price: .*number/],
    [{ uid: 'x', fields: { stock: 1.5 } }, /fields\.stock: must be a whole number/],
    [{ uid: 'x', fields: { colour: 'red' } }, /fields: unknown field\(s\) 'colour'/],
    [{ uid: 'x', fields: { tags: 'sport' } }, /fields\.tags: .*array/],
    [{ uid: 'x', fields: { published: 'last week' } }, /fields\.published: must be an ISO 8601/],
    [{ uid: 'x', fields: { featured: 'yes' } }, /fields\.featured: .*boolean/],
    [{ fields: {} }, /uid: is required/],
    [{ uid: 'x', extra: 1 }, /unknown field\(s\) 'extra'/],
  ])('400 naming the field: %j', async (body, message) => {
    const r = await svc.call('POST', '/v1/content/indexes/shop/documents', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(400);
    expect(r.body.message).toMatch(message);
  });

  it('404 for an unknown index; delete answers 204 and removes the document', async () => {
    expect((await svc.call('POST', '/v1/content/indexes/nope/documents', { uid: 'a' })).status).toBe(404);
    await svc.call('POST', '/v1/content/indexes/shop/documents', { uid: 'sku-2', fields: { title: 'Socks', status: 'draft' } });
    expect((await svc.call('DELETE', '/v1/content/indexes/shop/documents/sku-2')).status).toBe(204);
    expect((await svc.call('DELETE', '/v1/content/indexes/shop/documents/never')).status).toBe(204);
    const done = await waitFor(async () => {
      const p = await progress();
      return p.documents === 1 && p.pending === 0 && p.pending_deletes === 0 ? p : null;
    });
    expect(done).toMatchObject({ documents: 1, indexed: 1 });
  });
});
