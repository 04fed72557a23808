import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentWriter } from '../../shared/documents/document-writer.js';
import { encodeFields } from '../../shared/documents/fields-hash.js';
import { createLogger } from '../../shared/logging/create-logger.js';
import type { DocumentWrite, WriteOutcome } from '../../shared/storage/ports/document-store.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

// The writer's pipeline jobs, on the real store and a real Redis: single writes committed close
// together share one job (one Redis round trip, one worker batch) instead of one job each, and a job
// is enqueued only once every commit carrying its id has ended, so it never runs before its documents.
let svc: TestService;
let indexId: number;

beforeAll(async () => {
  svc = await startTestService({ workers: false });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'writer', language_code: 'en' })).status).toBe(201);
  indexId = (await svc.storage.indexes.get('writer'))!.id;
});
afterAll(async () => {
  await svc?.close();
});

const put = (uid: string) => ({ indexId, uid, ...encodeFields({ title: uid }) });
const waitingJobs = async () => (await svc.queues.index.getJobs(['waiting'])).map((j) => j.id!);

describe('the document writer', () => {
  it('gives single writes committed within its enqueue delay one job, split at the batch size', async () => {
    await svc.queues.index.obliterate({ force: true });
    // A delay far longer than 12 one-document commits take: they all commit before any job is sent.
    const writer = new DocumentWriter((w) => svc.storage.documents.applyWrites(w), svc.queues, createLogger('silent', 'test'),
      { batchSize: 5, enqueueDelayMs: 3000 });
    for (let i = 0; i < 12; i++) expect((await writer.write(put(`single-${i}`))).version).not.toBeNull();
    // Writes that change nothing carry a job too, but need none.
    expect((await writer.write(put('single-0'))).version).toBeNull();
    const jobs = await waitFor(async () => ((await waitingJobs()).length > 0 ? waitingJobs() : null), 20_000, 50);
    expect(jobs).toHaveLength(3);
    const perJob = await Promise.all(jobs!.map(async (id) => (await svc.storage.documents.pendingOfJob(indexId, id, 100)).length));
    expect(perJob.sort()).toEqual([2, 5, 5]);
  });

  it('never enqueues a job while a commit carrying its id is running', async () => {
    await svc.queues.index.obliterate({ force: true });
    let release: () => void = () => {};
    const carried: string[][] = [];
    const gated = async (w: DocumentWrite[]): Promise<WriteOutcome[]> => {
      carried.push(w.map((x) => x.job));
      if (carried.length === 2) await new Promise<void>((r) => (release = r));
      return svc.storage.documents.applyWrites(w);
    };
    const writer = new DocumentWriter(gated, svc.queues, createLogger('silent', 'test'), { batchSize: 64, enqueueDelayMs: 0 });
    await writer.write(put('gate-1'));
    const second = writer.write(put('gate-2'));
    await waitFor(async () => carried.length === 2, 5000, 5);
    // The second commit is held: whatever job it carries (the first one's, or one of its own) is not in Redis.
    await new Promise((r) => setTimeout(r, 200));
    expect(await waitingJobs()).not.toContain(carried[1][0]);
    release();
    await second;
    const jobs = await waitFor(async () => ((await waitingJobs()).includes(carried[1][0]) ? waitingJobs() : null), 10_000, 20);
    const docs = (await Promise.all(jobs!.map((id) => svc.storage.documents.pendingOfJob(indexId, id, 10)))).flat().map((r) => r.uid);
    expect(docs.sort()).toEqual(['gate-1', 'gate-2']);
  });
});
