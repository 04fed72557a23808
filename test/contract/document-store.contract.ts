import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeMetadata, hashWithMetadata, type DocumentMetadata } from '../../shared/documents/document-metadata.js';
import { encodeFields } from '../../shared/documents/fields-hash.js';
import type { DocumentWrite } from '../../shared/storage/ports/document-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const FIELDS = { title: { type: 'text' as const } };

/** A put (fields given) or a delete (null) of `uid`. */
function write(indexId: number, uid: string, fields: Record<string, unknown> | null, job = 'job-1'): DocumentWrite {
  if (fields === null) return { indexId, uid, fields: null, hash: null, job };
  return { indexId, uid, ...encodeFields(fields), job };
}

/** A put carrying metadata, hashed as the push service hashes it. */
function writeWithMetadata(indexId: number, uid: string, fields: Record<string, unknown>, metadata: DocumentMetadata): DocumentWrite {
  const encoded = encodeFields(fields);
  const json = encodeMetadata(uid, metadata);
  return { indexId, uid, ...encoded, hash: hashWithMetadata(encoded.hash, json), metadata: json, job: 'job-1' };
}

const PRICE: DocumentMetadata = [
  { selector: '.price', matches: [{ type: 'tag', tag: 'span', attr: { class: 'price' }, children: [{ type: 'text', data: '9 €' }] }] },
  { selector: '.stock', matches: [] },
];

export function documentStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: document store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;
    let index: number;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
      index = (await s.indexes.upsert('docs', 'en', FIELDS)).index.id;
    });
    afterEach(() => h.cleanup());

    it('gives each accepted write a higher version, in batch order, and stores the latest', async () => {
      const out = await s.documents.applyWrites([write(index, 'b', { title: 'B' }), write(index, 'a', { title: 'A' })]);
      expect(out.map((o) => o.uid)).toEqual(['b', 'a']);
      expect(out[1].version!).toBeGreaterThan(out[0].version!);
      const [again] = await s.documents.applyWrites([write(index, 'a', { title: 'A2' }, 'job-2')]);
      expect(again.version!).toBeGreaterThan(out[1].version!);
      expect(await s.documents.get(index, 'a')).toEqual({ uid: 'a', version: again.version, fields: { title: 'A2' }, status: 'pending', error: null });
      expect(await s.documents.get(index, 'zz')).toBeNull();
      expect(await s.documents.applyWrites([])).toEqual([]);
    });

    it('changes nothing for an identical re-push or a delete of an absent document', async () => {
      const [first] = await s.documents.applyWrites([write(index, 'a', { title: 'A' })]);
      const out = await s.documents.applyWrites([write(index, 'a', { title: 'A' }), write(index, 'ghost', null)]);
      expect(out).toEqual([{ uid: 'a', version: null }, { uid: 'ghost', version: null }]);
      expect((await s.documents.get(index, 'a'))!.version).toBe(first.version);
      expect(await s.documents.get(index, 'ghost')).toBeNull();
      const [del] = await s.documents.applyWrites([write(index, 'a', null)]);
      expect(del.version!).toBeGreaterThan(first.version!);
      expect(await s.documents.get(index, 'a')).toMatchObject({ version: del.version, fields: null, status: 'pending' });
      expect(await s.documents.applyWrites([write(index, 'a', null)])).toEqual([{ uid: 'a', version: null }]);
    });

    it('accepts an identical re-push of a failed document (the retry)', async () => {
      const [a] = await s.documents.applyWrites([write(index, 'a', { title: 'A' })]);
      await s.documents.markFailed(index, [{ uid: 'a', version: a.version! }], 'boom');
      expect(await s.documents.get(index, 'a')).toMatchObject({ status: 'failed', error: 'boom' });
      const [retry] = await s.documents.applyWrites([write(index, 'a', { title: 'A' })]);
      expect(retry.version!).toBeGreaterThan(a.version!);
      expect(await s.documents.get(index, 'a')).toMatchObject({ status: 'pending', error: null });
    });

    it('applies a batch naming a uid twice in order: the later write wins', async () => {
      const out = await s.documents.applyWrites([
        write(index, 'x', { title: 'one' }), write(index, 'x', { title: 'one' }), write(index, 'y', null),
        write(index, 'y', { title: 'Y' }), write(index, 'x', { title: 'two' }), write(index, 'y', null),
      ]);
      expect(out.map((o) => o.version === null)).toEqual([false, true, true, false, false, false]);
      expect(out[4].version!).toBeGreaterThan(out[0].version!);
      expect(out[5].version!).toBeGreaterThan(out[3].version!);
      expect(await s.documents.get(index, 'x')).toMatchObject({ version: out[4].version, fields: { title: 'two' } });
      expect(await s.documents.get(index, 'y')).toMatchObject({ version: out[5].version, fields: null });
    });

    it('lists documents by uid after a cursor, without pending deletes, and reads fields in bulk', async () => {
      await s.documents.applyWrites(['d', 'b', 'a', 'c', 'B'].map((u) => write(index, u, { title: u })));
      await s.documents.applyWrites([write(index, 'c', null)]);
      expect((await s.documents.list(index, 10, null)).map((d) => d.uid)).toEqual(['B', 'a', 'b', 'd']);
      expect(await s.documents.list(index, 2, 'a')).toEqual([{ uid: 'b', fields: { title: 'b' } }, { uid: 'd', fields: { title: 'd' } }]);
      const fields = await s.documents.fields(index, ['a', 'c', 'nope']);
      expect([...fields.entries()]).toEqual([['a', { title: 'a' }]]);
    });

    it('keeps metadata with the version that carried it: stored, replaced, cleared and removed with the document', async () => {
      const [a] = await s.documents.applyWrites([
        writeWithMetadata(index, 'a', { title: 'A' }, PRICE), write(index, 'plain', { title: 'P' }),
      ]);
      expect([...(await s.documents.metadata(index, ['a', 'plain', 'nope'])).entries()]).toEqual([['a', PRICE]]);
      expect([...(await s.documents.withMetadata(index, ['a', 'plain', 'nope']))]).toEqual(['a']);
      expect(await s.documents.metadata(index, [])).toEqual(new Map());
      expect(await s.documents.withMetadata(index, [])).toEqual(new Set());

      // Same fields and fragments: nothing changes. Same fields, new fragments: a new version.
      expect(await s.documents.applyWrites([writeWithMetadata(index, 'a', { title: 'A' }, PRICE)])).toEqual([{ uid: 'a', version: null }]);
      const cheaper: DocumentMetadata = [{ selector: '.price', matches: [{ type: 'text', data: '5 €' }] }];
      const [a2] = await s.documents.applyWrites([writeWithMetadata(index, 'a', { title: 'A' }, cheaper)]);
      expect(a2.version!).toBeGreaterThan(a.version!);
      expect((await s.documents.metadata(index, ['a'])).get('a')).toEqual(cheaper);

      // A version written without metadata has none.
      const [a3] = await s.documents.applyWrites([write(index, 'a', { title: 'A' })]);
      expect(a3.version!).toBeGreaterThan(a2.version!);
      expect((await s.documents.metadata(index, ['a'])).size).toBe(0);
      expect((await s.documents.withMetadata(index, ['a'])).size).toBe(0);

      await s.documents.applyWrites([writeWithMetadata(index, 'a', { title: 'A' }, PRICE)]);
      expect((await s.documents.withMetadata(index, ['a'])).has('a')).toBe(true);
      const [del] = await s.documents.applyWrites([write(index, 'a', null)]);
      expect((await s.documents.metadata(index, ['a'])).size).toBe(0);
      expect((await s.documents.withMetadata(index, ['a'])).size).toBe(0);
      await s.documents.markPublished(index, [], [{ uid: 'a', version: del.version! }]);
      expect(await s.documents.get(index, 'a')).toBeNull();
      expect((await s.documents.metadata(index, ['a'])).size).toBe(0);
    });

    it('tells which refs are still the latest accepted write, in the order asked', async () => {
      const [a, b] = await s.documents.applyWrites([write(index, 'a', { title: 'A' }), write(index, 'b', { title: 'B' })]);
      const [b2] = await s.documents.applyWrites([write(index, 'b', null)]);
      const refs = [{ uid: 'b', version: b.version! }, { uid: 'b', version: b2.version! }, { uid: 'a', version: a.version! }];
      expect(await s.documents.currentRefs(index, refs)).toEqual([refs[1], refs[2]]);
      await s.documents.markPublished(index, [refs[2]], []);
      expect(await s.documents.currentRefs(index, [refs[2]])).toEqual([refs[2]]);
    });

    it('lets a job claim its own pending documents and the oldest unclaimed ones, up to its batch', async () => {
      const out = await s.documents.applyWrites([
        write(index, 'a', { title: 'A' }, 'w1'), write(index, 'b', { title: 'B' }, 'w2'), write(index, 'c', null, 'w2'),
        write(index, 'd', { title: 'D' }, 'w3'), write(index, 'e', { title: 'E' }, 'w3'),
      ]);
      const [c] = await s.documents.applyWrites([write(index, 'c', { title: 'C' }, 'w2')]);
      const [cDel] = await s.documents.applyWrites([write(index, 'c', null, 'w2')]);
      const v = (uid: string) => out.find((o) => o.uid === uid)!.version!;
      // w3 runs first: its own two, then the oldest unclaimed one (a), three in all.
      const first = await s.documents.claimPending(index, 'w3', 3);
      expect(first).toEqual([
        { uid: 'a', version: v('a'), fields: { title: 'A' } }, { uid: 'd', version: v('d'), fields: { title: 'D' } },
        { uid: 'e', version: v('e'), fields: { title: 'E' } },
      ]);
      expect((await s.documents.get(index, 'a'))).toMatchObject({ status: 'pending' });
      expect((await s.documents.pendingOfJob(index, 'w3', 10)).map((r) => r.uid).sort()).toEqual(['a', 'd', 'e']);
      // w1's document went to w3: w1 takes what is left (w2's, a delete as fields null), and w2 finds nothing.
      expect(await s.documents.claimPending(index, 'w1', 10)).toEqual([
        { uid: 'b', version: v('b'), fields: { title: 'B' } }, { uid: 'c', version: cDel.version, fields: null },
      ]);
      expect(await s.documents.claimPending(index, 'w2', 10)).toEqual([]);
      expect(cDel.version!).toBeGreaterThan(c.version!);
      // Claimed documents stay with their job: another takes none of them, their own job all of them
      // (a retried attempt), even past its limit.
      expect(await s.documents.claimPending(index, 'w9', 10)).toEqual([]);
      expect((await s.documents.claimPending(index, 'w3', 1)).map((d) => d.uid)).toEqual(['a', 'd', 'e']);
      // A new write of a claimed document is unclaimed again: the next job takes the new version.
      const [d2] = await s.documents.applyWrites([write(index, 'd', { title: 'D2' }, 'w4')]);
      expect(await s.documents.claimPending(index, 'w5', 10)).toEqual([{ uid: 'd', version: d2.version, fields: { title: 'D2' } }]);
      expect((await s.documents.claimPending(index, 'w3', 10)).map((d) => d.uid)).toEqual(['a', 'e']);
      // Published or failed documents are no one's to claim.
      await s.documents.markPublished(index, [{ uid: 'a', version: v('a') }], []);
      await s.documents.markFailed(index, [{ uid: 'e', version: v('e') }], 'boom');
      expect(await s.documents.claimPending(index, 'w3', 10)).toEqual([]);
      expect(await s.documents.claimPending(index, 'w9', 0)).toEqual([]);
    });

    it('keeps reassigned documents for their new job, and leaves requeued ones to any job', async () => {
      const out = await s.documents.applyWrites(['a', 'b'].map((u) => write(index, u, { title: u }, 'w1')));
      await s.documents.reassignJob(index, [{ uid: 'a', version: out[0].version! }], 'r1');
      expect((await s.documents.claimPending(index, 'other', 10)).map((d) => d.uid)).toEqual(['b']);
      expect((await s.documents.claimPending(index, 'r1', 10)).map((d) => d.uid)).toEqual(['a']);
      await s.documents.markPublished(index, out.map((o) => ({ uid: o.uid, version: o.version! })), []);
      await s.documents.requeueIndex(index, () => 're-0', 10);
      expect((await s.documents.claimPending(index, 'any', 10)).map((d) => d.uid)).toEqual(['a', 'b']);
      expect(await s.documents.claimPending(index, 're-0', 10)).toEqual([]);
    });

    it('never gives one document to two jobs claiming at once from two hosts', async () => {
      const other = await h.open();
      const uids = Array.from({ length: 60 }, (_, i) => `u${i}`);
      await s.documents.applyWrites(uids.map((u) => write(index, u, { u }, 'w')));
      const claims = await Promise.all(Array.from({ length: 8 }, (_, j) => (j % 2 ? other : s).documents.claimPending(index, `job${j}`, 10)));
      const taken = claims.flat().map((d) => d.uid);
      expect(new Set(taken).size).toBe(taken.length);
      for (const [j, docs] of claims.entries()) {
        expect((await s.documents.pendingOfJob(index, `job${j}`, 100)).map((r) => r.uid).sort()).toEqual(docs.map((d) => d.uid).sort());
      }
    });

    it('marks versions published, forgets removed deletes, and ignores stale refs', async () => {
      const [a, b] = await s.documents.applyWrites([write(index, 'a', { title: 'A' }), write(index, 'b', { title: 'B' })]);
      const [a2] = await s.documents.applyWrites([write(index, 'a', { title: 'A2' })]);
      const [b2] = await s.documents.applyWrites([write(index, 'b', null)]);
      await s.documents.markPublished(index, [{ uid: 'a', version: a.version! }], [{ uid: 'b', version: b.version! }]);
      expect(await s.documents.get(index, 'a')).toMatchObject({ version: a2.version, status: 'pending' });
      expect(await s.documents.get(index, 'b')).toMatchObject({ version: b2.version, status: 'pending' });
      await s.documents.markPublished(index, [{ uid: 'a', version: a2.version! }], [{ uid: 'b', version: b2.version! }]);
      expect(await s.documents.get(index, 'a')).toMatchObject({ status: 'indexed', error: null });
      expect(await s.documents.get(index, 'b')).toBeNull();
      await s.documents.markPublished(index, [], []);
    });

    it('reports progress and the latest failure', async () => {
      const out = await s.documents.applyWrites(['a', 'b', 'c', 'd'].map((u) => write(index, u, { title: u })));
      const ref = (i: number) => ({ uid: out[i].uid, version: out[i].version! });
      await s.documents.markPublished(index, [ref(0), ref(1)], []);
      await s.documents.markFailed(index, [ref(2)], 'bad html');
      const [del] = await s.documents.applyWrites([write(index, 'a', null)]);
      const p = await s.documents.progress(index);
      expect(p).toMatchObject({ documents: 3, indexed: 1, pending: 1, pending_deletes: 1, failed: 1 });
      expect(p.last_error).toMatchObject({ uid: 'c', message: 'bad html' });
      expect(Date.parse(p.last_error!.at)).toBeGreaterThan(0);
      expect(del.version).not.toBeNull();
      const other = (await s.indexes.upsert('other', 'en', FIELDS)).index.id;
      expect(await s.documents.progress(other)).toEqual({ documents: 0, indexed: 0, pending: 0, pending_deletes: 0, failed: 0, last_error: null });
    });

    it('finds pending jobs and moves documents between jobs', async () => {
      const out = await s.documents.applyWrites([write(index, 'a', { t: 1 }, 'j1'), write(index, 'b', { t: 2 }, 'j1'), write(index, 'c', { t: 3 }, 'j2')]);
      const jobs = await s.documents.pendingJobs(Date.now() + 1000, 10);
      expect(jobs.filter((j) => j.indexId === index).map((j) => j.job).sort()).toEqual(['j1', 'j2']);
      expect(await s.documents.pendingJobs(0, 10)).toEqual([]);
      const ofJ1 = await s.documents.pendingOfJob(index, 'j1', 10);
      expect(ofJ1.map((r) => r.uid).sort()).toEqual(['a', 'b']);
      await s.documents.reassignJob(index, [{ uid: 'a', version: out[0].version! }, { uid: 'b', version: -1 }], 'j3');
      expect((await s.documents.pendingOfJob(index, 'j3', 10)).map((r) => r.uid)).toEqual(['a']);
      expect((await s.documents.pendingOfJob(index, 'j1', 10)).map((r) => r.uid)).toEqual(['b']);
      expect(await s.documents.pendingOfJob(index, null, 10)).toEqual([]);
      expect(await s.documents.pendingOfJob(index, 'j1', 0)).toEqual([]);
    });

    it('requeues every document of an index under new versions, in uid batches', async () => {
      const out = await s.documents.applyWrites(['c', 'a', 'b'].map((u) => write(index, u, { title: u })));
      await s.documents.markPublished(index, out.map((o) => ({ uid: o.uid, version: o.version! })), []);
      const before = Math.max(...out.map((o) => o.version!));
      const batches = await s.documents.requeueIndex(index, (n) => `re-${n}`, 2);
      expect(batches.map((b) => [b.job, b.refs.map((r) => r.uid)])).toEqual([['re-0', ['a', 'b']], ['re-1', ['c']]]);
      for (const r of batches.flatMap((b) => b.refs)) {
        expect(r.version).toBeGreaterThan(before);
        expect(await s.documents.get(index, r.uid)).toMatchObject({ version: r.version, status: 'pending' });
      }
      expect((await s.documents.pendingOfJob(index, 're-1', 10)).map((r) => r.uid)).toEqual(['c']);
      expect(await s.documents.requeueIndex((await s.indexes.upsert('empty', 'en', FIELDS)).index.id, () => 'x', 10)).toEqual([]);
    });

    it('lets the last accepted write win across two hosts writing one document at once', async () => {
      const other = await h.open();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? other : s).documents.applyWrites([write(index, 'hot', { n: i })]).then(([o]) => ({ n: i, version: o.version! }))));
      const versions = results.map((r) => r.version);
      expect(new Set(versions).size).toBe(20);
      const winner = results.find((r) => r.version === Math.max(...versions))!;
      for (const reader of [s, other]) {
        expect(await reader.documents.get(index, 'hot')).toMatchObject({ version: winner.version, fields: { n: winner.n } });
      }
    });

    it('runs overlapping batches from two hosts without deadlock; each document keeps its newest write', async () => {
      const other = await h.open();
      const uids = Array.from({ length: 30 }, (_, i) => `u${i}`);
      const batches = Array.from({ length: 12 }, (_, b) => {
        const order = b % 2 ? [...uids].reverse() : uids.slice(b).concat(uids.slice(0, b));
        return order.map((u) => write(index, u, { u, b }));
      });
      const outs = await Promise.all(batches.map((w, b) => (b % 2 ? other : s).documents.applyWrites(w)));
      const newest = new Map<string, { version: number; b: number }>();
      outs.forEach((out, b) => out.forEach((o) => {
        if (o.version !== null && o.version > (newest.get(o.uid)?.version ?? 0)) newest.set(o.uid, { version: o.version, b });
      }));
      for (const uid of uids) {
        const n = newest.get(uid)!;
        expect(await s.documents.get(index, uid)).toMatchObject({ version: n.version, fields: { u: uid, b: n.b } });
      }
    });
  });
}
