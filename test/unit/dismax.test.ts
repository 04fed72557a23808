import { describe, expect, it } from 'vitest';
import { scoreDisMax, scoreDisMaxDense, topK } from '../../shared/search/rank/dismax.js';
import { SCORE_ALL_MAX } from '../../shared/search/rank/top-dismax.js';
import { InvertedIndex } from '../../shared/search/rank/inverted-index.js';
import { topUnits } from '../../shared/search/rank/top-units.js';

const docs = [
  { title: ['cat'], body: ['cat', 'sat', 'mat'] },
  { title: ['dog'], body: ['dog', 'chased', 'cat', 'cat'] },
  { title: ['bird'], body: ['bird', 'flew'] },
];

/** Lucene 8 BM25 for one field, written out independently of the implementation. */
function bm25(tf: number, df: number, n: number, dl: number, avgdl: number, k1 = 1.2, b = 0.75) {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return (idf * tf) / (tf + k1 * (1 - b + (b * dl) / avgdl));
}

describe('DisMax over BM25', () => {
  const index = new InvertedIndex();
  const units = docs.map((d) => index.add(d));

  it('scores a term by its best field when tie is 0, and sums fields when tie is 1', () => {
    const fields = [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }];
    const title0 = 2 * bm25(1, 1, 3, 1, 1);
    const body0 = bm25(1, 2, 3, 3, 3);
    const max = scoreDisMax(index, ['cat'], { fields, tie: 0 });
    expect(max.get(units[0])).toBeCloseTo(Math.max(title0, body0), 10);
    const sum = scoreDisMax(index, ['cat'], { fields, tie: 1 });
    expect(sum.get(units[0])).toBeCloseTo(title0 + body0, 10);
    expect(max.get(units[1])).toBeCloseTo(bm25(2, 2, 3, 4, 3), 10);
    expect(max.has(units[2])).toBe(false);
  });

  it('sums terms, counts a repeated query term again (as Lucene does), and honours k1/b', () => {
    const fields = [{ field: 'body', boost: 1 }];
    const s = scoreDisMax(index, ['dog', 'cat', 'cat'], { fields, bm25: { k1: 0.9, b: 0.4 } });
    expect(s.get(units[1])).toBeCloseTo(bm25(1, 1, 3, 4, 3, 0.9, 0.4) + 2 * bm25(2, 2, 3, 4, 3, 0.9, 0.4), 10);
  });

  it('uses Lucene\'s one-byte field lengths past 23 tokens', () => {
    const idx = new InvertedIndex();
    const long = Array.from({ length: 100 }, (_, i) => (i === 0 ? 'x' : `w${i}`));
    const u = idx.add({ body: long });
    idx.add({ body: ['y'] });
    const s = scoreDisMax(idx, ['x'], { fields: [{ field: 'body', boost: 1 }] });
    expect(s.get(u)).toBeCloseTo(bm25(1, 1, 2, 96, 101 / 2), 10);
  });

  it('removal updates df, lengths and liveness; filters restrict units', () => {
    const idx = new InvertedIndex();
    const a = idx.add({ body: ['x', 'y'] });
    const b = idx.add({ body: ['x'] });
    idx.remove(a, { body: ['x', 'y'] });
    const s = scoreDisMax(idx, ['x'], { fields: [{ field: 'body', boost: 1 }] });
    expect([...s.keys()]).toEqual([b]);
    expect(s.get(b)).toBeCloseTo(bm25(1, 1, 1, 1, 1), 10);
    const none = scoreDisMax(idx, ['x'], { fields: [{ field: 'body', boost: 1 }], allow: (u) => u !== b });
    expect(none.size).toBe(0);
  });

  it('topK orders by score, then unit', () => {
    expect(topK(new Map([[3, 1], [1, 2], [2, 1]]), 2)).toEqual([[1, 2], [2, 1]]);
  });

  describe('pruned to the top k', () => {
    // A seeded Zipf corpus: a few very common words and a long tail, in two fields, with deletions.
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const word = () => `w${Math.floor(1 / (rand() * 0.999 + 0.001)) - 1}`;
    const idx = new InvertedIndex();
    const added: { unit: number; terms: Record<string, string[]> }[] = [];
    for (let d = 0; d < 3000; d++) {
      const terms = { title: Array.from({ length: 1 + Math.floor(rand() * 4) }, word), body: Array.from({ length: 5 + Math.floor(rand() * 60) }, word) };
      added.push({ unit: idx.add(terms), terms });
    }
    for (let d = 0; d < 3000; d += 7) idx.remove(added[d].unit, added[d].terms);
    const fields = [{ field: 'title', boost: 2 }, { field: 'body', boost: 1 }];
    const top = (terms: string[], k: number, extra: { tie?: number; allow?: (u: number) => boolean; topK?: number; bm25?: { k1: number; b: number } }) => {
      const { units, scores } = scoreDisMaxDense(idx, terms, { fields, ...extra });
      return { ids: topUnits(units, scores, k), scores: topUnits(units, scores, k).map((u) => scores[u]), matched: units.length };
    };

    it('finds exactly the top k of the full scoring, with the same scores, while scoring fewer units', () => {
      let pruned = 0;
      // Queries of few postings score them all (scoreAll), the others walk with bounds: both are checked.
      let walked = 0;
      for (let q = 0; q < 300; q++) {
        // Up to 8 terms (16 lists): windows with many essential lists add them up term at a time.
        const terms = Array.from({ length: 1 + (q % 8) }, word);
        const postings = terms.reduce((n, t) => n + fields.reduce((m, { field }) => m + (idx.postings(field, t)?.length ?? 0), 0), 0);
        if (postings > SCORE_ALL_MAX) walked++;
        const k = [1, 10, 50][q % 3];
        const tie = q % 5 === 0 ? 0.3 : 0;
        const allow = q % 7 === 0 ? (u: number) => u % 2 === 0 : undefined;
        const bm25 = [undefined, { k1: 0.9, b: 0.4 }, { k1: 2, b: 1 }, { k1: 1.2, b: 0 }][q % 4];
        const full = top(terms, k, { tie, allow, bm25 });
        const fast = top(terms, k, { tie, allow, bm25, topK: k });
        // Summed in the same order: the same bits, so the same units (ties go to the lower unit).
        expect(fast.scores).toEqual(full.scores);
        expect(fast.ids).toEqual(full.ids);
        if (fast.matched < full.matched) pruned++;
      }
      // Common-plus-rare queries are what pruning is for: it must have cut most multi-term ones.
      expect(pruned).toBeGreaterThan(100);
      expect(walked).toBeGreaterThan(50);
    });

    it('with documentOf keeps the best k documents, each by its best unit (ties: the lower unit), as full scoring ranks them', () => {
      // Documents of 1 to 5 consecutive units: several sections of one page often match together.
      const docOf = new Int32Array(3000);
      for (let u = 0, d = 0; u < 3000; d++) for (let n = 1 + (d % 5); n > 0 && u < 3000; n--) docOf[u++] = d;
      const documentOf = (u: number) => docOf[u];
      let walked = 0;
      for (let q = 0; q < 300; q++) {
        const terms = Array.from({ length: 1 + (q % 6) }, word);
        const postings = terms.reduce((n, t) => n + fields.reduce((m, { field }) => m + (idx.postings(field, t)?.length ?? 0), 0), 0);
        if (postings > SCORE_ALL_MAX) walked++;
        const k = [1, 10, 40][q % 3];
        const tie = q % 5 === 0 ? 0.3 : 0;
        const allow = q % 7 === 0 ? (u: number) => u % 3 !== 0 : undefined;
        // Reference: every match scored, units best first (ties: lower unit), each document's first, the first k documents.
        const full = scoreDisMaxDense(idx, terms, { fields, tie, allow });
        const seen = new Set<number>();
        const want: number[] = [];
        for (const u of topUnits(full.units, full.scores, full.units.length)) {
          if (seen.has(docOf[u])) continue;
          seen.add(docOf[u]);
          want.push(u);
        }
        const expected = want.slice(0, k);
        const wantScores = expected.map((u) => full.scores[u]);
        const fast = scoreDisMaxDense(idx, terms, { fields, tie, allow, topK: k, documentOf });
        const got = topUnits(fast.units, fast.scores, k);
        expect(got).toEqual(expected);
        expect(got.map((u) => fast.scores[u])).toEqual(wantScores);
      }
      expect(walked).toBeGreaterThan(50);
    });

    it('scores every posting of a query of few postings and keeps the same top k (scoreAll)', () => {
      let all = 0;
      for (let q = 0; q < 200; q++) {
        // Words of the tail: lists of a few to a few hundred postings.
        const terms = Array.from({ length: 1 + (q % 4) }, () => `w${5 + Math.floor(rand() * 200)}`);
        const postings = terms.reduce((n, t) => n + fields.reduce((m, { field }) => m + (idx.postings(field, t)?.length ?? 0), 0), 0);
        if (postings <= SCORE_ALL_MAX) all++;
        const k = [1, 10, 50][q % 3];
        const tie = q % 5 === 0 ? 0.3 : 0;
        const allow = q % 7 === 0 ? (u: number) => u % 2 === 0 : undefined;
        const full = top(terms, k, { tie, allow });
        const fast = top(terms, k, { tie, allow, topK: k });
        expect(fast.scores).toEqual(full.scores);
        expect(fast.ids).toEqual(full.ids);
      }
      expect(all).toBeGreaterThan(150);
    });

    it('skips the blocks of a list that cannot lift a new unit into the top k, though the list as a whole could (block-max)', () => {
      // 'b' is in a fifth of the units, once, except in a few short units where it repeats: its list's
      // bound is high (those few), above the scores of the long units with the rarer 'a', so the whole
      // list could lift a unit into the top 10; but nearly every block of 128 postings holds only single matches.
      const big = new InvertedIndex();
      for (let u = 0; u < 60_000; u++) {
        const filler = (n: number) => Array.from({ length: n }, (_, i) => `f${(u + i) % 50}`);
        if (u % 10_000 === 5) big.add({ body: Array(15).fill('b') });
        else if (u % 50 === 1) big.add({ body: [...filler(60), 'a'] });
        else big.add({ body: [...filler(20), ...(u % 5 === 0 ? ['b'] : [])] });
      }
      const run = (topK?: number) => {
        let asked = 0;
        const allow = () => (asked++, true);
        const { units, scores } = scoreDisMaxDense(big, ['a', 'b'], { fields: [{ field: 'body', boost: 1 }], topK, allow });
        const ids = topUnits(units, scores, 10);
        return { ids, scores: ids.map((u) => scores[u]), asked };
      };
      const full = run();
      const pruned = run(10);
      expect(pruned.ids).toEqual(full.ids);
      pruned.scores.forEach((s, i) => expect(s).toBeCloseTo(full.scores[i], 9));
      // The whole of 'b' (12,000 postings) and 'a' (1,200) without pruning; 'a', its 1,200 units looked up in
      // 'b', and the few blocks of 'b' with a repeated match with it.
      expect(full.asked).toBeGreaterThan(13_000);
      expect(pruned.asked).toBeLessThan(full.asked * 0.4);
    });

    it('walks even the first term\'s long lists only where a floor from the shortest list\'s units leaves a unit a chance', () => {
      // Two common words, each in many long bodies and a few short titles: the top 10 hold both in the
      // title. Before any floor the rarer word's body list (24,000 postings) was walked whole.
      const big = new InvertedIndex();
      const filler = (u: number, n: number) => Array.from({ length: n }, (_, i) => `f${(u + i) % 50}`);
      for (let u = 0; u < 60_000; u++) {
        const title = [...filler(u, 3), ...(u % 100 === 0 ? ['x'] : []), ...(u % 20 === 0 ? ['y'] : [])];
        const body = [...filler(u, 80), ...(u % 5 < 2 ? ['x'] : []), ...(u % 5 < 4 ? ['y'] : [])];
        big.add({ title, body });
      }
      const run = (topK?: number) => {
        let asked = 0;
        const allow = () => (asked++, true);
        const { units, scores } = scoreDisMaxDense(big, ['x', 'y'], { fields: [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }], topK, allow });
        const ids = topUnits(units, scores, 10);
        return { ids, scores: ids.map((u) => scores[u]), asked };
      };
      const full = run();
      const pruned = run(10);
      expect(pruned.ids).toEqual(full.ids);
      expect(pruned.ids.every((u) => u % 100 === 0)).toBe(true);
      pruned.scores.forEach((s, i) => expect(s).toBeCloseTo(full.scores[i], 9));
      expect(pruned.asked).toBeLessThan(full.asked * 0.1);
    });

    it('looks the common terms up for the candidates only: the work does not grow with their posting lists', () => {
      const spent = (n: number) => {
        const big = new InvertedIndex();
        for (let u = 0; u < n; u++) big.add({ body: u % 100 === 0 ? ['common', 'rare'] : ['common', `x${u % 50}`] });
        let steps = 0;
        const { units, scores } = scoreDisMaxDense(big, ['common', 'rare'], { fields: [{ field: 'body', boost: 1 }], topK: 10, budget: { spend: (k) => (steps += k) } });
        const top = topUnits(units, scores, 10);
        // Every unit with the rare term outranks the rest, and they are found.
        expect(top.every((u) => u % 100 === 0)).toBe(true);
        return steps;
      };
      // The work follows the rare term's list (n / 100 postings: seeded, then walked where not seeded whole);
      // the common one's (n postings) is only probed. At 20,000 the rare list is seeded whole and nothing is left to walk.
      for (const n of [20_000, 200_000]) expect(spent(n)).toBeLessThan(2 * (n / 100) + 64);
    });
  });
});
