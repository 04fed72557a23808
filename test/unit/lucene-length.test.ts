import { describe, expect, it } from 'vitest';
import { LENGTH_OF_CODE, lengthCode, luceneLength } from '../../shared/search/rank/lucene-length.js';

describe('length codes', () => {
  it('give back every length luceneLength returns, in one byte', () => {
    const seen = new Set<number>();
    for (let n = 0; n < 5_000_000; n = n < 2000 ? n + 1 : Math.ceil(n * 1.001)) {
      const length = luceneLength(n);
      const code = lengthCode(length);
      expect(code).toBeGreaterThanOrEqual(0);
      expect(code).toBeLessThan(256);
      expect(LENGTH_OF_CODE[code]).toBe(length);
      seen.add(code);
    }
    expect(luceneLength(2 ** 31 - 1)).toBe(LENGTH_OF_CODE[lengthCode(luceneLength(2 ** 31 - 1))]);
    // Exact below 24, then four significant bits: far fewer codes than lengths.
    expect(seen.size).toBeGreaterThan(100);
  });

  it('are ordered as the lengths are', () => {
    for (let c = 1; c < 256; c++) expect(LENGTH_OF_CODE[c]).toBeGreaterThan(LENGTH_OF_CODE[c - 1]);
  });
});
