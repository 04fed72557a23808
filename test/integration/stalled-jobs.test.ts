import type { ChildProcess } from 'node:child_process';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logging/create-logger.js';
import { MAX_REQUEUES, Reconciler } from '../../workers/reconciler.js';
import { MAX_STALLS } from '../../workers/registry.js';
import { startStubEmbeddings } from '../helpers/stub-embeddings-server.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { spawnWorker, stopProcess } from '../helpers/worker-process.js';

// A job whose worker dies (or blocks its event loop past the lock) every time it runs stalls; past
// MAX_STALLS BullMQ fails it when a worker next takes it, without running the handler that marks
// its documents failed. Before the fix those documents stayed pending and the reconciler gave them a
// new job, forever. Real worker processes, killed with SIGKILL while they hold the job.
let svc: TestService;
let stub: Awaited<ReturnType<typeof startStubEmbeddings>>;
const workers: ChildProcess[] = [];
const FAST = { QUARRY_JOB_LOCK_SECONDS: '2', QUARRY_RECONCILE_SECONDS: '1', QUARRY_RECONCILE_GRACE_SECONDS: '1' };
let env: Record<string, string>;

beforeAll(async () => {
  stub = await startStubEmbeddings();
  // The embeddings server never answers in time: each embed job stays active until its worker is killed.
  stub.state.delayMs = 600_000;
  const embedder = { QUARRY_EMBEDDER: 'openai', QUARRY_EMBEDDINGS_URL: stub.url, QUARRY_EMBEDDINGS_MODEL: 'stall', QUARRY_EMBEDDINGS_DIMENSIONS: '8' };
  svc = await startTestService({ workers: false, env: { ...FAST, ...embedder } });
  env = { QUARRY_DATA_DIR: svc.dataDir, QUARRY_REDIS_PREFIX: svc.prefix, REDIS_URL: svc.config.redis.url, ...FAST, ...embedder };
});
afterAll(async () => {
  await Promise.all(workers.map((w) => stopProcess(w, 'SIGKILL')));
  await svc?.close();
  await stub?.close();
});

const start = async () => {
  const w = await spawnWorker(env);
  workers.push(w);
  return w;
};
const embedJob = async (): Promise<Job | undefined> => (await svc.queues.embed.getJobs(['active', 'waiting', 'delayed', 'failed']))[0];
const reconcilerHere = () =>
  new Reconciler(svc.storage, svc.queues, svc.redis, createLogger('silent', 'test'), { prefix: svc.prefix, batchSize: 64, graceMs: 0 });
/** Runs one reconcile pass here, the lock a killed worker may have left freed first. */
async function reconcileNow(): Promise<number> {
  await svc.redis.del(`${svc.prefix}:lock:reconciler`);
  return reconcilerHere().runOnce(0);
}

describe('a job that stalls past the limit', () => {
  it('marks its documents failed with the reason, shows on the operations page, and is not re-enqueued', async () => {
    expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'stall', language_code: 'en' })).status).toBe(201);
    expect((await svc.call('PUT', '/v2/indexes/stall/documents/slow', { title: 'Slow', content: '<p>never embedded</p>' })).status).toBe(204);

    // Each round a new worker takes the job (after noticing the previous holder's stall) and is killed holding it.
    let lastStart = 0;
    for (let round = 1; round <= MAX_STALLS + 1; round++) {
      const worker = await start();
      const taken = await waitFor(async () => {
        const job = await embedJob();
        return job && (await job.getState()) === 'active' && (job.processedOn ?? 0) > lastStart ? job : null;
      }, 60_000, 50);
      expect(taken, `round ${round}: the embed job was taken`).toBeTruthy();
      lastStart = taken!.processedOn!;
      await stopProcess(worker, 'SIGKILL');
    }
    // The next worker finds the last stall, and BullMQ fails the job when it takes it.
    await start();
    const progress = async () => (await svc.call('GET', '/v1/admin/indexes/stall')).body.progress;
    await waitFor(async () => (await progress()).failed === 1, 60_000, 100);
    const p = await progress();
    expect(p).toMatchObject({ documents: 1, pending: 0, failed: 1 });
    expect(p.last_error.uid).toBe('slow');
    expect(p.last_error.message).toContain(`embed stage: the job stalled more than ${MAX_STALLS} times`);
    expect(p.last_error.message).toContain('QUARRY_JOB_LOCK_SECONDS');

    const ops = (await svc.call('GET', '/v1/admin/operations')).body;
    expect(ops.failed_jobs).toContainEqual(expect.objectContaining({ queue: 'embed', reason: 'job stalled more than allowable limit', index_uid: 'stall' }));

    // Nothing is re-enqueued: not by the workers' own reconciler, not by a pass run here.
    await Promise.all(workers.map((w) => stopProcess(w, 'SIGKILL')));
    expect(await reconcileNow()).toBe(0);
    expect(await progress()).toMatchObject({ pending: 0, failed: 1 });
    for (const queue of [svc.queues.index, svc.queues.embed]) {
      expect(await queue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 });
    }
  }, 300_000);
});

describe('the reconciler', () => {
  it(`marks failed, with the reason, pending documents whose job failed for good, and gives up after ${MAX_REQUEUES} new jobs`, async () => {
    await Promise.all(workers.map((w) => stopProcess(w, 'SIGKILL'))); // no worker may take the jobs below
    expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'ghosts', language_code: 'en' })).status).toBe(201);
    // One job each: the next push waits until the writer has enqueued the previous one's job.
    for (const [n, uid] of ['failed-job', 'vanished-often', 'vanished-once'].entries()) {
      expect((await svc.call('PUT', `/v2/indexes/ghosts/documents/${uid}`, { title: uid, content: `<p>${uid}</p>` })).status).toBe(204);
      expect(await waitFor(async () => (await svc.queues.index.getWaitingCount()) === n + 1, 10_000, 10)).toBe(true);
    }
    const index = (await svc.storage.indexes.get('ghosts'))!;
    const refOf = async (uid: string) => {
      const d = (await svc.storage.documents.get(index.id, uid))!;
      return [{ uid, version: d.version }];
    };
    // No worker runs: the index jobs wait, each named by its document. One fails for good without its
    // handler (as a stalled-out one does when its worker dies before marking), the others' jobs vanish
    // as after a Redis wipe.
    const byDoc = new Map<string, Job>();
    for (const j of await svc.queues.index.getJobs(['waiting'])) {
      for (const r of await svc.storage.documents.pendingOfJob(index.id, j.id!, 10)) byDoc.set(r.uid, j);
    }
    expect([...byDoc.keys()].sort()).toEqual(['failed-job', 'vanished-often', 'vanished-once']);
    const taker = new Worker('index', null, { connection: svc.redis, prefix: svc.prefix, autorun: false });
    try {
      const taken = (await taker.getNextJob('test-token'))!;
      expect(taken.id).toBe(byDoc.get('failed-job')!.id); // pushed first, taken first
      // Unrecoverable: no retry, failed for good.
      await taken.moveToFailed(new UnrecoverableError('index stage blew up'), 'test-token', false);
      expect(await taken.getState()).toBe('failed');
    } finally {
      await taker.close();
    }
    for (const uid of ['vanished-often', 'vanished-once']) await byDoc.get(uid)!.remove();
    await svc.storage.documents.reassignJob(index.id, await refOf('vanished-often'), `r${MAX_REQUEUES}.${index.id}.test.gone`);
    await svc.storage.documents.reassignJob(index.id, await refOf('vanished-once'), `r2.${index.id}.test.gone`);

    expect(await reconcileNow()).toBe(1);
    const failedDoc = (await svc.storage.documents.get(index.id, 'failed-job'))!;
    expect(failedDoc).toMatchObject({ status: 'failed', error: 'index stage: index stage blew up' });
    const often = (await svc.storage.documents.get(index.id, 'vanished-often'))!;
    expect(often.status).toBe('failed');
    expect(often.error).toContain(`re-enqueued this document's work ${MAX_REQUEUES} times`);
    expect((await svc.storage.documents.get(index.id, 'vanished-once'))!.status).toBe('pending');
    const requeued = await svc.queues.index.getJobs(['waiting']);
    expect(requeued.map((j) => j.id!.split('.')[0])).toEqual(['r3']);
  }, 60_000);
});
