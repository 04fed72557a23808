import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logging/create-logger.js';
import { OpenAiChatModel } from '../../shared/llm/adapters/openai-chat-model.js';
import { startStubChat } from '../../scripts/bench/stub-chat-server.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { MASTER_KEY, startTestService, waitFor, type TestService } from '../helpers/test-service.js';

/**
 * What the operations endpoints and errors tell a caller without a key (issue 14): /metrics needs a
 * token or an admin key, /readyz and failed answers say what is wrong but not the internals (URLs,
 * model names, variables), which an admin key and the log still show; the queue
 * dashboard refuses changes sent from other sites.
 */
const METRICS_TOKEN = 'metrics-token-0123456789';
const basic = (key: string) => `Basic ${Buffer.from(`admin:${key}`).toString('base64')}`;

describe('/metrics and /readyz', () => {
  let redis: PrivateRedis;
  let svc: TestService;
  let readKey: string;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    svc = await startTestService({ workers: false, env: { REDIS_URL: redis.url, QUARRY_METRICS_TOKEN: METRICS_TOKEN } });
    readKey = (await svc.call('POST', '/v1/admin/keys', { name: 'reader', permissions: ['read'] })).body.key;
  });
  afterAll(async () => {
    redis?.resume();
    await svc?.close();
    await redis?.stop();
  });

  const metrics = (headers: Record<string, string> = {}) => fetch(`${svc.url}/metrics`, { headers });

  it('anonymous /metrics gets 401 with the spec body; a key without admin 403', async () => {
    const anonymous = await metrics();
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 401, message: expect.any(String) });
    expect((await metrics({ authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    expect((await metrics({ 'x-api-key': readKey })).status).toBe(403);
  });

  it('the metrics bearer token or an admin key (header, Basic as Prometheus sends it) reads /metrics', async () => {
    const ways: Record<string, string>[] = [{ authorization: `Bearer ${METRICS_TOKEN}` }, { 'x-api-key': MASTER_KEY }, { authorization: basic(MASTER_KEY) }];
    for (const headers of ways) {
      const r = await metrics(headers);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain('quarry_http_request_duration_seconds');
    }
  });

  it('with Redis stalled, anonymous /readyz says which check is down, not why; an admin key sees why', async () => {
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);
    redis.stall();
    try {
      const anonymous = await fetch(`${svc.url}/readyz`);
      expect(anonymous.status).toBe(503);
      const body = await anonymous.json();
      expect(body).toMatchObject({ code: 503, details: { storage: 'ok', redis: 'down' } });
      expect(body.message).toMatch(/^Not ready: redis down/);
      const admin = await (await fetch(`${svc.url}/readyz`, { headers: { 'x-api-key': MASTER_KEY } })).json();
      expect(admin.details.redis).toMatch(/^down: .+/);
      expect(body.message).not.toContain(admin.details.redis.slice('down: '.length));
    } finally {
      redis.resume();
    }
  });
});

describe('failed answers and the queue dashboard', () => {
  let svc: TestService;
  let stub: Awaited<ReturnType<typeof startStubChat>>;
  let uid: string;
  const logLines: string[] = [];
  beforeAll(async () => {
    stub = await startStubChat();
    const model = new OpenAiChatModel({ baseUrl: stub.url, model: 'internal-model-7b', timeoutMs: 10_000, firstTokenTimeoutMs: 10_000, retries: 0 });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    svc = await startTestService({ chatModel: model, log: createLogger('info', 'api', sink), env: { QUARRY_GENERATION_TIMEOUT_SECONDS: '2' } });
    await svc.call('POST', '/v1/admin/indexes', { uid: 'kb' });
    await svc.call('PUT', '/v2/indexes/kb/documents/pip', { title: 'Pip', content: '<p>Pip installs packages from the Python Package Index.</p>' });
    await waitFor(async () => (await svc.call('GET', '/v2/indexes/kb/status')).body.pending === 0);
    uid = (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'Help', indexes: ['kb'] })).body.uid;
  });
  afterAll(async () => {
    await svc?.close();
    await stub?.close();
  });

  const summary = async () => {
    const res = await fetch(`${svc.url}/v1/ui/summary?uid=${uid}&query=${encodeURIComponent('how does pip install packages')}`);
    return { status: res.status, body: await res.json() };
  };
  const internals = () => [new URL(stub.url).host, 'internal-model-7b', 'QUARRY_'];

  it('a model refusing its credentials: 502 without its URL, model name or variable; the API log has the reason', async () => {
    stub.state.mode = 'error401';
    const r = await summary();
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ code: 502, message: expect.stringContaining('language model') });
    for (const secret of internals()) expect(r.body.message).not.toContain(secret);
    const logged = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed' && l.err?.status === 502);
    expect(logged?.internal).toContain('internal-model-7b');
    stub.state.mode = 'reply';
  });

  it('a stalled model: 504 without the variable to raise', async () => {
    stub.state.mode = 'stall';
    const r = await summary();
    expect(r.status).toBe(504);
    for (const secret of internals()) expect(r.body.message).not.toContain(secret);
    stub.state.mode = 'reply';
  });

  it('refuses a cross-site form post to the dashboard even with Basic credentials the browser remembers; nothing is queued', async () => {
    const before = await svc.queues.index.getJobCounts();
    const post = (headers: Record<string, string>) =>
      fetch(`${svc.url}/admin/queues/api/queues/index/add`, {
        method: 'POST',
        headers: { authorization: basic(MASTER_KEY), 'content-type': 'text/plain', ...headers },
        body: JSON.stringify({ name: 'index', data: { indexId: 1 } }),
      });
    const fromOrigin = await post({ origin: 'https://evil.example' });
    expect(fromOrigin.status).toBe(403);
    expect(await fromOrigin.json()).toMatchObject({ code: 403 });
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(await svc.queues.index.getJobCounts()).toEqual(before);
  });

  it('the dashboard\'s own page may change queues with Basic auth and its token; a session must send its CSRF token', async () => {
    const page = await fetch(`${svc.url}/admin/queues`, { headers: { authorization: basic(MASTER_KEY) } });
    const token = page.headers.getSetCookie().find((c) => c.startsWith('XSRF-TOKEN='))!.split(';')[0].slice('XSRF-TOKEN='.length);
    const pause = (headers: Record<string, string>) =>
      fetch(`${svc.url}/admin/queues/api/queues/crawl/pause`, { method: 'PUT', headers: { origin: svc.url, 'sec-fetch-site': 'same-origin', ...headers } });
    expect((await pause({ authorization: basic(MASTER_KEY), 'x-xsrf-token': token })).status).toBe(200);
    const resume = await fetch(`${svc.url}/admin/queues/api/queues/crawl/resume`, { method: 'PUT', headers: { origin: svc.url, authorization: basic(MASTER_KEY), 'x-xsrf-token': token } });
    expect(resume.status).toBe(200);

    const signIn = await fetch(`${svc.url}/v1/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: MASTER_KEY }) });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    expect((await pause({ cookie })).status).toBe(403);
  });
});
