import { describe, expect, it } from 'vitest';
import { topUnits } from '../../shared/search/rank/top-units.js';

describe('topUnits', () => {
  it('matches a full sort for random scores, ties by lower id', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rand() * 300);
      const scores = new Float64Array(n);
      for (let i = 0; i < n; i++) scores[i] = Math.floor(rand() * 20); // many ties
      const units = Array.from({ length: n }, (_, i) => i).sort(() => rand() - 0.5);
      const k = 1 + Math.floor(rand() * 40);
      const expected = [...units].sort((a, b) => scores[b] - scores[a] || a - b).slice(0, k);
      expect(topUnits(units, scores, k)).toEqual(expected);
      // Unordered: the same units, in whatever order.
      expect(topUnits(units, scores, k, false).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    }
  });
});
