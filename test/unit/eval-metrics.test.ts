import { describe, expect, it } from 'vitest';
import { dcg, dedupe, evaluate, ndcgAt, recallAt, type Qrels } from '../../scripts/eval/metrics.js';

const judged = (o: Record<string, number>) => new Map(Object.entries(o));

describe('eval metrics (trec_eval definitions, values computed by hand)', () => {
  it('DCG uses log2(rank + 1) discounts', () => {
    // 3/1 + 2/log2(3) + 1/2 = 3 + 1.26186 + 0.5
    expect(dcg([3, 2, 1], 10)).toBeCloseTo(4.761859507, 8);
    expect(dcg([3, 2, 1], 2)).toBeCloseTo(4.261859507, 8);
  });

  it('nDCG@10 with binary judgments', () => {
    const q = judged({ a: 1, b: 1 });
    expect(ndcgAt(['a', 'b', 'x'], q, 10)).toBeCloseTo(1, 12);
    // relevant at ranks 2 and 3: (1/log2 3 + 1/2) / (1 + 1/log2 3) = 1.130930 / 1.630930
    expect(ndcgAt(['x', 'a', 'b'], q, 10)).toBeCloseTo(0.693426, 6);
    // only b, at rank 1: 1 / 1.630930
    expect(ndcgAt(['b'], q, 10)).toBeCloseTo(0.613147, 6);
    // relevant document at rank 11 is past the cut
    expect(ndcgAt([...'cdefghijkl'].map(String).concat('a'), q, 10)).toBe(0);
  });

  it('nDCG@10 with graded judgments: gain = relevance, ideal from the qrels', () => {
    const q = judged({ a: 2, b: 1, c: 0 });
    // ranking b, a: (1 + 2/log2 3) / (2 + 1/log2 3) = 2.261860 / 2.630930
    expect(ndcgAt(['b', 'a'], q, 10)).toBeCloseTo(0.859719, 6);
    // judged-zero and unjudged documents give nothing; the ideal includes b even if never retrieved
    expect(ndcgAt(['c', 'a'], q, 10)).toBeCloseTo(2 / Math.log2(3) / 2.630930, 6);
  });

  it('a document returned twice (two sections) counts once, at its first rank', () => {
    expect(dedupe(['a', 'a', 'b', 'a'])).toEqual(['a', 'b']);
    const q = judged({ a: 1, b: 1 });
    expect(ndcgAt(['a', 'a', 'b'], q, 10)).toBeCloseTo(1, 12);
  });

  it('Recall@100 counts relevant documents retrieved in the top 100', () => {
    const q = judged({ a: 1, b: 1, c: 1, d: 0 });
    expect(recallAt(['a', 'd', 'x'], q, 100)).toBeCloseTo(1 / 3, 12);
    const deep = Array.from({ length: 100 }, (_, i) => `n${i}`);
    expect(recallAt(['b', ...deep, 'c'], q, 100)).toBeCloseTo(1 / 3, 12); // c is at rank 102
    expect(recallAt([], q, 100)).toBe(0);
  });

  it('averages over queries with a relevant document; missing runs count as 0', () => {
    const qrels: Qrels = new Map([
      ['q1', judged({ a: 1 })],
      ['q2', judged({ b: 1, c: 1 })],
      ['q3', judged({ z: 0 })], // no relevant document: not averaged
      ['q4', judged({ d: 1 })], // no results at all: 0
    ]);
    const run = new Map([
      ['q1', ['a']],
      ['q2', ['x', 'b']],
      ['q3', ['z']],
    ]);
    const s = evaluate(run, qrels);
    expect(s.queries).toBe(3);
    // q1 = 1; q2 = (1/log2 3) / (1 + 1/log2 3) = 0.630930 / 1.630930 = 0.386853; q4 = 0
    expect(s.ndcg10).toBeCloseTo((1 + 0.386853) / 3, 5);
    expect(s.recall100).toBeCloseTo((1 + 0.5 + 0) / 3, 12);
    expect(s.perQuery.map((p) => p.query)).toEqual(['q1', 'q2', 'q4']);
  });
});
