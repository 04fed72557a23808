import { ContentEngine } from '../../shared/search/engine/content-engine.js';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { findRedisServer, freePort, startRedis } from '../../scripts/redis-launcher.mjs';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { spawnWorker, stopProcess } from '../helpers/worker-process.js';

const FAST_RECOVERY = { QUARRY_JOB_LOCK_SECONDS: '3', QUARRY_RECONCILE_SECONDS: '1', QUARRY_RECONCILE_GRACE_SECONDS: '2', QUARRY_PIPELINE_BATCH: '16' };
const doc = (i: number) => ({ uid: `d${String(i).padStart(5, '0')}`, title: `Document ${i}`, content: `<h2>Part ${i}</h2><p>Words about item${i} and more.</p>` });

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
  cleanup = [];
});

function workerEnv(svc: TestService, redisUrl: string) {
  return { QUARRY_DATA_DIR: svc.dataDir, QUARRY_REDIS_PREFIX: svc.prefix, REDIS_URL: redisUrl, ...FAST_RECOVERY };
}

/** Every document indexed, and its sections present once: nothing lost, nothing doubled. */
async function checkExactlyOnce(svc: TestService, expectedUids: string[]) {
  const db = new Database(join(svc.dataDir, 'quarry.db'), { readonly: true });
  const search = new Database(join(svc.dataDir, 'search.db'), { readonly: true });
  try {
    const index = (await svc.storage.indexes.get('crash'))!;
    const rows = db.prepare(`SELECT uid, status FROM documents WHERE index_id = ? ORDER BY uid`).all(index.id) as { uid: string; status: string }[];
    expect(rows.map((r) => r.uid)).toEqual(expectedUids);
    expect(rows.filter((r) => r.status !== 'indexed')).toEqual([]);
    const doubled = search.prepare(`SELECT doc_uid, count(*) n FROM sections WHERE index_id = ? GROUP BY doc_uid HAVING n != 1`).all(index.id);
    expect(doubled).toEqual([]);
    // Each one searchable once, in the keyword index that search reads.
    const state = (await new ContentEngine(svc.storage).state('crash'))!;
    const held = [...state.documents()].map((d) => d.uid);
    expect(held.sort()).toEqual(expectedUids);
    expect(held.filter((uid) => state.unitsOf(uid).length !== 1)).toEqual([]);
  } finally {
    db.close();
    search.close();
  }
}

async function expectAllIndexedOnce(svc: TestService, total: number) {
  const index = (await svc.storage.indexes.get('crash'))!;
  const done = await waitFor(async () => {
    const p = await svc.storage.documents.progress(index.id);
    return p.indexed === total && p.pending === 0 ? p : null;
  }, 90_000, 100);
  expect(done).toMatchObject({ documents: total, indexed: total, pending: 0, failed: 0 });
  await checkExactlyOnce(svc, Array.from({ length: total }, (_, i) => doc(i).uid));
}

async function pushRange(svc: TestService, from: number, to: number) {
  const documents = Array.from({ length: to - from }, (_, k) => doc(from + k));
  const r = await svc.call('POST', '/v2/indexes/crash/documents', { documents });
  expect(r.status).toBe(200);
  expect(r.body.accepted).toBe(documents.length);
}

describe('crashes in the middle of a push', () => {
  it('kill -9 of a worker: after a restart every document is indexed exactly once', { timeout: 120_000 }, async () => {
    const svc = await startTestService({ workers: false, env: FAST_RECOVERY });
    cleanup.push(() => svc.close());
    await svc.call('POST', '/v1/admin/indexes', { uid: 'crash', language_code: 'en' });
    let worker: ChildProcess = await spawnWorker(workerEnv(svc, svc.config.redis.url));
    cleanup.push(() => stopProcess(worker, 'SIGKILL').then(() => undefined));

    const total = 3000;
    const pushes = (async () => {
      for (let i = 0; i < total; i += 250) await pushRange(svc, i, i + 250);
    })();
    const index = (await svc.storage.indexes.get('crash'))!;
    await waitFor(async () => (await svc.storage.documents.progress(index.id)).indexed >= 200, 60_000, 5);
    await stopProcess(worker, 'SIGKILL');
    const atKill = await svc.storage.documents.progress(index.id);
    expect(atKill.indexed).toBeLessThan(total);
    await pushes;
    worker = await spawnWorker(workerEnv(svc, svc.config.redis.url));

    await expectAllIndexedOnce(svc, total);
  });

  it('Redis restarted with an empty dataset: nothing that got a 2xx is lost', { timeout: 120_000 }, async () => {
    const binary = findRedisServer();
    expect(binary, 'redis-server must be installed for this test').toBeTruthy();
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'quarry-redis-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    let redis = await startRedis({ binary, dir: join(dir, 'a'), port });
    cleanup.push(async () => void redis.kill('SIGKILL'));
    const url = `redis://127.0.0.1:${port}`;
    const svc = await startTestService({ workers: false, env: { ...FAST_RECOVERY, REDIS_URL: url } });
    cleanup.push(() => svc.close());
    await svc.call('POST', '/v1/admin/indexes', { uid: 'crash', language_code: 'en' });
    const worker = await spawnWorker(workerEnv(svc, url));
    cleanup.push(() => stopProcess(worker, 'SIGKILL').then(() => undefined));

    const total = 2000;
    await pushRange(svc, 0, 800);
    redis.kill('SIGKILL');
    await new Promise((r) => redis.once('exit', r));
    // While Redis is down, writes are still accepted: the store holds them.
    await pushRange(svc, 800, 1000);
    redis = await startRedis({ binary, dir: join(dir, 'b'), port }); // a new, empty dataset
    await pushRange(svc, 1000, total);

    await expectAllIndexedOnce(svc, total);
  });
});
