import { describe, expect, it } from 'vitest';
import { sortInSteps } from '../../shared/search/vectors/sort-in-steps.js';
import { prng } from '../helpers/prng.js';

describe('sortInSteps', () => {
  it('gives the order Array.prototype.sort gives (stable, ties included), yielding as it goes', () => {
    const rand = prng(5);
    for (const n of [0, 1, 2, 3, 7, 100, 1000, 30_001]) {
      const keys = Array.from({ length: n }, () => Math.floor(rand() * (n / 3 + 1)));
      const compare = (a: number, b: number) => keys[a] - keys[b];
      const expected = Array.from(keys.keys()).sort(compare);
      const got = Int32Array.from(keys.keys());
      let yields = 0;
      const steps = sortInSteps(got, compare, 500);
      while (!steps.next().done) yields++;
      expect(Array.from(got)).toEqual(expected);
      if (n >= 1000) expect(yields).toBeGreaterThan(n / 500);
    }
  });
});
