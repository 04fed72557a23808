import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

describe('operations endpoints', () => {
  it('healthz and readyz', async () => {
    expect((await svc.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await svc.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    // The embedded store also reports its data folder's free space against QUARRY_MIN_FREE_DISK_MB.
    const disk = svc.storage.backend === 'sqlite' ? { disk: 'ok' } : {};
    expect(ready.body.checks).toEqual({ storage: 'ok', redis: 'ok', ...disk });
  });

  it('metrics: HTTP latency by route pattern, queue depth, oldest waiting job, job outcomes', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'm' });
    await svc.call('PUT', '/v2/indexes/m/documents/secret-document-id', { title: 'a', content: 'b' });
    const text = (await svc.call('GET', '/metrics')).body as string;
    expect(text).toMatch(/quarry_http_request_duration_seconds_bucket\{le="[\d.]+",method="PUT",route="\/v2\/indexes\/:index_uid\/documents\/:document_uid",status="204"\}/);
    expect(text).not.toContain('secret-document-id');
    for (const q of ['index', 'embed']) {
      expect(text).toContain(`quarry_queue_jobs{queue="${q}",state="waiting"}`);
      expect(text).toContain(`quarry_queue_oldest_waiting_seconds{queue="${q}"}`);
      expect(text).toContain(`quarry_jobs_total{queue="${q}",outcome="failed"}`);
      expect(text).toContain(`quarry_job_duration_seconds_count{queue="${q}"}`);
    }
  });

  it('openapi.json documents every route the app serves', async () => {
    const doc = (await svc.call('GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/v2/indexes/{index_uid}/documents', '/v2/indexes/{index_uid}/documents/{document_uid}', '/v2/indexes/{index_uid}/status', '/v1/content/indexes', '/v1/admin/keys', '/v1/admin/indexes']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const put = doc.paths['/v2/indexes/{index_uid}/documents/{document_uid}'].put;
    expect(put.requestBody.content['application/json'].schema.required).toEqual(['title', 'content']);
  });

  it('the queue dashboard needs the master key (Basic auth)', async () => {
    const anon = await fetch(`${svc.url}/admin/queues`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/Basic/);
    const ok = await fetch(`${svc.url}/admin/queues`, { headers: { authorization: `Basic ${Buffer.from(`admin:${MASTER_KEY}`).toString('base64')}` } });
    expect(ok.status).toBe(200);
    const pusher = await svc.call('POST', '/v1/admin/keys', { name: 'p', permissions: ['read', 'write'] });
    const denied = await fetch(`${svc.url}/admin/queues`, { headers: { 'x-api-key': pusher.body.key } });
    expect(denied.status).toBe(403);
  });

  it('admin API: keys are shown once, listed without secrets, and revocable', async () => {
    const created = await svc.call('POST', '/v1/admin/keys', { name: 'pusher', permissions: ['read', 'write'], indexes: ['m'] });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^qk_/);
    const list = await svc.call('GET', '/v1/admin/keys');
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect((await svc.call('GET', '/v2/indexes/m/documents', undefined, { 'x-api-key': created.body.key })).status).toBe(200);
    expect((await svc.call('GET', '/v1/admin/keys', undefined, { 'x-api-key': created.body.key })).status).toBe(403);
    expect((await svc.call('DELETE', `/v1/admin/keys/${created.body.id}`)).status).toBe(204);
    expect((await svc.call('GET', '/v2/indexes/m/documents', undefined, { 'x-api-key': created.body.key })).status).toBe(401);
    const bad = await svc.call('POST', '/v1/admin/keys', { name: 'x', permissions: ['delete'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/permissions/);
  });

  it('content interface: index definitions are validated, unsupported languages listed, type changes refused', async () => {
    const ok = await svc.call('POST', '/v1/content/indexes', { uid: 'products', language_code: 'de', schema: { fields: { name: { type: 'text' }, price: { type: 'float' } } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({});
    const lang = await svc.call('POST', '/v1/content/indexes', { uid: 'p2', language_code: 'xx', schema: { fields: { a: { type: 'text' } } } });
    expect(lang.status).toBe(400);
    expect(lang.body.message).toMatch(/language_code: unsupported language; supported codes: en, de/);
    const type = await svc.call('POST', '/v1/content/indexes', { uid: 'products', language_code: 'de', schema: { fields: { name: { type: 'text' }, price: { type: 'int' } } } });
    expect(type.status).toBe(409);
    expect(type.body.message).toMatch(/'price'.*float.*int/);
    const field = await svc.call('POST', '/v1/content/indexes', { uid: 'p3', language_code: 'en', schema: { fields: { a: { type: 'vector' } } } });
    expect(field.status).toBe(400);
    expect(field.body.message).toMatch(/schema\.fields\.a\.type/);
    const push = await svc.call('PUT', '/v2/indexes/products/documents/x', { title: 't', content: 'c' });
    expect(push.status).toBe(400);
    expect(push.body.message).toMatch(/lacks the page fields/);
  });
});
