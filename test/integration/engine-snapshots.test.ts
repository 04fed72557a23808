// Engine snapshots (issue 20): a process starts from each index's snapshot instead of replaying the
// store, catches up from the change feed, and never trusts a snapshot it cannot verify.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentEngine, SNAPSHOT_FORMAT, type EngineLog } from '../../shared/search/engine/content-engine.js';
import { ContentSearch } from '../../shared/search/operations/content-search.js';
import { FileSnapshotStore } from '../../shared/storage/files/file-snapshot-store.js';
import type { Storage } from '../../shared/storage/ports/storage.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
const DOCS = 300;
const WORDS = ['harbour', 'ferry', 'lantern', 'kite', 'gull', 'anchor', 'tide', 'pier', 'sail', 'rope'];
const doc = (i: number, round: number) => ({
  uid: `d${i}`,
  title: `Notice ${i} ${WORDS[(i + round) % WORDS.length]}`,
  content: `<h2>Part ${i % 7}</h2><p>The ${WORDS[i % WORDS.length]} and the ${WORDS[(i * 3 + round) % WORDS.length]} of town ${i % 13}.</p><p>Round ${round} ${WORDS[(i * 7) % WORDS.length]} words.</p>`,
  source_url: `https://example.com/d${i}`,
});
const QUERIES = ['harbour ferry', 'lantern', 'kite gull anchor', 'tide pier', 'sail rope town', 'notice part round', '"the ferry"'];

async function push(docs: ReturnType<typeof doc>[]) {
  for (let i = 0; i < docs.length; i += 100) {
    expect((await svc.call('POST', '/v2/indexes/harbour/documents', { documents: docs.slice(i, i + 100) })).status).toBe(200);
  }
  expect(await waitFor(async () => {
    const s = (await svc.call('GET', '/v2/indexes/harbour/status')).body;
    return s.pending === 0 && s.failed === 0 && s.indexed >= DOCS;
  }, 120_000)).toBe(true);
}

/** A storage view whose snapshots live in a folder of the test's own (the service's engine writes its own). */
function withSnapshots(dir: string | null): Storage {
  return { ...svc.storage, snapshots: dir ? new FileSnapshotStore(dir, svc.storage.snapshots!.scope) : null };
}

function recordingLog() {
  const lines: string[] = [];
  const log: EngineLog = { info: (_o, msg) => lines.push(msg), warn: (_o, msg) => lines.push(msg) };
  return { log, lines };
}

/** Every query's content-search answer and the vector leg's nearest sections: what must not change. */
async function answers(engine: ContentEngine) {
  const search = new ContentSearch(engine);
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const r = await search.search({ index_uid: 'harbour', query, boosting: 'title^2 content', filter: '', fields: ['source_url'], limit: 20, tie: 0.1 });
    out.push(r.results.map((h) => [h.uid, h.section, h.fields, h.score.toFixed(9)]));
    const filtered = await search.search({ index_uid: 'harbour', query, boosting: 'content', filter: 'title:notice AND content:"the ferry"', fields: [], limit: 5, tie: 0 });
    out.push(filtered.results.map((h) => h.uid));
  }
  const state = (await engine.state('harbour'))!;
  const [vector] = await svc.embedder.embed(['ferry in the harbour']);
  out.push((await engine.vectorTop(state, vector, 10)).map((h) => [state.uidOf(h.unit), h.score.toFixed(6)]));
  out.push(state.documentCount);
  return out;
}

/** An engine's answers once loaded afresh from the store (snapshots off): the reference. */
async function fromStore() {
  return answers(new ContentEngine(withSnapshots(null), svc.embedder.id));
}

/** A snapshot written by an engine that loaded from the store; returns its folder and file. */
async function writtenSnapshot() {
  const dir = mkdtempSync(join(tmpdir(), 'quarry-snapshots-'));
  const engine = new ContentEngine(withSnapshots(dir), svc.embedder.id);
  const state = (await engine.state('harbour'))!;
  expect(await engine.saveSnapshot(state)).toBe(true);
  const [file] = readdirSync(dir);
  return { dir, file: join(dir, file), writer: engine };
}

async function startFrom(dir: string) {
  const { log, lines } = recordingLog();
  const engine = new ContentEngine(withSnapshots(dir), svc.embedder.id, undefined, log);
  const result = await answers(engine);
  return { result, lines };
}

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'harbour' })).status).toBe(201);
  await push(Array.from({ length: DOCS }, (_, i) => doc(i, 0)));
}, 180_000);
afterAll(async () => svc?.close());

describe('engine snapshots', () => {
  it('a new engine starts from the snapshot, answers exactly as one loaded from the store, and catches up from the change feed', async () => {
    const { dir, writer } = await writtenSnapshot();
    const reference = await fromStore();
    const started = await startFrom(dir);
    expect(started.lines).toContain('index loaded from its snapshot');
    expect(started.result).toEqual(reference);

    // Changes after the snapshot: a third of the documents rewritten, some deleted.
    await push(Array.from({ length: DOCS / 3 }, (_, i) => doc(i * 3, 1)));
    for (const uid of ['d1', 'd2', 'd4']) expect((await svc.call('DELETE', `/v2/indexes/harbour/documents/${uid}`)).status).toBeLessThan(300);
    // Deletes count apart from upserts: both engines must see the same history, so wait for them too.
    expect(await waitFor(async () => {
      const s = (await svc.call('GET', '/v2/indexes/harbour/status')).body;
      return s.pending === 0 && s.pending_deletes === 0;
    }, 60_000)).toBe(true);
    const later = await startFrom(dir);
    expect(later.lines).toContain('index loaded from its snapshot');
    // The same history as the engine that wrote the snapshot and followed the feed since (a load from the
    // store orders documents by uid instead of by arrival, which moves ties).
    expect(later.result).toEqual(await answers(writer));
  }, 180_000);

  it('an engine that does not write snapshots (API processes past the first) starts from them and writes none', async () => {
    const { dir, file } = await writtenSnapshot();
    const before = readFileSync(file);
    const { log, lines } = recordingLog();
    const reader = new ContentEngine(withSnapshots(dir), svc.embedder.id, undefined, log, null, { writesSnapshots: false });
    const state = (await reader.state('harbour'))!;
    expect(lines).toContain('index loaded from its snapshot');
    expect(await reader.saveSnapshot(state, true)).toBe(false);
    await reader.warmAll();
    expect(readdirSync(dir)).toEqual([file.slice(dir.length + 1)]);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a snapshot engine can write a snapshot of its own that loads the same again', async () => {
    const { dir, writer } = await writtenSnapshot();
    const engine = new ContentEngine(withSnapshots(dir), svc.embedder.id);
    const state = (await engine.state('harbour'))!;
    // Nothing changed since the snapshot it started from: nothing to write, unless asked.
    expect(await engine.saveSnapshot(state)).toBe(false);
    await push(Array.from({ length: DOCS }, (_, i) => doc(i, 2)));
    await engine.state('harbour'); // caught up: the same copy, changed
    // Changed, but its last snapshot is younger than the interval: written only when asked to.
    expect(await engine.saveSnapshot(state)).toBe(false);
    expect(await engine.saveSnapshot(state, true)).toBe(true);
    const again = await startFrom(dir);
    expect(again.lines).toContain('index loaded from its snapshot');
    expect(again.result).toEqual(await answers(engine));
    expect(again.result).toEqual(await answers(writer));
  }, 180_000);

  it.each([
    ['a flipped byte in the middle', (b: Buffer) => { b[Math.floor(b.length / 2)] ^= 0xff; return b; }, 'index snapshot unreadable; loading from the store'],
    ['cut short (a crash while writing it in place)', (b: Buffer) => b.subarray(0, Math.floor(b.length * 0.6)), 'index snapshot unreadable; loading from the store'],
    ['of another format version', (b: Buffer) => { b.writeUInt32LE(SNAPSHOT_FORMAT + 1, 8); return b; }, 'index snapshot unreadable; loading from the store'],
    ['not a snapshot at all', () => Buffer.from('{"hello":"world"}'), 'index snapshot unreadable; loading from the store'],
  ])('a snapshot %s is not trusted: the index is loaded from the store, answers unchanged', async (_name, damage, message) => {
    const { dir, file } = await writtenSnapshot();
    writeFileSync(file, damage(readFileSync(file)));
    const started = await startFrom(dir);
    expect(started.lines).toContain(message);
    expect(started.lines).not.toContain('index loaded from its snapshot');
    expect(started.result).toEqual(await fromStore());
  }, 120_000);

  it('a crash while writing leaves the previous snapshot whole, and its temporary file is cleared', async () => {
    const { dir, file } = await writtenSnapshot();
    // What a process killed mid-write leaves: a partial temporary file beside the intact snapshot (pid 2^22+1 is not running).
    const leftover = `${file}.${2 ** 22 + 1}.1.tmp`;
    writeFileSync(leftover, readFileSync(file).subarray(0, 1000));
    const started = await startFrom(dir);
    expect(started.lines).toContain('index loaded from its snapshot');
    expect(started.result).toEqual(await fromStore());
    expect(readdirSync(dir)).toEqual([file.slice(dir.length + 1)]);
  }, 120_000);

  it('a snapshot older than the pruned change feed is caught up from the store, not from the feed', async () => {
    const { dir } = await writtenSnapshot();
    await push(Array.from({ length: DOCS }, (_, i) => doc(i, 3)));
    expect(await svc.storage.sections.pruneChanges(0)).toBeGreaterThan(0);
    const started = await startFrom(dir);
    expect(started.lines).toContain('index loaded from its snapshot');
    expect(started.result).toEqual(await fromStore());
  }, 180_000);

  it('a snapshot of an earlier definition of the index is not read', async () => {
    const { dir } = await writtenSnapshot();
    const schema = { fields: { title: { type: 'text' }, content: { type: 'html' }, source_url: { type: 'string' }, last_modified: { type: 'date' } } };
    const define = async (language: string) => {
      expect((await svc.call('POST', '/v1/content/indexes', { uid: 'harbour', language_code: language, schema })).status).toBeLessThan(300);
      expect(await waitFor(async () => (await svc.call('GET', '/v2/indexes/harbour/status')).body.pending === 0, 60_000)).toBe(true);
    };
    await define('fr');
    const started = await startFrom(dir);
    expect(started.lines).toContain('index snapshot is of another definition or store; loading from the store');
    expect(started.result).toEqual(await fromStore());
    await define('en');
  }, 120_000);

  it('an index half made of replaced documents is loaded afresh in the background, and its next snapshot is the live part', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quarry-snapshots-'));
    const { log, lines } = recordingLog();
    const engine = new ContentEngine(withSnapshots(dir), svc.embedder.id, undefined, log);
    for (let round = 10; round < 14; round++) {
      await push(Array.from({ length: DOCS }, (_, i) => doc(i, round)));
      await engine.state('harbour');
    }
    const before = (await engine.state('harbour'))!;
    expect(before.unitCount).toBeGreaterThanOrEqual(2 * before.inverted.liveUnits);
    await engine.warmAll();
    expect(lines).toContain('index loaded afresh to drop the units of replaced documents');
    const after = (await engine.state('harbour'))!;
    expect(after).not.toBe(before);
    expect(after.unitCount).toBe(after.inverted.liveUnits);
    expect(await answers(engine)).toEqual(await fromStore());
  }, 180_000);

  it('under QUARRY_ENGINE_MEMORY_MB, indexes load on first search and the least used are dropped, to come back from their snapshots', async () => {
    expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'quay' })).status).toBe(201);
    expect((await svc.call('POST', '/v2/indexes/quay/documents', { documents: [{ uid: 'q1', title: 'Quay', content: '<p>Ferry timetable</p>' }] })).status).toBe(200);
    expect(await waitFor(async () => (await svc.call('GET', '/v2/indexes/quay/status')).body.indexed === 1, 60_000)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'quarry-snapshots-'));
    const { log, lines } = recordingLog();
    // A budget of one byte: only the index searched last stays.
    const engine = new ContentEngine(withSnapshots(dir), svc.embedder.id, undefined, log, 1);
    await engine.warmAll();
    expect(engine.loadedIndexes()).toEqual([]);
    const reference = await fromStore();
    expect(await answers(engine)).toEqual(reference);
    expect(engine.loadedIndexes()).toEqual(['harbour']);
    expect(engine.heldBytes()).toBeGreaterThan(0);
    await new ContentSearch(engine).search({ index_uid: 'quay', query: 'ferry', boosting: 'content', filter: '', fields: [], limit: 5, tie: 0 });
    expect(engine.loadedIndexes().sort()).toEqual(['harbour', 'quay']);
    await engine.warmAll();
    expect(engine.loadedIndexes()).toEqual(['quay']);
    expect(lines).toContain('index unloaded to stay within QUARRY_ENGINE_MEMORY_MB');
    expect(await answers(engine)).toEqual(reference);
    expect(lines).toContain('index loaded from its snapshot');
  }, 180_000);
  it('a copy built from the store is replaced by the snapshot it writes (views of the file), answering the same before and after changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quarry-snapshots-'));
    const { log: recording, lines } = recordingLog();
    const replaced: string[] = [];
    const log: EngineLog = {
      info: (o, msg) => {
        if (msg === 'index built from the store replaced by its snapshot') replaced.push((o as { index: string }).index);
        recording.info(o, msg);
      },
      warn: recording.warn,
    };
    // Every copy counts as large here (by default only those of 20,000 units and more are replaced).
    const engine = new ContentEngine(withSnapshots(dir), svc.embedder.id, undefined, log, null, { largeIndexUnits: 0 });
    // The reference is built from the store as well and follows the same feed: the same order of units.
    const built = new ContentEngine(withSnapshots(null), svc.embedder.id);
    const reference = await answers(built);
    engine.startFollowing((err) => { throw err; }, 20);
    try {
      expect(await waitFor(async () => replaced.includes('harbour'), 60_000)).toBe(true);
      expect(lines).toContain('index snapshot written');
      expect(await answers(engine)).toEqual(reference);
      // Published after the replacement: the replaced copy follows the feed like any other.
      await push(Array.from({ length: DOCS / 3 }, (_, i) => doc(i * 3 + 1, 5)));
      expect((await svc.call('DELETE', '/v2/indexes/harbour/documents/d9')).status).toBeLessThan(300);
      expect(await waitFor(async () => {
        const s = (await svc.call('GET', '/v2/indexes/harbour/status')).body;
        return s.pending === 0 && s.pending_deletes === 0;
      }, 60_000)).toBe(true);
      expect(await answers(engine)).toEqual(await answers(built));
      // Replaced once: later snapshots of the replaced copy do not replace it again.
      expect(replaced.filter((uid) => uid === 'harbour'), lines.join('\n')).toHaveLength(1);
    } finally {
      await engine.stopFollowing();
    }
  }, 180_000);

  it('the first snapshot of a copy built from the store waits while searches keep the process busy, and is written once they pause', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quarry-snapshots-'));
    const { log, lines } = recordingLog();
    const engine = new ContentEngine(withSnapshots(dir), svc.embedder.id, undefined, log, null, { largeIndexUnits: 0 });
    const reference = await fromStore();
    // The follower's first pass and the first search load the same copy; searches then follow one another.
    engine.startFollowing((err) => { throw err; }, 20);
    try {
      const until = performance.now() + 1500;
      let searched = 0;
      while (performance.now() < until) {
        expect(await answers(engine)).toEqual(reference);
        searched++;
        // A turn of the event loop between searches, as between requests: the follower's timer gets its turns.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(searched).toBeGreaterThan(1);
      expect(lines).not.toContain('index snapshot written');
      expect(await waitFor(async () => lines.includes('index built from the store replaced by its snapshot'), 30_000), lines.join('\n')).toBe(true);
      expect(readdirSync(dir).length).toBeGreaterThan(0);
      expect(await answers(engine)).toEqual(reference);
    } finally {
      await engine.stopFollowing();
    }
  }, 180_000);
});
