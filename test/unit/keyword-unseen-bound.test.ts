import { describe, expect, it } from 'vitest';
import { unseenBound } from '../../shared/storage/qdrant/qdrant-keyword-index.js';
import { prng } from '../helpers/prng.js';

/** DisMax of one section: per term, (1 - tie) · its best field + tie · all its fields. */
const disMax = (s: number[][], tie: number) => s.reduce((total, row) => total + (1 - tie) * Math.max(0, ...row) + tie * row.reduce((a, b) => a + b, 0), 0);

describe('the bound on a section the keyword leg on Qdrant did not fetch', () => {
  it('is never below the DisMax of a section within the caps and the per-term maxima, and never above the caps\' sum', () => {
    const rnd = prng(21);
    for (let trial = 0; trial < 5000; trial++) {
      const fields = 1 + Math.floor(rnd() * 3);
      const terms = 1 + Math.floor(rnd() * 4);
      const tie = [0, 1, rnd()][trial % 3];
      // A section no field returned: in a full field its terms sum to at most the cap; in a field that
      // returned everything it matches, it scores nothing.
      const full = Array.from({ length: fields }, () => rnd() < 0.8);
      const s = Array.from({ length: terms }, () => Array.from({ length: fields }, (_, f) => (full[f] && rnd() < 0.7 ? rnd() * 3 : 0)));
      const caps = full.map((isFull, f) => (isFull ? s.reduce((a, row) => a + row[f], 0) + rnd() * rnd() * 2 : 0));
      const maxima = s.flatMap((row) => row.map((x) => x + (rnd() < 0.5 ? 0 : rnd() * 2)));
      const bound = unseenBound(caps, maxima, terms, tie);
      expect(bound).toBeGreaterThanOrEqual(disMax(s, tie) - 1e-9);
      expect(bound).toBeLessThanOrEqual(caps.reduce((a, b) => a + b, 0) + 1e-9);
    }
  });

  it('is tighter than the caps\' sum when no term reaches a cap', () => {
    // Two terms, title and body: each term's best anywhere is 1 in either field, the fields' tenth sums are 3 and 4.
    expect(unseenBound([3, 4], [1, 1, 1, 1], 2, 0)).toBe(2);
    expect(unseenBound([3, 4], [1, 1, 1, 1], 2, 0.5)).toBe(3);
    expect(unseenBound([0.5, 0], [1, 1, 1, 1], 2, 0)).toBe(0.5);
  });
});
