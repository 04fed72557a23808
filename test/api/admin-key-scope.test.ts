import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../shared/auth/api-keys.js';
import { callJson, startTestService, type TestService } from '../helpers/test-service.js';

/**
 * Issue 22, finding 5: a key with admin passes every check on every index, so an index scope given with it was
 * stored, shown, and ignored. The admin API refuses the combination, naming the field, and never lists a scope
 * that does not apply.
 */
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ workers: false });
  for (const uid of ['docs', 'blog']) await svc.call('POST', '/v1/admin/indexes', { uid });
});
afterAll(async () => {
  await svc?.close();
});

const create = (body: Record<string, unknown>) => svc.call('POST', '/v1/admin/keys', body);

describe('admin keys and index scopes', () => {
  it('an admin key with an index scope is refused with 400 naming indexes; nothing is created', async () => {
    const before = (await svc.call('GET', '/v1/admin/keys')).body.keys.length;
    for (const permissions of [['admin'], ['read', 'admin'], ['read', 'write', 'admin']]) {
      const r = await create({ name: 'scoped admin', permissions, indexes: ['docs'] });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 400, message: expect.stringMatching(/^Invalid request: indexes: must be absent for a key with admin/) });
    }
    expect((await svc.call('GET', '/v1/admin/keys')).body.keys.length).toBe(before);
  });

  it('an admin key without a scope (absent, null or empty) is created for all indexes; read and write keys keep theirs', async () => {
    for (const indexes of [undefined, null, []]) {
      const r = await create({ name: 'admin', permissions: ['admin'], ...(indexes === undefined ? {} : { indexes }) });
      expect(r.status).toBe(201);
      expect(r.body.indexes).toBeNull();
    }
    const pusher = await create({ name: 'pusher', permissions: ['read', 'write'], indexes: ['docs'] });
    expect(pusher.status).toBe(201);
    expect(pusher.body.indexes).toEqual(['docs']);
    const listed = (await svc.call('GET', '/v1/admin/keys')).body.keys.find((k: { id: string }) => k.id === pusher.body.id);
    expect(listed.indexes).toEqual(['docs']);
    const other = await callJson(svc.url, 'GET', '/v2/indexes/blog/status', undefined, { 'x-api-key': pusher.body.key });
    expect(other.status).toBe(403);
  });

  it('an admin key stored with a scope before this was refused is listed for all indexes, which it may use', async () => {
    const secret = 'qk_scoped-admin-from-before-0123456789';
    await svc.storage.keys.insert(
      { id: 'key_oldadmin0001', name: 'old scoped admin', prefix: secret.slice(0, 10), permissions: ['admin'], indexes: ['docs'], createdAt: Date.now() },
      hashKey(secret),
    );
    const listed = (await svc.call('GET', '/v1/admin/keys')).body.keys.find((k: { id: string }) => k.id === 'key_oldadmin0001');
    expect(listed).toMatchObject({ permissions: ['admin'], indexes: null });
    expect((await callJson(svc.url, 'GET', '/v2/indexes/blog/status', undefined, { 'x-api-key': secret })).status).toBe(200);
  });
});
