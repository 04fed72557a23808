import { describe, expect, it } from 'vitest';
import { InvertedIndex } from '../../shared/search/rank/inverted-index.js';

/** A small deterministic generator, so a failure names the same lists every run. */
function rng(seed: number) {
  let x = seed >>> 0;
  return () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('posting lists in shared pools', () => {
  it('hold every posting as a list per term would, while lists move and pools are copied, and views taken stay as they were', () => {
    const rand = rng(7);
    const index = new InvertedIndex();
    // What each list should hold: unit ids and frequencies in the order added.
    const model = new Map<string, { units: number[]; freqs: number[] }>();
    const views: { term: string; units: number[]; freqs: number[]; view: ReturnType<InvertedIndex['postings']> }[] = [];
    for (let unit = 0; unit < 6000; unit++) {
      // A Zipf-like mix: a few words in most units (lists that grow by half past 1,024), many rare ones.
      const words = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => `w${Math.floor(rand() ** 3 * 3000)}`);
      index.add({ f: words });
      const counts = new Map<string, number>();
      for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
      for (const [w, n] of counts) {
        let m = model.get(w);
        if (!m) model.set(w, (m = { units: [], freqs: [] }));
        m.units.push(unit);
        m.freqs.push(n);
      }
      if (unit % 500 === 250) {
        for (const term of ['w0', 'w1', `w${unit % 97}`, `w${2000 + (unit % 500)}`]) {
          const m = model.get(term);
          if (m) views.push({ term, units: [...m.units], freqs: [...m.freqs], view: index.postings('f', term) });
        }
      }
    }
    for (const [term, m] of model) {
      const list = index.postings('f', term)!;
      expect(list.length, term).toBe(m.units.length);
      expect(list.df, term).toBe(m.units.length);
      expect([...list.units], term).toEqual(m.units);
      expect([...list.freqs], term).toEqual(m.freqs);
      expect(list.maxFreq, term).toBe(Math.max(...m.freqs));
    }
    expect(views.length).toBeGreaterThan(30);
    for (const v of views) {
      expect([...v.view!.units], v.term).toEqual(v.units);
      expect([...v.view!.freqs], v.term).toEqual(v.freqs);
    }
    expect(index.postings('f', 'w0')!.length).toBeGreaterThan(1024);
  });
});
