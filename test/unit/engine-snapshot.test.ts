// Snapshots of the engine's structures: a restored copy answers exactly as the original, before and
// after both change further, and a snapshot is what the structure was when it was taken.
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { IndexState } from '../../shared/search/engine/index-state.js';
import { BLOCK_SHIFT, InvertedIndex } from '../../shared/search/rank/inverted-index.js';
import { LENGTH_OF_CODE } from '../../shared/search/rank/lucene-length.js';
import { scoreDisMaxDense } from '../../shared/search/rank/dismax.js';
import { topUnits } from '../../shared/search/rank/top-units.js';
import { SnapshotFormatError, SnapshotReader, SnapshotWriter } from '../../shared/search/snapshot/snapshot-codec.js';
import { MemoryVectorIndex } from '../../shared/search/vectors/memory-vector-index.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import type { SectionView } from '../../shared/storage/ports/section-store.js';

const noPause = async () => {};
const WORDS = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}`);

function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const index: IndexRecord = {
  id: 1, uid: 'ix', languageCode: 'en', updatedAt: 1,
  fields: { title: { type: 'text' }, body: { type: 'text' }, tag: { type: 'string' } },
} as unknown as IndexRecord;

function sections(uid: string, rand: () => number, version: number): SectionView[] {
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * rand() * WORDS.length)]).join(' ');
  return Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, ord) => ({
    id: 0, uid, version, ord, field: 'body', title: ord ? words(2) : '', anchor: null, text: words(20 + Math.floor(rand() * 40)), vector: null, vectorModel: null,
  }));
}

function fill(state: IndexState, from: number, to: number, seed: number, version = 1) {
  const rand = rng(seed);
  for (let i = from; i < to; i++) {
    const uid = `d${i}`;
    state.setDocument(uid, sections(uid, rand, version), { title: `t ${WORDS[i % WORDS.length]}`, body: 'x', tag: `g${i % 5}` }, i % 7 === 0);
  }
}

/** What a query sees of a state: every query's scores, documents, terms and filter values. */
function look(state: IndexState) {
  const out: unknown[] = [];
  for (let q = 0; q < 40; q++) {
    const terms = [WORDS[q], WORDS[(q * 17) % WORDS.length], WORDS[(q * 5 + 3) % 50]];
    const { units, scores } = scoreDisMaxDense(state.inverted, terms, { fields: [{ field: 'body', boost: 1 }, { field: 'title', boost: 2 }], tie: 0.1, topK: 10 });
    out.push(topUnits(units, scores, 10).map((u) => [state.uidOf(u), scores[u], state.unitRef(u)]));
  }
  for (const uid of ['d0', 'd5', 'd49', 'd77', 'd150']) {
    out.push([uid, state.hasDocument(uid), state.unitsOf(uid), state.termsOf(uid, 'body'), state.termsOf(uid, 'title'), state.fieldValue(uid, 'tag'), state.fieldValue(uid, 'title'), state.hasMetadata(uid)]);
  }
  out.push(state.documentCount, state.unitCount, [...state.documents()].slice(0, 20), state.pages.df('body', WORDS[1]), state.pages.pages);
  return out;
}

async function roundTrip<T>(take: (w: SnapshotWriter) => T | Promise<T>, then?: () => void): Promise<{ r: SnapshotReader; body: T }> {
  const w = new SnapshotWriter();
  const body = await take(w);
  then?.();
  const bytes = Buffer.concat(await w.encode(7, body, noPause));
  const r = await SnapshotReader.open(bytes, 7, noPause);
  return { r, body: r.body as T };
}

describe('engine snapshots, structure by structure', () => {
  it('an index state restores to the same answers, and both take the same changes alike', async () => {
    const a = new IndexState(index);
    fill(a, 0, 200, 1);
    fill(a, 40, 60, 2, 2); // rewritten documents leave dead units behind
    a.setDocument('d5', [], null);
    a.seq = 99;
    const { r, body } = await roundTrip((w) => a.snapshot(w, noPause));
    const b = IndexState.restore(index, r, body);
    expect(b.seq).toBe(99);
    expect(look(b)).toEqual(look(a));
    // Growth past the restored (exact-size, file-backed) arrays, and removals, on both.
    for (const s of [a, b]) {
      fill(s, 150, 400, 3, 3);
      s.setDocument('d77', [], null);
    }
    expect(look(b)).toEqual(look(a));
  });

  it('is the state as it was when taken, whatever changes after, before its bytes are written', async () => {
    const a = new IndexState(index);
    fill(a, 0, 200, 4);
    const before = look(a);
    const { r, body } = await roundTrip((w) => a.snapshot(w, noPause), () => {
      for (let i = 0; i < 200; i += 3) a.setDocument(`d${i}`, [], null);
      fill(a, 200, 300, 5);
    });
    expect(look(IndexState.restore(index, r, body))).toEqual(before);
  });

  it('vectors restore with their trained lists and answer the same, before and after more change', async () => {
    const rand = rng(9);
    const vector = () => Float32Array.from({ length: 16 }, () => rand() - 0.5);
    const a = new MemoryVectorIndex();
    for (let i = 0; i < 6000; i++) await a.upsert('ix', [{ uid: `d${i}`, version: 1, ord: 0, vector: vector() }]);
    a.prepare('ix'); // IVF lists trained (from 4,000 vectors on)
    await a.deleteOlder('ix', [{ uid: 'd3', version: 2 }]);
    const queries = Array.from({ length: 20 }, vector);
    const { r, body } = await roundTrip((w) => a.snapshot('ix', w));
    const b = new MemoryVectorIndex();
    b.restore('ix', r, body);
    const answers = async (m: MemoryVectorIndex) => [await Promise.all(queries.map((q) => m.search('ix', q, 10))), await m.versions('ix', null, 50), m.count('ix')];
    expect(await answers(b)).toEqual(await answers(a));
    for (const m of [a, b]) {
      const more = rng(10);
      for (let i = 6000; i < 7000; i++) await m.upsert('ix', [{ uid: `d${i}`, version: 1, ord: 0, vector: Float32Array.from({ length: 16 }, () => more() - 0.5) }]);
      await m.deleteOlder('ix', [{ uid: 'd10', version: 5 }, { uid: 'd6500', version: 5 }]);
    }
    expect(await answers(b)).toEqual(await answers(a));
  });

  it('a damaged vector chain or document number (read before the checksum is known) ends in an error, not a loop', async () => {
    const a = new MemoryVectorIndex();
    for (let i = 0; i < 50; i++) await a.upsert('ix', [{ uid: `d${i}`, version: 1, ord: 0, vector: Float32Array.from({ length: 4 }, (_, k) => i + k) }, { uid: `d${i}`, version: 1, ord: 1, vector: Float32Array.from({ length: 4 }, (_, k) => i - k) }]);
    const { r, body } = await roundTrip((w) => a.snapshot('ix', w));
    const chains = r.blob((body as { nextSlot: number }).nextSlot, 'i32');
    chains.fill(0); // every chain runs into slot 0, which points at itself
    expect(() => new MemoryVectorIndex().restore('ix', r, body)).toThrow(SnapshotFormatError);

    const state = new IndexState(index);
    fill(state, 0, 3, 4);
    const taken = await roundTrip((w) => state.snapshot(w, noPause));
    taken.r.blob(taken.body.docNumbers.values, 'i32')[0] = 1_000_000;
    expect(() => IndexState.restore(index, taken.r, taken.body)).toThrow(SnapshotFormatError);
  });

  it('keeps term frequencies in two bytes until one passes 65,535, then four, in memory and in snapshots', async () => {
    const index = new InvertedIndex();
    index.add({ f: ['a', 'a', 'b'] });
    expect(index.postings('f', 'a')!.freqs).toBeInstanceOf(Uint16Array);
    index.add({ f: Array.from({ length: 70_000 }, () => 'a') });
    index.add({ f: ['a'] });
    const freqs = (ix: InvertedIndex) => [...ix.postings('f', 'a')!.freqs.subarray(0, 3)];
    expect(freqs(index)).toEqual([2, 70_000, 1]);
    const { r, body } = await roundTrip((w) => index.snapshot(w, noPause));
    const restored = InvertedIndex.restore(r, body);
    expect(freqs(restored)).toEqual([2, 70_000, 1]);
    expect([...restored.postings('f', 'b')!.freqs.subarray(0, 1)]).toEqual([1]);
  });

  it('keeps per-block score bounds only for lists past one block, the same bounds in memory and after a snapshot', async () => {
    // Unit i holds term t(n) for every list length n > i, with a frequency and a length that vary.
    const lengths = [1, 127, 128, 129, 300];
    const build = (from: number, to: number, ix = new InvertedIndex()) => {
      for (let i = from; i < to; i++) {
        const f: string[] = [];
        for (const n of lengths) if (i < n) f.push(...Array.from({ length: 1 + ((i * 7 + n) % 5) }, () => `t${n}`));
        f.push(...Array.from({ length: (i * 13) % 11 }, () => 'pad'));
        ix.add({ f });
      }
      return ix;
    };
    // What each block of a list holds: its highest frequency and shortest length.
    const expected = (ix: InvertedIndex, term: string) => {
      const list = ix.postings('f', term)!;
      const lengthsOf = ix.fieldLengths('f')!;
      const maxFreq: number[] = [];
      const minLength: number[] = [];
      for (let p = 0; p < list.length; p++) {
        const blk = p >> BLOCK_SHIFT;
        const len = LENGTH_OF_CODE[lengthsOf[list.units[p]]];
        maxFreq[blk] = Math.max(maxFreq[blk] ?? 0, list.freqs[p]);
        minLength[blk] = Math.min(minLength[blk] ?? Infinity, len);
      }
      return { maxFreq, minLength };
    };
    const bounds = (ix: InvertedIndex, term: string) => {
      const list = ix.postings('f', term)!;
      const b = list.blockBounds();
      const blocks = (list.length + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
      return { maxFreq: [...b.maxFreq.subarray(0, blocks)], minLength: [...b.minLength.subarray(0, blocks)] };
    };
    const whole = build(0, 300);
    for (const n of lengths) {
      expect(bounds(whole, `t${n}`), `t${n}`).toEqual(expected(whole, `t${n}`));
      expect(!whole.postings('f', `t${n}`)!.hasBlockBounds, `t${n}`).toBe(n <= 128);
    }
    // Half, a snapshot, the other half onto the restored copy: the same bounds as built in one go.
    const half = build(0, 128);
    const { r, body } = await roundTrip((w) => half.snapshot(w, noPause));
    const restored = build(128, 300, InvertedIndex.restore(r, body));
    for (const n of lengths) expect(bounds(restored, `t${n}`), `t${n}`).toEqual(expected(whole, `t${n}`));
  });

  it('refuses a snapshot of another format, a damaged one and a truncated one', async () => {
    const w = new SnapshotWriter();
    w.add(Int32Array.from([1, 2, 3]));
    const bytes = Buffer.concat(await w.encode(3, { n: 1 }, noPause));
    expect((await SnapshotReader.open(bytes, 3, noPause)).blob(0, 'i32')).toEqual(Int32Array.from([1, 2, 3]));
    await expect(SnapshotReader.open(bytes, 4, noPause)).rejects.toThrow(SnapshotFormatError);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 2] ^= 1;
    await expect(SnapshotReader.open(flipped, 3, noPause)).rejects.toThrow(/checksum/);
    await expect(SnapshotReader.open(bytes.subarray(0, 30), 3, noPause)).rejects.toThrow(SnapshotFormatError);
    const r = await SnapshotReader.open(bytes, 3, noPause);
    expect(() => r.blob(0, 'f64')).toThrow(SnapshotFormatError);
    expect(() => r.blob(5, 'i32')).toThrow(SnapshotFormatError);
    // The header has a checksum of its own, checked before anything is read from it.
    const header = Buffer.from(bytes);
    header[30] ^= 1;
    await expect(SnapshotReader.open(header, 3, noPause)).rejects.toThrow(/header checksum/);
  });

  it('with the checksum computed elsewhere, opens at once and settles `verified` when it comes: rejected on a mismatch', async () => {
    const w = new SnapshotWriter();
    w.add(Int32Array.from([4, 5, 6]));
    const bytes = Buffer.concat(await w.encode(3, { n: 1 }, noPause));
    const right = crc32(bytes.subarray(SnapshotReader.CHECKSUM_FROM));
    const good = await SnapshotReader.open(bytes, 3, noPause, Promise.resolve(right));
    await expect(good.verified).resolves.toBeUndefined();
    expect(good.blob(0, 'i32')).toEqual(Int32Array.from([4, 5, 6]));
    let tell: (crc: number) => void = () => {};
    const pending = await SnapshotReader.open(bytes, 3, noPause, new Promise<number>((resolve) => (tell = resolve)));
    const outcome = pending.verified.then(() => 'verified', (e: unknown) => String(e));
    tell(right ^ 1);
    expect(await outcome).toMatch(/checksum mismatch/);
    // Without one, the bytes are checksummed in the open itself.
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 2] ^= 1;
    await expect(SnapshotReader.open(flipped, 3, noPause)).rejects.toThrow(/checksum mismatch/);
    const late = await SnapshotReader.open(flipped, 3, noPause, Promise.resolve(crc32(flipped.subarray(SnapshotReader.CHECKSUM_FROM))));
    await expect(late.verified).rejects.toThrow(/checksum mismatch/);
  });
});
