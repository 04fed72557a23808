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

  it('selects the same units from many candidates (the selection path), whatever the order and ties', () => {
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let trial = 0; trial < 60; trial++) {
      const n = 2048 + Math.floor(rand() * 8000);
      const scores = new Float64Array(n + 5);
      const shape = trial % 4;
      for (let i = 0; i < scores.length; i++) {
        // Random, rising with the id, falling with it, and a few values only (ties across the k-th score).
        scores[i] = shape === 0 ? rand() : shape === 1 ? i + rand() : shape === 2 ? -i : Math.floor(rand() * 5);
      }
      const units = Array.from({ length: n }, (_, i) => i + 5);
      if (trial % 3 === 0) units.sort(() => rand() - 0.5);
      const k = 32 + Math.floor(rand() * 400);
      const expected = [...units].sort((a, b) => scores[b] - scores[a] || a - b).slice(0, k);
      expect(topUnits(Int32Array.from(units), scores, k)).toEqual(expected);
      expect(topUnits(Int32Array.from(units), scores, k, false).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    }
  });

  it('answers as the heap does when a score is NaN (it never enters a full heap)', () => {
    const n = 4096;
    const scores = Float64Array.from({ length: n }, (_, i) => (i * 7919) % n);
    scores[100] = NaN;
    const units = Int32Array.from({ length: n }, (_, i) => i);
    const expected = [...units].filter((u) => u !== 100).sort((a, b) => scores[b] - scores[a] || a - b).slice(0, 64);
    expect(topUnits(units, scores, 64)).toEqual(expected);
  });
});
