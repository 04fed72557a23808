import { describe, expect, it } from 'vitest';
import { seek } from '../../shared/search/rank/seek.js';
import { prng } from '../helpers/prng.js';

/** What seek must return, by a plain scan. */
function scan(postings: Int32Array, length: number, from: number, unit: number): number {
  let i = from;
  while (i < length && postings[i] < unit) i++;
  return i;
}

describe('seek (from an interpolated guess: galloping, then binary search)', () => {
  it('finds the first posting at or past a unit as a scan does, in even, clustered and skewed lists', () => {
    const rand = prng(7);
    const shapes: Array<(n: number) => Int32Array> = [
      // evenly spread, every unit, a few units
      (n) => Int32Array.from({ length: n }, (_, i) => i * 3 + (i % 2)),
      (n) => Int32Array.from({ length: n }, (_, i) => i),
      // clustered: dense runs far apart (long gallops across the gaps)
      (n) => Int32Array.from({ length: n }, (_, i) => Math.floor(i / 50) * 100_000 + (i % 50)),
      // skewed: squares, and one outlier at the end
      (n) => Int32Array.from({ length: n }, (_, i) => i * i),
      (n) => Int32Array.from({ length: n }, (_, i) => (i === n - 1 ? 2_000_000_000 : i * 2)),
    ];
    let checked = 0;
    for (const shape of shapes) {
      for (const n of [1, 2, 3, 17, 1000, 20_000]) {
        const postings = shape(n);
        const top = postings[n - 1] + 5;
        for (let t = 0; t < 400; t++) {
          const from = Math.floor(rand() * (n + 1));
          const unit = Math.floor(rand() * (top + 2)) - 1;
          // Only part of the array may be the list (the pools hand out regions).
          const length = rand() < 0.2 ? Math.floor(rand() * (n + 1)) : n;
          expect(seek(postings, length, Math.min(from, length), unit)).toBe(scan(postings, length, Math.min(from, length), unit));
          checked++;
        }
        // Every unit of the list and its neighbours, from the start.
        for (let i = 0; i < Math.min(n, 300); i++) {
          for (const d of [-1, 0, 1]) expect(seek(postings, n, 0, postings[i] + d)).toBe(scan(postings, n, 0, postings[i] + d));
        }
      }
    }
    expect(checked).toBe(shapes.length * 6 * 400);
  });
});
