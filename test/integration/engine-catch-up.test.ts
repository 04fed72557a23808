// Loading or catching up with thousands of changed documents is CPU work on the API's event loop:
// it must leave turns of the loop to other requests instead of holding them until it is done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentEngine } from '../../shared/search/engine/content-engine.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
const DOCS = 1500;
const docs = (word: string) => Array.from({ length: DOCS }, (_, i) => ({
  uid: `d${i}`, title: `Document ${i}`, content: `Paragraph ${i} about ${word}, kites and ferries in the harbour of town ${i % 37}.`,
  source_url: `https://example.com/d${i}`,
}));
async function push(word: string) {
  const documents = docs(word);
  for (let i = 0; i < DOCS; i += 500) {
    expect((await svc.call('POST', '/v2/indexes/bulk/documents', { documents: documents.slice(i, i + 500) })).status).toBe(200);
  }
  // Indexed as the workers see it; the service's own engine is not asked, so the engine under test has it all to read.
  expect(await waitFor(async () => {
    const s = (await svc.call('GET', '/v2/indexes/bulk/status')).body;
    return s.indexed === DOCS && s.pending === 0;
  }, 120_000)).toBe(true);
}

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'bulk' })).status).toBe(201);
  await push('lanterns');
}, 180_000);
afterAll(async () => svc.close());

describe('the content engine on the event loop', () => {
  it('loading an index of many documents lets other work run in between', async () => {
    const engine = new ContentEngine(svc.storage);
    let turnsBeforeLoaded = 0;
    let loaded = false;
    const probe = () => {
      if (loaded) return;
      turnsBeforeLoaded++;
      setImmediate(probe);
    };
    setImmediate(probe);
    const state = await engine.state('bulk');
    loaded = true;
    expect(state?.documentCount).toBe(DOCS);
    // One turn at most passes before a load that never yields finishes; each 100 documents give one.
    expect(turnsBeforeLoaded).toBeGreaterThanOrEqual(DOCS / 100 - 1);
  }, 60_000);

  it('a search waits for a large catch-up at most its time budget, answering from what is loaded, and the catch-up goes on', async () => {
    const engine = new ContentEngine(svc.storage, null, 20);
    const before = (await engine.state('bulk'))!;
    const loadedSeq = before.seq;
    await push('quinces');
    const lastChange = await svc.storage.sections.lastChange(before.index.id);
    const state = (await engine.state('bulk'))!;
    // 1,500 changed documents take far longer than 20 ms to analyse: the search went on from what was loaded.
    expect(state.seq).toBeLessThan(lastChange);
    expect(state.seq).toBeGreaterThanOrEqual(loadedSeq);
    expect(await waitFor(async () => state.seq === lastChange, 60_000)).toBe(true);
    expect(state.documentCount).toBe(DOCS);
  }, 180_000);

  it('keeps indexes loaded and current in the background, so a search finds its index caught up', async () => {
    // A search may wait 1 ms for changes: far too little to analyse 1,500 changed documents itself.
    const engine = new ContentEngine(svc.storage, null, 1);
    const firstPass = new Promise<void>((resolve) => engine.startFollowing((err) => { throw err; }, 50, () => resolve()));
    try {
      await firstPass;
      await push('apricots');
      const index = (await svc.storage.indexes.get('bulk'))!;
      const lastChange = await svc.storage.sections.lastChange(index.id);
      // No search has asked; the follower catches up on its own.
      expect(await waitFor(async () => engine.appliedChange(index.id) === lastChange, 60_000)).toBe(true);
      const state = (await engine.state('bulk'))!;
      expect(state.seq).toBe(lastChange);
      expect(state.termsOf('d7', 'content')).toContain('apricot');
    } finally {
      await engine.stopFollowing();
    }
  }, 180_000);

  it('warms an index up in the background when it is first loaded and each time it has doubled, with searches of its own words', async () => {
    // Loaded from the store, not from the snapshot an earlier test's engine wrote (its units would count its history).
    const engine = new ContentEngine({ ...svc.storage, snapshots: null }, null);
    const warmed: { units: number; queries: string[] }[] = [];
    engine.onGrown(async (state) => {
      warmed.push({ units: state.unitCount, queries: await engine.sampleQueries(state, 4) });
    });
    const firstPass = new Promise<void>((resolve) => engine.startFollowing((err) => { throw err; }, 20, () => resolve()));
    try {
      await firstPass;
      expect(warmed.length).toBe(1);
      expect(warmed[0].units).toBeGreaterThanOrEqual(DOCS);
      expect(warmed[0].queries).toHaveLength(4);
      for (const q of warmed[0].queries) expect(q).toMatch(/^Paragraph \d+$/);
      // Rewriting every document adds as many units again (old ones stay as tombstones): doubled.
      await push('quinces');
      expect(await waitFor(async () => warmed.length === 2, 60_000)).toBe(true);
      // Passes that find nothing new warm nothing.
      await new Promise((r) => setTimeout(r, 200));
      expect(warmed.length).toBe(2);
    } finally {
      await engine.stopFollowing();
    }
  }, 180_000);

  it('gives the memory it freed back after loading an index from the store, at most once per eight seconds', async () => {
    let released = 0;
    const engine = new ContentEngine({ ...svc.storage, snapshots: null }, null, undefined, null, null, { releaseFreeMemory: () => released++, largeIndexUnits: 0 });
    const firstPass = new Promise<void>((resolve) => engine.startFollowing((err) => { throw err; }, 20, () => resolve()));
    try {
      await firstPass;
      expect(released).toBe(1);
      // Passes every 20 ms meanwhile: none of them releases again this soon.
      await new Promise((r) => setTimeout(r, 300));
      expect(released).toBe(1);
    } finally {
      await engine.stopFollowing();
    }
  }, 60_000);

  it('reads a result\'s section by its id, at its position once the document was published again, and none once it is gone', async () => {
    // An index of its own: the sections below change behind the pipeline's back.
    expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'moved' })).status).toBe(201);
    const two = docs('plums').slice(5, 7);
    expect((await svc.call('POST', '/v2/indexes/moved/documents', { documents: two })).status).toBe(200);
    expect(await waitFor(async () => (await svc.call('GET', '/v2/indexes/moved/status')).body.indexed === 2, 60_000)).toBe(true);
    const engine = new ContentEngine({ ...svc.storage, snapshots: null }, null, 5000);
    const state = (await engine.state('moved'))!;
    const [unit] = state.unitsOf('d5');
    const [gone] = state.unitsOf('d6');
    const before = await engine.sections(state, [unit, gone]);
    expect(before.map((x) => x?.text)).toEqual([expect.stringContaining('Paragraph 5 about'), expect.stringContaining('Paragraph 6 about')]);
    // Published again and removed behind the engine's back (this copy is not caught up): new ids, no ids.
    const v = state.unitRef(unit).version;
    const row = { ord: 0, field: 'content', title: 'Document 5', anchor: null, text: 'Paragraph 5 rewritten', hash: 'h:rewritten', vector: null };
    await svc.storage.sections.publish(state.index.id, [{ uid: 'd5', version: v + 100, sections: [row] }, { uid: 'd6', version: v + 100, sections: null }], 'none');
    const after = await engine.sections(state, [unit, gone]);
    expect(after[0]).toMatchObject({ uid: 'd5', ord: 0, version: v + 100, text: 'Paragraph 5 rewritten' });
    expect(after[1]).toBeNull();
  }, 60_000);
});
