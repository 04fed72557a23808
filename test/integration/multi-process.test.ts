import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort } from '../../scripts/redis-launcher.mjs';
import { freshSchema } from '../helpers/postgres.js';
import { startQdrantStandIn, type QdrantStandIn } from '../helpers/qdrant-stand-in.js';
import { callJson, deleteKeys, MASTER_KEY, waitFor } from '../helpers/test-service.js';
import { spawnApi, spawnWorker, stopProcess } from '../helpers/worker-process.js';

/**
 * The scale-out mode as an operator runs it: two API processes on two ports and two worker processes,
 * each with a data folder of its own (nothing shared on disk), over one PostgreSQL schema, one Redis
 * prefix and a Qdrant stand-in that checks every request against Qdrant's API description. No
 * QUARRY_SECRET is given: the APIs must agree on the one kept in the store.
 */
const keywordInQdrant = process.env.QUARRY_TEST_STORAGE === 'qdrant';
const FAST = { QUARRY_JOB_LOCK_SECONDS: '3', QUARRY_RECONCILE_SECONDS: '1', QUARRY_RECONCILE_GRACE_SECONDS: '2', QUARRY_RECONCILE_STRAYS_SECONDS: '1', QUARRY_PIPELINE_BATCH: '32' };

let qdrant: QdrantStandIn;
let schema: { schema: string; drop(): Promise<void> };
let redis: Redis;
const prefix = `qmp-${randomBytes(4).toString('hex')}`;
const dirs: string[] = [];
const procs = new Map<string, ChildProcess>();
const apis: string[] = [];
let env: Record<string, string>;

function ownDir() {
  const d = mkdtempSync(join(tmpdir(), 'quarry-mp-'));
  dirs.push(d);
  return d;
}

async function startApi(name: string, port: number) {
  procs.set(name, await spawnApi({ ...env, PORT: String(port), QUARRY_DATA_DIR: ownDir() }));
}

async function startWorker(name: string) {
  procs.set(name, await spawnWorker({ ...env, QUARRY_DATA_DIR: ownDir(), QUARRY_WORKER_CONCURRENCY: '2' }));
}

const call = callJson;

const page = (i: number, token = `tok${i}`) => ({ title: `Page ${i}`, content: `<h2>Part ${i}</h2><p>About ${token} and shared words.</p>` });

async function settled(base: string, index: string, documents: number, timeoutMs = 90_000) {
  return waitFor(async () => {
    const s = (await call(base, 'GET', `/v2/indexes/${index}/status`)).body;
    return s.documents === documents && s.pending === 0 && s.pending_deletes === 0 ? s : null;
  }, timeoutMs, 200);
}

async function contentUids(base: string, index: string, query: string): Promise<string[]> {
  const r = await call(base, 'POST', '/v1/content/search', { index_uid: index, query, boosting: 'title content', filter: '', fields: [], limit: 50 });
  expect(r.status).toBe(200);
  return (r.body.results as { uid: string }[]).map((h) => h.uid);
}

beforeAll(async () => {
  const url = inject('databaseUrl');
  schema = await freshSchema(url);
  qdrant = await startQdrantStandIn();
  redis = new Redis(inject('redisUrl'));
  env = {
    QUARRY_STORAGE: 'postgres', DATABASE_URL: url, QUARRY_DATABASE_SCHEMA: schema.schema, QUARRY_DATABASE_POOL: '4',
    QDRANT_URL: qdrant.url, QUARRY_QDRANT_COLLECTION: `mp_${prefix.replace(/-/g, '_')}`,
    REDIS_URL: inject('redisUrl'), QUARRY_REDIS_PREFIX: prefix, QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_SECRET: '', ...FAST,
    // The vitest project `qdrant` runs this file with the keyword leg in Qdrant as well: the APIs then hold no index.
    ...(keywordInQdrant ? { QUARRY_KEYWORD_INDEX: 'qdrant', QUARRY_QDRANT_KEYWORD_PREFIX: `kw_${prefix.replace(/-/g, '_')}_` } : {}),
  };
  const [pa, pb] = [await freePort(), await freePort()];
  apis.push(`http://127.0.0.1:${pa}`, `http://127.0.0.1:${pb}`);
  await Promise.all([startApi('api-a', pa), startApi('api-b', pb), startWorker('worker-1'), startWorker('worker-2')]);
}, 240_000);

afterAll(async () => {
  await Promise.all([...procs.values()].map((p) => stopProcess(p, 'SIGKILL')));
  await qdrant?.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await schema?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('two API processes and two workers on PostgreSQL, Redis and Qdrant', () => {
  it('serves what one API accepted from the other: push, content search, widget search, keys, configurations, feedback', async () => {
    const [a, b] = apis;
    expect((await call(a, 'POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
    // A key made on A pushes through B.
    const key = (await call(a, 'POST', '/v1/admin/keys', { name: 'pusher', permissions: ['read', 'write'] })).body.key as string;
    const batch = Array.from({ length: 120 }, (_, i) => ({ uid: `p${i}`, ...page(i) }));
    const pushed = await call(b, 'POST', '/v2/indexes/docs/documents', { documents: batch }, { 'x-api-key': key });
    expect(pushed.status).toBe(200);
    expect(pushed.body.accepted).toBe(120);
    expect(await settled(a, 'docs', 120)).toBeTruthy();

    expect(await contentUids(a, 'docs', 'tok7')).toEqual(['p7']);
    // One point per section in Qdrant (each page has one section), written by the workers.
    const docsPoints = [...qdrant.collections.values()].flatMap((c) => [...c.points.values()]).filter((p) => p.payload.index === 'docs');
    expect(docsPoints).toHaveLength(120);
    expect(await contentUids(b, 'docs', 'tok77')).toEqual(['p77']);

    // A configuration made on B searches on A; vectors come from Qdrant.
    const config = (await call(b, 'POST', '/v1/admin/configurations', { variant: 'ui', name: 'Help', indexes: ['docs'], result_count: 5 })).body;
    const found = await call(a, 'GET', `/v1/ui/search?uid=${config.uid}&session-id=s1&query=tok42`);
    expect(found.status).toBe(200);
    expect(found.body.results[0].title).toBe('Part 42');
    const vectorOnly = await call(a, 'GET', `/v1/ui/search?uid=${config.uid}&session-id=s1&query=${encodeURIComponent('shared words about part')}&retrieval=vector`);
    expect(vectorOnly.body.results.length).toBeGreaterThan(0);
    expect(qdrant.calls.some((c) => c.operation.includes('query') || c.operation.includes('search'))).toBe(true);

    // feedback_data signed by A is accepted by B (one secret, kept in the store), and counted once.
    const click = await call(b, 'POST', '/v1/ui/feedback', { type: 'click', feedback_data: found.body.results[0].feedback_data });
    expect(click.status).toBe(204);
    const day = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const insights = await waitFor(async () => {
      const r = (await call(a, 'GET', `/v1/admin/configurations/${config.uid}/insights?from=${day}&to=${tomorrow}`)).body;
      return r.clicks === 1 && r.searches >= 1 ? r : null;
    }, 10_000);
    expect(insights).toBeTruthy();
    // Revoking on A is honoured by B (its key cache lasts a few seconds).
    const keyId = (await call(a, 'GET', '/v1/admin/keys')).body.keys.find((k: { name: string }) => k.name === 'pusher').id;
    expect((await call(a, 'DELETE', `/v1/admin/keys/${keyId}`)).status).toBe(204);
    expect(await waitFor(async () => (await call(b, 'GET', '/v2/indexes/docs/status', undefined, { 'x-api-key': key })).status === 401, 10_000)).toBe(true);
    expect(qdrant.violations).toEqual([]);
  });

  it('racing writes to one document through both APIs end at the last accepted version on every API', async () => {
    const [a, b] = apis;
    await call(a, 'POST', '/v1/admin/indexes', { uid: 'race', language_code: 'en' });
    for (let round = 0; round < 4; round++) {
      const ops = Array.from({ length: 24 }, (_, i) => ({ api: apis[i % 2], del: i % 5 === 4, token: `r${round}x${i}` }));
      const results = await Promise.all(ops.map(async (op) => {
        const r = op.del
          ? await call(op.api, 'DELETE', '/v2/indexes/race/documents/one')
          : await call(op.api, 'PUT', '/v2/indexes/race/documents/one', page(round, op.token));
        expect(r.status).toBe(204);
        const v = r.headers.get('x-quarry-version');
        return { op, version: v === null ? null : Number(v) };
      }));
      const winner = results.filter((r) => r.version !== null).sort((x, y) => y.version! - x.version!)[0].op;
      await waitFor(async () => {
        const s = (await call(a, 'GET', '/v2/indexes/race/status')).body;
        return s.pending === 0 && s.pending_deletes === 0;
      }, 60_000, 100);
      for (const base of [a, b]) {
        const stored = await call(base, 'GET', '/v2/indexes/race/documents/one');
        const live = [];
        for (const r of results) if (!r.op.del && (await contentUids(base, 'race', r.op.token)).includes('one')) live.push(r.op.token);
        if (winner.del) {
          expect(stored.status).toBe(404);
          expect(live).toEqual([]);
        } else {
          expect(stored.body.content).toContain(winner.token);
          expect(live).toEqual([winner.token]);
        }
      }
    }
    // Qdrant holds the live version's points only (the reconciler removes anything else).
    const points = [...(qdrant.collections.values())].flatMap((c) => [...c.points.values()]);
    const racePoints = points.filter((p) => (p.payload as { index?: string }).index === 'race');
    expect(new Set(racePoints.map((p) => (p.payload as { version: number }).version)).size).toBeLessThanOrEqual(1);
    if (keywordInQdrant) {
      // The keyword collection of the index too (a collection per index, no tenant key): the live version's section and page only.
      const keywordPoints = [...qdrant.collections].filter(([name]) => name.includes('_race-')).flatMap(([, c]) => [...c.points.values()]);
      expect(new Set(keywordPoints.map((p) => (p.payload as { version: number }).version)).size).toBeLessThanOrEqual(1);
    }
    expect(qdrant.violations).toEqual([]);
  });

  it('loses nothing when a worker and an API are killed with SIGKILL mid-push', async () => {
    const [a, b] = apis;
    await call(a, 'POST', '/v1/admin/indexes', { uid: 'crash', language_code: 'en' });
    const accepted = new Set<string>();
    let killedApi = false;
    const pushVia = async (base: string, from: number, to: number) => {
      const documents = Array.from({ length: to - from }, (_, k) => ({ uid: `c${from + k}`, ...page(from + k, `crash${from + k}`) }));
      try {
        const r = await call(base, 'POST', '/v2/indexes/crash/documents', { documents });
        if (r.status === 200) for (const d of documents) accepted.add(d.uid);
      } catch {
        // The API died under this request: nothing was promised, so nothing may be counted.
      }
    };
    const pushing = (async () => {
      for (let i = 0; i < 1600; i += 100) {
        // Halfway, A dies while both APIs are taking a batch: whatever A answered 200 must survive.
        const killA = async () => {
          if (i !== 800) return;
          await new Promise((r) => setTimeout(r, 15));
          killedApi = true;
          await stopProcess(procs.get('api-a')!, 'SIGKILL');
        };
        await Promise.all([pushVia(a, i, i + 50), pushVia(b, i + 50, i + 100), killA()]);
      }
    })();
    await waitFor(async () => (await call(b, 'GET', '/v2/indexes/crash/status')).body.indexed >= 100, 60_000, 20);
    await stopProcess(procs.get('worker-1')!, 'SIGKILL');
    await pushing;
    expect(killedApi).toBe(true);
    // What B accepted alone is at least half; A took its share until it died.
    expect(accepted.size).toBeGreaterThanOrEqual(800);
    await startWorker('worker-1');
    // A batch A committed just before it died may have got no answer: stored, though never promised.
    const done = await waitFor(async () => {
      const s = (await call(b, 'GET', '/v2/indexes/crash/status')).body;
      return s.pending === 0 && s.documents >= accepted.size && s.indexed === s.documents ? s : null;
    }, 120_000, 200);
    expect(done).toMatchObject({ failed: 0 });
    const listed: string[] = [];
    let after = '';
    for (;;) {
      const r = await call(b, 'GET', `/v2/indexes/crash/documents?limit=1000${after ? `&after-uid=${after}` : ''}`);
      listed.push(...r.body.documents.map((d: { uid: string }) => d.uid));
      if (r.body.documents.length < 1000) break;
      after = listed[listed.length - 1];
    }
    const unanswered = listed.filter((uid) => !accepted.has(uid));
    expect([...accepted].filter((uid) => !listed.includes(uid))).toEqual([]);
    // Whatever was stored without an answer is whole batches that went to A.
    expect(unanswered.length % 50).toBe(0);
    // Each accepted document is searchable through the surviving API, exactly once.
    for (const uid of [...accepted].filter((_, i) => i % 97 === 0)) {
      expect(await contentUids(b, 'crash', `crash${uid.slice(1)}`)).toEqual([uid]);
    }
    expect(qdrant.violations).toEqual([]);
  }, 240_000);
});
