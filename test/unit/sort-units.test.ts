import { describe, expect, it } from 'vitest';
import { sortUnits } from '../../shared/search/rank/sort-units.js';

function random(n: number, max: number, seed: number): Int32Array {
  let a = seed >>> 0;
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    out[i] = a % (max + 1);
  }
  return out;
}

describe('sortUnits', () => {
  it.each([
    [0, 10], [1, 0], [4095, 1_000_000], [4096, 0], [4096, 2047], [4097, 2048], [20_000, 1_000_000],
    [50_000, 4_194_303], [50_000, 4_194_304], [30_000, 2 ** 31 - 1],
  ])('sorts %i units of ids up to %i as the comparison sort does, in place', (n, max) => {
    const units = random(n, max, n + max);
    const expected = Int32Array.from(units).sort();
    const sorted = sortUnits(units);
    expect(sorted).toBe(units);
    expect(Array.from(sorted)).toEqual(Array.from(expected));
  });

  it('keeps duplicates and sorted input', () => {
    const units = Int32Array.from({ length: 10_000 }, (_, i) => i >> 2);
    expect(Array.from(sortUnits(Int32Array.from(units).reverse()))).toEqual(Array.from(units));
  });
});
