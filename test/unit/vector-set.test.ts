import { describe, expect, it } from 'vitest';
import { SnapshotReader, SnapshotWriter } from '../../shared/search/snapshot/snapshot-codec.js';
import { ANN_MIN_VECTORS, VectorSet, type VectorSetSnapshot } from '../../shared/search/vectors/vector-set.js';
import { prng } from '../helpers/prng.js';

const DIMS = 32;

/** Vectors around `topics` random directions, as embeddings of texts on a few hundred topics are. */
function clustered(n: number, topics: number, seed: number) {
  const rnd = prng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() || 1e-9)) * Math.cos(2 * Math.PI * rnd());
  const centers = Array.from({ length: topics }, () => Float32Array.from({ length: DIMS }, gauss));
  return Array.from({ length: n }, () => {
    const c = centers[Math.floor(rnd() * topics)];
    return Float32Array.from(c, (x) => x + 0.6 * gauss());
  });
}

function exactTop(vectors: (Float32Array | null)[], q: Float32Array, k: number): number[] {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  const qn = norm(q);
  return vectors
    .map((v, u) => ({ u, s: v ? v.reduce((a, x, i) => a + x * q[i], 0) / (norm(v) * qn) : -Infinity }))
    .filter((x) => x.s > -Infinity)
    .sort((a, b) => b.s - a.s || a.u - b.u)
    .slice(0, k)
    .map((x) => x.u);
}

describe('VectorSet', () => {
  it('searches small sets exactly, by cosine, and forgets deleted units', () => {
    const set = new VectorSet();
    const vectors = clustered(500, 10, 1);
    vectors.forEach((v, u) => set.set(u, v));
    set.delete(7);
    const q = vectors[7];
    const got = set.top(q, 10).map((x) => x.unit);
    expect(got).toEqual(exactTop(vectors.map((v, u) => (u === 7 ? null : v)), q, 10));
    expect(set.top(q, 3)[0].score).toBeLessThanOrEqual(1);
    expect(set.top(new Float32Array(DIMS + 1), 3)).toEqual([]);
  });

  it('keeps recall@50 above 0.9 once the inverted-file index takes over, including vectors added and deleted after training', () => {
    const n = ANN_MIN_VECTORS + 10_000;
    const vectors: (Float32Array | null)[] = clustered(n + 2000, 300, 2);
    const set = new VectorSet();
    for (let u = 0; u < n; u++) set.set(u, vectors[u]!);
    const queries = clustered(40, 300, 3).map((v, i) => (i % 2 ? v : vectors[i * 97]!));
    set.top(queries[0], 50); // trains
    for (let u = n; u < n + 2000; u++) set.set(u, vectors[u]!);
    for (let u = 0; u < 2000; u += 2) {
      set.delete(u);
      vectors[u] = null;
    }
    let found = 0;
    for (const q of queries) {
      const exact = new Set(exactTop(vectors, q, 50));
      found += set.top(q, 50).filter((x) => exact.has(x.unit)).length;
    }
    expect(found / (queries.length * 50)).toBeGreaterThan(0.9);
  });

  it('finds a unit by its new vector, not its old one, when it is set again after training', () => {
    const n = ANN_MIN_VECTORS + 1000;
    const vectors = clustered(n, 50, 4);
    const set = new VectorSet();
    vectors.forEach((v, u) => set.set(u, v));
    set.top(vectors[0], 10); // trains
    const moved = 5;
    const old = vectors[moved];
    set.set(moved, vectors[n - 1]);
    const atOld = set.top(old, 10).map((x) => x.unit);
    expect(atOld).not.toContain(moved);
    const atNew = set.top(vectors[n - 1], 2);
    expect(atNew.map((x) => x.unit).sort((a, b) => a - b)).toEqual([moved, n - 1]);
    expect(atNew[0].score).toBeCloseTo(1, 6);
    // Each unit appears once, though the moved one has a stale copy in its old list.
    const all = set.top(vectors[n - 1], 200).map((x) => x.unit);
    expect(new Set(all).size).toBe(all.length);
  });

  it('retrains from its lists when it has doubled, and answers exactly once it has shrunk below the ANN size', () => {
    const n = ANN_MIN_VECTORS;
    const vectors: (Float32Array | null)[] = clustered(3 * n, 200, 5);
    const set = new VectorSet();
    for (let u = 0; u < n; u++) set.set(u, vectors[u]!);
    set.top(vectors[0]!, 10); // trains on n vectors
    // Deleted then set again with another vector: found once, by the new one.
    set.delete(3);
    set.set(3, vectors[n + 1]!);
    vectors[3] = vectors[n + 1];
    for (let u = n; u < 3 * n; u++) set.set(u, vectors[u]!);
    const queries = clustered(30, 200, 6);
    let found = 0;
    for (const q of queries) {
      const got = set.top(q, 50).map((x) => x.unit); // the first of these retrains, from the lists
      expect(new Set(got).size).toBe(got.length);
      const exact = new Set(exactTop(vectors, q, 50));
      found += got.filter((u) => exact.has(u)).length;
    }
    expect(found / (queries.length * 50)).toBeGreaterThan(0.9);
    expect(set.top(vectors[n + 1]!, 2).map((x) => x.unit).sort((a, b) => a - b)).toEqual([3, n + 1]);
    // Shrink below the ANN size: every list is scanned, so results are exact again.
    for (let u = 100; u < 3 * n; u++) {
      set.delete(u);
      vectors[u] = null;
    }
    for (const q of queries.slice(0, 5)) expect(set.top(q, 10).map((x) => x.unit)).toEqual(exactTop(vectors, q, 10));
  });

  it('reads a number of vectors per query that grows with the root of the set, not with the set, at the same recall', () => {
    // What a query reads is what `allow` is asked about: every live vector of the lists it scans.
    const read = (n: number) => {
      const vectors = clustered(n, 400, 9);
      const set = new VectorSet();
      vectors.forEach((v, u) => set.set(u, v));
      set.prepare();
      let asked = 0;
      let found = 0;
      const queries = clustered(20, 400, 10);
      for (const q of queries) {
        const got = set.top(q, 10, () => (asked++, true)).map((x) => x.unit);
        const exact = new Set(exactTop(vectors, q, 10));
        found += got.filter((u) => exact.has(u)).length;
      }
      return { perQuery: asked / queries.length, recall: found / (queries.length * 10) };
    };
    const small = read(16_000);
    const large = read(64_000);
    // 4x the vectors: about 2x the reading (a flat share of a fixed number of lists read 3.3x).
    expect(large.perQuery / small.perQuery).toBeLessThan(2.6);
    expect(large.perQuery).toBeLessThan(64_000 * 0.15);
    expect(large.recall).toBeGreaterThan(0.9);
  });

  it('trains in the background in short steps, never inside a query, and keeps what changed meanwhile', async () => {
    const n = ANN_MIN_VECTORS + 6000;
    const vectors: (Float32Array | null)[] = clustered(n + 1000, 200, 5);
    const set = new VectorSet({ trainOnQuery: false });
    for (let u = 0; u < n; u++) set.set(u, vectors[u]!);
    const q = vectors[123]!;
    // Exact, up to float32 rounding among near-ties.
    const exactly = (k: number) => {
      const want = new Set(exactTop(vectors, q, k));
      return set.top(q, k).filter((x) => want.has(x.unit)).length;
    };
    // Due, but a query does not train: it scans every vector (exact).
    expect(set.trainingDue()).toBe(true);
    expect(exactly(20)).toBeGreaterThanOrEqual(19);
    expect(set.trainingDue()).toBe(true);

    let pauses = 0;
    const training = set.trainInSteps(async () => {
      pauses++;
      // Between steps: queries are answered and vectors come and go.
      if (pauses === 3) {
        expect(exactly(20)).toBeGreaterThanOrEqual(19);
        for (let u = n; u < n + 1000; u++) set.set(u, vectors[u]!);
        for (let u = 0; u < 1000; u += 2) {
          set.delete(u);
          vectors[u] = null;
        }
      }
      await new Promise((r) => setImmediate(r));
    });
    await training;
    // Many steps, not one block: every vector is given its list a few hundred at a time.
    expect(pauses).toBeGreaterThan(n / 1000);
    expect(set.trainingDue()).toBe(false);
    // The vectors added during the training are found, the deleted ones are not.
    for (const u of [n + 10, n + 500, n + 999]) expect(set.top(vectors[u]!, 1)[0].unit).toBe(u);
    const hits = new Set(set.top(vectors[1]!, 200).map((x) => x.unit));
    for (let u = 0; u < 1000; u += 2) expect(hits.has(u)).toBe(false);
  });

  it('retrains while vectors are deleted between the steps that gather its lists\' vectors, and forgets them', async () => {
    const n = 12_000;
    const vectors: (Float32Array | null)[] = clustered(2 * n + 1000, 200, 9);
    const set = new VectorSet({ trainOnQuery: false });
    for (let u = 0; u < n; u++) set.set(u, vectors[u]!);
    set.prepare();
    for (let u = n; u < vectors.length; u++) set.set(u, vectors[u]!);
    expect(set.trainingDue()).toBe(true);
    let pauses = 0;
    await set.trainInSteps(async () => {
      // The first pause comes while the retraining is still gathering the vectors, after the units already found.
      if (pauses++ === 0) {
        for (let u = 0; u < 2000; u += 2) {
          set.delete(u);
          vectors[u] = null;
        }
      }
    });
    expect(set.trainingDue()).toBe(false);
    const hits = new Set(set.top(vectors[1]!, 200).map((x) => x.unit));
    for (let u = 0; u < 2000; u += 2) expect(hits.has(u)).toBe(false);
    expect(set.top(vectors[n + 7]!, 1)[0].unit).toBe(n + 7);
  });

  it('trains again on the whole set once it settles, ending with the lists a training on the whole set gives', async () => {
    const n = 3 * ANN_MIN_VECTORS;
    const vectors = clustered(n, 150, 9);
    const pause = () => new Promise<void>((r) => setImmediate(r));
    const once = new VectorSet({ trainOnQuery: false });
    vectors.forEach((v, u) => once.set(u, v));
    once.prepare();
    // Streaming in: trained at 4,000 and again at twice that; 12,000 is not twice 8,001.
    const streamed = new VectorSet({ trainOnQuery: false });
    for (let u = 0; u < n; u++) {
      streamed.set(u, vectors[u]);
      if (u % 1000 === 999) await streamed.trainInSteps(pause);
    }
    expect(streamed.trainingDue()).toBe(false);
    expect(streamed.trainingDue(true)).toBe(true);
    await streamed.trainInSteps(pause, true);
    for (const q of clustered(20, 150, 10)) expect(streamed.top(q, 20)).toEqual(once.top(q, 20));
  });

  it('scans int8 codes, then scores the best candidates again from the float vectors: the units and scores of the float scan, bit for bit', () => {
    const n = ANN_MIN_VECTORS + 1000;
    const vectors: (Float32Array | null)[] = clustered(n, 100, 21);
    const set = new VectorSet();
    vectors.forEach((v, u) => set.set(u, v!));
    set.prepare();
    // Below the ANN size again: every list is scanned, so the answer is the exact float scan's.
    for (let u = 0; u < 1200; u++) {
      set.delete(u);
      vectors[u] = null;
    }
    // As the set computes it: unit-normalised in single precision, products in double, summed in order.
    const normalised = (v: Float32Array) => {
      let norm = 0;
      for (const x of v) norm += x * x;
      return Float32Array.from(v, (x) => x / (Math.sqrt(norm) || 1));
    };
    const rows = vectors.map((v) => v && normalised(v));
    for (const q of clustered(30, 100, 22)) {
      const qd = Float64Array.from(normalised(q));
      const exact = rows
        .map((v, u) => ({ unit: u, score: v ? v.reduce((d, x, i) => d + x * qd[i], 0) : -Infinity }))
        .filter((x) => x.score > -Infinity)
        .sort((a, b) => b.score - a.score || a.unit - b.unit)
        .slice(0, 50);
      expect(set.top(q, 50)).toEqual(exact);
    }
  });

  it('answers off the event loop (topAsync) exactly as top does, and survives changes made while it waits', async () => {
    const vectors = clustered(ANN_MIN_VECTORS * 2, 60, 31);
    // Every scan handed to a thread, however small (a server does so from OFF_THREAD_MIN_ROWS rows).
    const set = new VectorSet({ offThreadMinRows: 0 });
    vectors.forEach((v, u) => set.set(u, v));
    set.prepare();
    const queries = clustered(40, 60, 32);
    for (const q of queries) expect(await set.topAsync(q, 50)).toEqual(set.top(q, 50));
    const allow = (u: number) => u % 3 !== 0;
    expect(await set.topAsync(queries[0], 20, allow)).toEqual(set.top(queries[0], 20, allow));
    // Units deleted, set again and added while the products are computed: no error, no deleted unit, and
    // every score is the unit's current one.
    const pending = queries.slice(0, 10).map((q) => set.topAsync(q, 50));
    for (let u = 0; u < 300; u++) set.delete(u);
    for (let u = 300; u < 400; u++) set.set(u, vectors[u + 1000]);
    for (let u = vectors.length; u < vectors.length + 200; u++) set.set(u, vectors[u - vectors.length]);
    for (const hits of await Promise.all(pending)) {
      expect(hits.length).toBe(50);
      for (const h of hits) expect(h.unit).toBeGreaterThanOrEqual(300);
    }
    for (const q of queries.slice(10)) expect(await set.topAsync(q, 50)).toEqual(set.top(q, 50));
  });

  it('restores a snapshot written before the int8 codes (computing them) with the same answers', async () => {
    const vectors = clustered(ANN_MIN_VECTORS + 500, 100, 23);
    const set = new VectorSet();
    vectors.forEach((v, u) => set.set(u, v));
    set.prepare();
    const pause = async () => {};
    const w = new SnapshotWriter();
    const head = set.snapshot(w)!;
    // As an older engine wrote it: lists without codes and scales.
    const old = { ...head, ivf: { ...head.ivf!, lists: head.ivf!.lists.map(({ units, vectors: v }) => ({ units, vectors: v })) } };
    for (const body of [head, old]) {
      const r = await SnapshotReader.open(Buffer.concat(await w.encode(1, body, pause)), 1, pause);
      const restored = VectorSet.restore(r, r.body as VectorSetSnapshot, {});
      // Completed on restore: the engine writes such a snapshot again rather than redo this at every start.
      expect(restored.completedOnRestore).toBe(body === old);
      for (const q of clustered(10, 100, 24)) expect(restored.top(q, 20)).toEqual(set.top(q, 20));
    }
  });
});
