import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStubEmbeddings } from '../helpers/stub-embeddings-server.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { spawnWorker, stopProcess } from '../helpers/worker-process.js';

let stub: Awaited<ReturnType<typeof startStubEmbeddings>>;
let svc: TestService;
let env: Record<string, string>;

beforeAll(async () => {
  stub = await startStubEmbeddings();
  stub.state.delayMs = 400; // slow enough that jobs are mid-flight when the signal arrives
  env = {
    QUARRY_EMBEDDER: 'openai', QUARRY_EMBEDDINGS_URL: stub.url, QUARRY_EMBEDDINGS_MODEL: 'slow', QUARRY_EMBEDDINGS_DIMENSIONS: '8',
    QUARRY_PIPELINE_BATCH: '8', QUARRY_WORKER_CONCURRENCY: '4', QUARRY_RECONCILE_GRACE_SECONDS: '600',
  };
  svc = await startTestService({ workers: false, env });
  await svc.call('POST', '/v1/admin/indexes', { uid: 'drain' });
});
afterAll(async () => {
  await svc.close();
  await stub.close();
});

describe('SIGTERM on a worker', () => {
  it('finishes the jobs it is running before it exits; none is dropped or left stalled', { timeout: 90_000 }, async () => {
    const workerEnv = { ...env, QUARRY_DATA_DIR: svc.dataDir, QUARRY_REDIS_PREFIX: svc.prefix, REDIS_URL: svc.config.redis.url };
    const worker = await spawnWorker(workerEnv);
    const documents = Array.from({ length: 200 }, (_, i) => ({ uid: `d${i}`, title: `Doc ${i}`, content: `<p>unique words ${i} here</p>` }));
    expect((await svc.call('POST', '/v2/indexes/drain/documents', { documents })).body.accepted).toBe(200);

    const active = await waitFor(async () => (await svc.queues.embed.getJobCounts('active')).active > 0, 20_000, 10);
    expect(active).toBe(true);
    expect(await stopProcess(worker, 'SIGTERM')).toBe(0);

    const counts = await Promise.all((['index', 'embed'] as const).map((q) => svc.queues[q].getJobCounts('active', 'failed')));
    expect(counts.every((c) => c.active === 0 && c.failed === 0)).toBe(true);

    // What was not started is still queued: a new worker finishes the push, with no reconciler help.
    const again = await spawnWorker(workerEnv);
    try {
      const index = (await svc.storage.indexes.get('drain'))!;
      const done = await waitFor(async () => (await svc.storage.documents.progress(index.id)).indexed === 200, 60_000, 100);
      expect(done).toBe(true);
    } finally {
      // Drained, not killed: a killed worker's job would stay active (stalled) for the next test to find.
      await stopProcess(again, 'SIGTERM');
    }
  });

  it('drains as well when SIGINT and SIGTERM arrive together (Ctrl-C in npm start\'s terminal)', { timeout: 90_000 }, async () => {
    const workerEnv = { ...env, QUARRY_DATA_DIR: svc.dataDir, QUARRY_REDIS_PREFIX: svc.prefix, REDIS_URL: svc.config.redis.url };
    const worker = await spawnWorker(workerEnv);
    const documents = Array.from({ length: 100 }, (_, i) => ({ uid: `twice${i}`, title: `Doc ${i}`, content: `<p>other words ${i} here</p>` }));
    expect((await svc.call('POST', '/v2/indexes/drain/documents', { documents })).body.accepted).toBe(100);
    expect(await waitFor(async () => (await svc.queues.embed.getJobCounts('active')).active > 0, 20_000, 10)).toBe(true);
    const exited = new Promise<number | null>((r) => worker.once('exit', (code) => r(code)));
    worker.kill('SIGINT');
    worker.kill('SIGTERM');
    // A second signal forced exit code 1 at once, dropping the jobs in flight to the stalled-job check.
    expect(await exited).toBe(0);
    const counts = await Promise.all((['index', 'embed'] as const).map((q) => svc.queues[q].getJobCounts('active', 'failed')));
    expect(counts.every((c) => c.active === 0 && c.failed === 0)).toBe(true);
  });
});
