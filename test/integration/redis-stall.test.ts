import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort } from '../../scripts/redis-launcher.mjs';
import { REQUEST_PATH_COMMAND_TIMEOUT_MS } from '../../shared/redis/connect-redis.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { callJson, MASTER_KEY, waitFor } from '../helpers/test-service.js';
import { spawnApi, spawnGenerator, spawnWorker, stopProcess } from '../helpers/worker-process.js';

/**
 * Redis stalled (SIGSTOP: connections stay open, nothing answers) under a real API process, a real
 * indexing worker and a real generation worker. The API must live through it: pushes are answered
 * 204 from the store alone, searches answer, summaries and chat answer 503/504 with a message, and
 * once Redis resumes every accepted push becomes searchable and answers work again.
 */
const GENERATION_TIMEOUT_S = 3;
// Generous bound on any answer: the unfixed API never answers (or dies), the fixed one well within it.
const ANSWER_BOUND_MS = (GENERATION_TIMEOUT_S + 20) * 1000;

let redis: PrivateRedis;
let base: string;
let api: ChildProcess;
let apiErrors = '';
let apiEnv: Record<string, string>;
const procs: ChildProcess[] = [];
const dirs: string[] = [];

type Answer = { status: number | 'no answer'; body: any };

/** A request answered within the bound, or 'no answer' (a hang, or a process that died). */
async function bounded(method: string, path: string, body?: unknown, at = base): Promise<Answer> {
  const h = { 'content-type': 'application/json', 'x-api-key': MASTER_KEY };
  try {
    const res = await fetch(at + path, {
      method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(ANSWER_BOUND_MS),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, body: parsed };
  } catch (err) {
    return { status: 'no answer', body: String(err) };
  }
}

const page = (i: number) => ({ title: `Page ${i}`, content: `<h2>Part ${i}</h2><p>About stalltok${i} and shared words.</p>` });

async function contentUids(query: string): Promise<string[]> {
  const r = await callJson(base, 'POST', '/v1/content/search', { index_uid: 'docs', query, boosting: 'title content', filter: '', fields: [], limit: 50 });
  return r.status === 200 ? (r.body.results as { uid: string }[]).map((h) => h.uid) : [];
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  const port = (await freePort()) as number;
  base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'quarry-stall-'));
  dirs.push(dataDir);
  const env = apiEnv = {
    REDIS_URL: redis.url, QUARRY_REDIS_PREFIX: 'stall', QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_DATA_DIR: dataDir,
    QUARRY_GENERATION_TIMEOUT_SECONDS: String(GENERATION_TIMEOUT_S),
    QUARRY_JOB_LOCK_SECONDS: '3', QUARRY_RECONCILE_SECONDS: '1', QUARRY_RECONCILE_GRACE_SECONDS: '2',
    // The website source below points at a closed local port: its crawl only has to be taken by a worker.
    QUARRY_CRAWL_ALLOW_PRIVATE: 'true',
  };
  api = await spawnApi({ ...env, PORT: String(port) });
  // Kept for failure messages: why the API answered nothing.
  api.stderr!.on('data', (d: Buffer) => (apiErrors = (apiErrors + d.toString()).slice(-4000)));
  procs.push(api, await spawnWorker({ ...env, QUARRY_WORKER_CONCURRENCY: '2' }), await spawnGenerator(env));
}, 240_000);

afterAll(async () => {
  redis?.resume();
  await Promise.all(procs.map((p) => stopProcess(p, 'SIGKILL')));
  await redis?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('Redis stalled (SIGSTOP) under the real API process', () => {
  it('keeps the API alive: pushes 204, searches answer, summary and chat 503/504 with a message; all recovers after SIGCONT', async () => {
    expect((await callJson(base, 'POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await callJson(base, 'PUT', `/v2/indexes/docs/documents/d${i}`, page(i))).status).toBe(204);
    expect((await callJson(base, 'POST', '/v1/admin/indexes', { uid: 'other', language_code: 'en' })).status).toBe(201);
    expect((await callJson(base, 'PUT', '/v2/indexes/other/documents/o1', page(99))).status).toBe(204);
    const site = await callJson(base, 'POST', '/v1/admin/sources', { uid: 'site', kind: 'website', start_urls: ['http://127.0.0.1:9/'] });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    const config = (await callJson(base, 'POST', '/v1/admin/configurations', { variant: 'ui', name: 'Help', indexes: ['docs'] })).body;
    expect(await waitFor(async () => (await contentUids('stalltok3')).includes('d3'), 60_000, 200)).toBe(true);
    const summaryPath = `/v1/ui/summary?uid=${config.uid}&query=stalltok2`;
    const before = await bounded('GET', summaryPath);
    expect(before.status, `${JSON.stringify(before)}\n${apiErrors}`).toBe(200);

    redis.stall();
    const stalledAt = Date.now();
    const accepted: string[] = [];
    const push = async (i: number) => {
      const r = await bounded('PUT', `/v2/indexes/docs/documents/d${i}`, page(i));
      if (r.status === 204) accepted.push(`d${i}`);
      return r;
    };
    // Answers first (their timers are what crashed the process), then pushes and searches beside them.
    const [summary, chat, ...early] = await Promise.all([
      bounded('GET', summaryPath),
      bounded('POST', '/v1/ui/chat', { uid: config.uid, query: 'stalltok1', 'session-id': 'stall-session' }),
      ...Array.from({ length: 10 }, (_, k) => push(10 + k)),
    ]);
    for (const r of [summary, chat]) {
      expect([503, 504], JSON.stringify(r)).toContain(r.status);
      expect(r.body.message).toMatch(/\w{10}/);
    }
    expect(early.map((r) => r.status)).toEqual(early.map(() => 204));

    // Past the generation timeout (any answer's timer armed during the stall has fired): the process is
    // still the same one, and every kind of request is answered.
    await new Promise((r) => setTimeout(r, Math.max(0, stalledAt + GENERATION_TIMEOUT_S * 1000 + 1000 - Date.now())));
    expect(api.exitCode).toBeNull();
    expect(api.signalCode).toBeNull();
    const late = await Promise.all(Array.from({ length: 10 }, (_, k) => push(20 + k)));
    expect(late.map((r) => r.status)).toEqual(late.map(() => 204));
    const content = await bounded('POST', '/v1/content/search', { index_uid: 'docs', query: 'stalltok3', boosting: 'title content', filter: '', fields: [], limit: 10 });
    expect(content.status).toBe(200);
    expect(content.body.results.map((h: { uid: string }) => h.uid)).toContain('d3');
    const widget = await bounded('GET', `/v1/ui/search?uid=${config.uid}&session-id=s1&query=stalltok4`);
    expect(widget.status).toBe(200);
    // Routes that read or write Redis themselves answer too (bounded, or falling back): metrics, operations, a reindex.
    const [metrics, operations, reindex, crawl] = await Promise.all([
      bounded('GET', '/metrics'),
      bounded('GET', '/v1/admin/operations'),
      bounded('POST', '/v1/admin/indexes', { uid: 'other', language_code: 'de' }),
      bounded('POST', '/v1/admin/sources/site/crawl'),
    ]);
    expect([metrics.status, operations.status, reindex.status], JSON.stringify([metrics, operations, reindex]).slice(0, 2000)).toEqual([200, 200, 200]);
    // A crawl Redis did not take: 503 saying so (the crawl stays recorded as queued).
    expect(crawl.status, JSON.stringify(crawl.body)).toBe(503);
    expect(crawl.body.message).toMatch(/queued/);
    // An API process started while Redis is stalled serves pushes as well, and prints no unhandled Redis
    // errors once its queues' commands time out.
    const port2 = (await freePort()) as number;
    const api2 = await spawnApi({ ...apiEnv, PORT: String(port2) });
    procs.push(api2);
    let api2Errors = '';
    api2.stderr!.on('data', (d: Buffer) => (api2Errors += d.toString()));
    const viaSecond = await bounded('PUT', '/v2/indexes/docs/documents/d40', page(40), `http://127.0.0.1:${port2}`);
    expect(viaSecond.status, JSON.stringify(viaSecond.body)).toBe(204);
    accepted.push('d40');
    await new Promise((r) => setTimeout(r, REQUEST_PATH_COMMAND_TIMEOUT_MS + 1000));
    expect(api2.exitCode).toBeNull();
    expect(api2Errors).not.toMatch(/Unhandled error event|Command timed out/);
    const ready = await bounded('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.message).toMatch(/redis/i);
    const again = await bounded('GET', summaryPath);
    expect([503, 504]).toContain(again.status);
    expect(api.exitCode).toBeNull();

    redis.resume();
    expect(await waitFor(async () => (await bounded('GET', '/readyz')).status === 200, 30_000, 200)).toBe(true);
    expect(await waitFor(async () => (await bounded('GET', summaryPath)).status === 200, 30_000, 500)).toBe(true);
    // Asking for the crawl again adds the job it lacks, and a worker takes it (it leaves `queued`).
    const recrawl = await bounded('POST', '/v1/admin/sources/site/crawl');
    expect(recrawl.status, JSON.stringify(recrawl.body)).toBe(202);
    const taken = await waitFor(async () => (await callJson(base, 'GET', '/v1/admin/sources/site')).body.crawl?.state !== 'queued', 30_000, 200);
    expect(taken).toBe(true);
    // Every push answered 204 during the stall is durable and becomes searchable (reconciler or queued enqueue).
    expect(accepted).toHaveLength(21);
    const missing = await waitFor(async () => {
      const left: string[] = [];
      for (const uid of accepted) if (!(await contentUids(`stalltok${uid.slice(1)}`)).includes(uid)) left.push(uid);
      return left.length === 0 ? [] : null;
    }, 90_000, 500);
    expect(missing).toEqual([]);
    expect(api.exitCode).toBeNull();
  }, 300_000);
});
