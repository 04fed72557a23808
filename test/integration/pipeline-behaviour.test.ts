import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../shared/llm/create-embedder.js';
import type { Embedder } from '../../shared/llm/ports/embedder.js';
import { Reconciler } from '../../workers/reconciler.js';
import { startWorkers, type RunningWorkers } from '../../workers/registry.js';
import { startStubEmbeddings } from '../helpers/stub-embeddings-server.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let stub: Awaited<ReturnType<typeof startStubEmbeddings>>;
let svc: TestService;
let workers: RunningWorkers | null = null;
const silent = pino({ level: 'silent' });

async function runWorkers(embedder: Embedder) {
  workers = await startWorkers(['index', 'embed'], { log: silent, pipeline: { storage: svc.storage, embedder, queues: svc.queues, log: silent, batchSize: 64 } },
    { connection: svc.redis, prefix: svc.prefix, concurrency: 2, lockMs: 30_000 });
}

beforeAll(async () => {
  stub = await startStubEmbeddings();
  svc = await startTestService({
    workers: false,
    env: { QUARRY_EMBEDDER: 'openai', QUARRY_EMBEDDINGS_URL: stub.url, QUARRY_EMBEDDINGS_MODEL: 'stub-a', QUARRY_EMBEDDINGS_DIMENSIONS: '8', QUARRY_JOB_ATTEMPTS: '2' },
  });
  await runWorkers(svc.embedder);
});
afterAll(async () => {
  await workers?.close();
  await svc.close();
  await stub.close();
});

const status = async (index: string) => (await svc.call('GET', `/v2/indexes/${index}/status`)).body;
const settled = (index: string) => waitFor(async () => {
  const s = await status(index);
  return s.pending === 0 && s.pending_deletes === 0 ? s : null;
});

describe('the ingestion pipeline', () => {
  it('re-pushing identical content does no embedding work; a metadata-only change re-indexes without embedding', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'reuse' });
    const body = { title: 'Guide', content: '<h2>Install</h2><p>Run the installer.</p><h2>Use</h2><p>Open it.</p>' };
    await svc.call('PUT', '/v2/indexes/reuse/documents/g', body);
    await settled('reuse');
    const before = stub.state.texts;
    expect(before).toBeGreaterThan(0);

    await svc.call('PUT', '/v2/indexes/reuse/documents/g', body);
    await svc.call('PUT', '/v2/indexes/reuse/documents/g', { ...body, last_modified: '2026-01-02T03:04:05Z' });
    await svc.call('PUT', '/v2/indexes/reuse/documents/copy', body);
    await waitFor(async () => (await status('reuse')).indexed === 2);
    await settled('reuse');
    expect(stub.state.texts).toBe(before);
    const doc = await svc.call('GET', '/v2/indexes/reuse/documents/g');
    expect(doc.body.last_modified).toBe('2026-01-02T03:04:05Z');
  });

  it('a provider that rejects the request marks the documents failed with the reason; a re-push retries them', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'failing' });
    stub.state.failWith = 400;
    await svc.call('PUT', '/v2/indexes/failing/documents/x', { title: 'X', content: '<p>never embedded before zebra</p>' });
    const failed = await waitFor(async () => {
      const s = await status('failing');
      return s.failed === 1 ? s : null;
    });
    expect(failed.last_error.uid).toBe('x');
    expect(failed.last_error.message).toMatch(/embed stage: .*400/);
    const doc = await svc.call('GET', '/v2/indexes/failing/documents/x');
    expect(doc.body.status.state).toBe('failed');

    stub.state.failWith = 0;
    await svc.call('PUT', '/v2/indexes/failing/documents/x', { title: 'X', content: '<p>never embedded before zebra</p>' });
    const ok = await waitFor(async () => {
      const s = await status('failing');
      return s.indexed === 1 ? s : null;
    });
    expect(ok).toMatchObject({ failed: 0, pending: 0 });
  });

  it('records the model of each index; changing the model re-embeds the index', async () => {
    await svc.call('POST', '/v1/admin/indexes', { uid: 'models' });
    for (const n of [1, 2, 3]) await svc.call('PUT', `/v2/indexes/models/documents/d${n}`, { title: `Doc ${n}`, content: `<p>text ${n}</p>` });
    await waitFor(async () => (await status('models')).indexed === 3);
    expect((await status('models')).embedder).toBe(`openai:stub-a@${stub.url}`);

    // Restart the workers with another model, as an operator changing QUARRY_EMBEDDINGS_MODEL would.
    await workers?.close();
    const modelB = await createEmbedder({ provider: 'openai', baseUrl: stub.url, model: 'stub-b', dimensions: 8 });
    const reconciler = new Reconciler(svc.storage, svc.queues, svc.redis, silent, { prefix: svc.prefix, batchSize: 16, graceMs: 0 });
    const total = (await Promise.all(['reuse', 'failing', 'models'].map(status))).reduce((n, s) => n + s.documents, 0);
    expect(await reconciler.reembedChangedIndexes(modelB.id)).toBe(total);
    expect(await reconciler.runOnce(0)).toBe(total);
    await runWorkers(modelB);
    const done = await waitFor(async () => {
      const s = await status('models');
      return s.indexed === 3 ? s : null;
    });
    expect(done.embedder).toBe(modelB.id);
    const sections = await svc.storage.sections.sections((await svc.storage.indexes.get('models'))!.id);
    expect([...new Set(sections.map((s) => s.vectorModel))]).toEqual([modelB.id]);
    expect(stub.state.byModel['stub-b']).toBeGreaterThanOrEqual(3);
    const [probe] = await modelB.embed(['Doc 1\ntext 1']);
    expect((await svc.vectorHits('models', probe, 1, modelB.id))[0].uid).toBe('d1');
  });
});
