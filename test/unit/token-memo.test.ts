import { describe, expect, it } from 'vitest';
import { TokenMemo } from '../../shared/search/analyzer/token-memo.js';
import { TokenSpans, scanTokens, tokenHash, tokenizeByExpression } from '../../shared/search/analyzer/tokenize-words.js';

describe('TokenMemo', () => {
  it('finds a token by its place in a text, tells apart tokens of one hash, and empties itself when full', () => {
    const memo = new TokenMemo<number>(3);
    const text = 'cells cell cellular';
    // One hash for all: only the characters can tell them apart.
    memo.add('cell', 7, 1);
    memo.add('cells', 7, 2);
    expect(memo.find(text, 0, 5, 7)).toBe(2);
    expect(memo.find(text, 6, 10, 7)).toBe(1);
    expect(memo.find(text, 11, 19, 7)).toBeUndefined();
    expect(memo.find(text, 0, 4, 8)).toBeUndefined();
    memo.add('cellular', 7, 3);
    expect(memo.size).toBe(3);
    memo.add('tissue', 9, 4);
    expect(memo.size).toBe(1);
    expect(memo.find(text, 6, 10, 7)).toBeUndefined();
    expect(memo.find('a tissue', 2, 8, 9)).toBe(4);
  });
});

describe('scanTokens', () => {
  it("gives the expression's tokens with tokenHash's hash each, or declines text beyond its table", () => {
    const spans = new TokenSpans();
    const texts = ["il-6 p53 u.s.a. 3.14 1,000 don't x·y objective:to", 'résumé naïve ☃ café', 'x'.repeat(600), ' . , ', 'thai ไทย', 'han 中文', 'emoji 😀 here'];
    for (const text of texts) {
      const scanned = scanTokens(text, spans);
      expect(scanned, text).toBe(!/[ไ中😀]/u.test(text));
      if (!scanned) continue;
      const tokens = Array.from({ length: spans.count }, (_, i) => text.slice(spans.start[i], spans.end[i]));
      expect(tokens).toEqual(tokenizeByExpression(text, (run) => [run]));
      for (let i = 0; i < spans.count; i++) expect(spans.hash[i]).toBe(tokenHash(text, spans.start[i], spans.end[i]));
    }
  });
});
