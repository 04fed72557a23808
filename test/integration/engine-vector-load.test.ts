// A copy of an index built from the store (a start without a snapshot, or a load afresh) is searched with
// its vector lists trained and never with part of its vectors: until trained, a hybrid search scans every
// vector, and at a million sections a training run between such searches lasted minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentEngine } from '../../shared/search/engine/content-engine.js';
import { SnapshotWriter } from '../../shared/search/snapshot/snapshot-codec.js';
import { MemoryVectorIndex, type IndexVectorsSnapshot } from '../../shared/search/vectors/memory-vector-index.js';
import { ANN_MIN_VECTORS } from '../../shared/search/vectors/vector-set.js';
import type { Storage } from '../../shared/storage/ports/storage.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
// Past the size from which a vector set is searched through trained lists.
const DOCS = ANN_MIN_VECTORS + 200;
const WORDS = ['harbour', 'ferry', 'lantern', 'kite', 'gull', 'anchor', 'tide', 'pier', 'sail', 'rope', 'quince', 'meadow', 'copper', 'violin'];
const docs = (round: number) => Array.from({ length: DOCS }, (_, i) => ({
  uid: `d${i}`,
  title: `Notice ${i}`,
  content: `${WORDS[i % WORDS.length]} ${WORDS[(i * 3 + round) % WORDS.length]} ${WORDS[(i * 7 + 1) % WORDS.length]} and the ${WORDS[(i * 5 + round) % WORDS.length]} of round ${round}.`,
}));

async function push(round: number) {
  const documents = docs(round);
  for (let i = 0; i < DOCS; i += 500) {
    expect((await svc.call('POST', '/v2/indexes/wide/documents', { documents: documents.slice(i, i + 500) })).status).toBe(200);
  }
  expect(await waitFor(async () => {
    const s = (await svc.call('GET', '/v2/indexes/wide/status')).body;
    return s.pending === 0 && s.failed === 0 && s.indexed === DOCS;
  }, 120_000)).toBe(true);
}

/** An engine over the service's store with vectors of its own (held where the test can look) and no snapshots. */
function engineWithVectors() {
  const memory = new MemoryVectorIndex();
  const storage: Storage = { ...svc.storage, snapshots: null, searchVectors: () => ({ kind: 'followed', index: memory }) };
  return { engine: new ContentEngine(storage, svc.embedder.id), memory, storage };
}

const trained = (memory: MemoryVectorIndex) => ((memory.snapshot('wide', new SnapshotWriter()) as IndexVectorsSnapshot | null)?.set.ivf ?? null) !== null;

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'wide' })).status).toBe(201);
  await push(1);
}, 180_000);
afterAll(async () => svc.close());

describe('vectors of a copy built from the store', () => {
  it('are trained before the copy is first searched', async () => {
    const { engine, memory } = engineWithVectors();
    const state = (await engine.state('wide'))!;
    expect(state.documentCount).toBe(DOCS);
    expect(memory.count('wide')).toBe(DOCS);
    expect(trained(memory)).toBe(true);
    const [vector] = await svc.embedder.embed(['the ferry and the lantern']);
    expect(await engine.vectorTop(state, vector, 10)).toHaveLength(10);
  }, 60_000);

  it('stay whole while the index is loaded afresh, and the new copy comes with its own, trained', async () => {
    const { engine, memory, storage } = engineWithVectors();
    const before = (await engine.state('wide'))!;
    await push(2);
    await engine.state('wide');
    // Every document replaced once: half the units are dead, so the next pass loads the index afresh.
    expect(before.unitCount).toBeGreaterThanOrEqual(2 * before.inverted.liveUnits);
    const [vector] = await svc.embedder.embed(['copper violin in the meadow']);
    const expected = (await engine.vectorTop(before, vector, 10)).map((h) => before.uidOf(h.unit));
    // What a search reads while the new copy is being read from the store.
    const during: { count: number; trained: boolean; top: (string | null)[] }[] = [];
    const sectionsPage = storage.sections.sectionsPage;
    // The service's own store object: put back below.
    storage.sections.sectionsPage = async (...args) => {
      const installed = (await engine.state('wide'))!;
      during.push({ count: memory.count('wide'), trained: trained(memory), top: (await engine.vectorTop(installed, vector, 10)).map((h) => installed.uidOf(h.unit)) });
      return sectionsPage.apply(storage.sections, args);
    };
    try {
      await engine.warmAll();
    } finally {
      storage.sections.sectionsPage = sectionsPage;
    }
    const after = (await engine.state('wide'))!;
    expect(after).not.toBe(before);
    expect(during.length).toBeGreaterThan(0);
    for (const seen of during) expect(seen).toEqual({ count: DOCS, trained: true, top: expected });
    expect(memory.count('wide')).toBe(DOCS);
    expect(trained(memory)).toBe(true);
    expect(await engine.vectorTop(after, vector, 10)).toHaveLength(10);
  }, 180_000);
});
