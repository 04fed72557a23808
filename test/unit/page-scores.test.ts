import { describe, expect, it } from 'vitest';
import { LUCENE_BM25 } from '../../shared/search/rank/bm25.js';
import { scoreDisMax } from '../../shared/search/rank/dismax.js';
import { InvertedIndex, type UnitTerms } from '../../shared/search/rank/inverted-index.js';
import { PageFrequencies } from '../../shared/search/rank/page-frequencies.js';
import { PAGE_WEIGHT, pageScores as scorePages } from '../../shared/search/rank/page-scores.js';
import { prng } from '../helpers/prng.js';

interface Built {
  index: InvertedIndex;
  frequencies: PageFrequencies;
  docOf: (u: number) => string;
  docUnits: Map<string, number[]>;
  termsOf: (u: number) => UnitTerms;
}

/** An index of pages, each a list of sections' body words; every section also carries its page title. */
function build(pages: Record<string, { title: string; sections: string[] }>): Built {
  const index = new InvertedIndex();
  const frequencies = new PageFrequencies();
  const docOf: string[] = [];
  const unitTerms: UnitTerms[] = [];
  const docUnits = new Map<string, number[]>();
  for (const [doc, { title, sections }] of Object.entries(pages)) {
    for (const text of sections) {
      const terms: UnitTerms = { text: text.split(' ').filter(Boolean), title: title.split(' ').filter(Boolean) };
      const u = index.add(terms);
      docOf[u] = doc;
      unitTerms[u] = terms;
      docUnits.set(doc, [...(docUnits.get(doc) ?? []), u]);
    }
    frequencies.add((docUnits.get(doc) ?? []).map((u) => unitTerms[u]));
  }
  return { index, frequencies, docOf: (u: number) => docOf[u], docUnits, termsOf: (u) => unitTerms[u] };
}

/** The page scores of `wanted` pages of a built index. */
function pageScores(b: Built, terms: string[], fields: string[], perPage: ReadonlySet<string>, wanted: Set<string>): Map<string, number> {
  return scorePages(b.index, b.frequencies, terms, fields, perPage, [...wanted].map((doc) => ({ doc, units: b.docUnits.get(doc) ?? [] })));
}

/**
 * The definition, computed the long way: every posting of every query term walked, frequencies and
 * lengths summed per page (the implementation before page frequencies were kept at index time).
 */
function reference(b: Built, terms: string[], fields: string[], perPage: ReadonlySet<string>, wanted: Set<string>): Map<string, number> {
  const { k1, b: bb } = LUCENE_BM25;
  const docCount = b.docUnits.size;
  const out = new Map<string, number>();
  for (const term of terms) {
    const best = new Map<string, number>();
    for (const field of fields) {
      const list = b.index.postings(field, term);
      const lengths = b.index.fieldLengths(field);
      if (!list || !lengths || list.df === 0) continue;
      const once = perPage.has(field);
      const tf = new Map<string, number>();
      const unitOf = new Map<string, number>();
      for (let i = 0; i < list.length; i++) {
        const u = list.units[i];
        if (!b.index.isAlive(u)) continue;
        const d = b.docOf(u);
        if (once && tf.has(d)) continue;
        tf.set(d, (tf.get(d) ?? 0) + list.freqs[i]);
        if (once) unitOf.set(d, u);
      }
      const idf = Math.log(1 + (docCount - tf.size + 0.5) / (tf.size + 0.5));
      const stats = b.index.fieldStats(field);
      const avgdl = once ? stats.sumLength / stats.docCount : stats.sumLength / docCount;
      for (const [d, f] of tf) {
        if (!wanted.has(d)) continue;
        const len = once ? lengths[unitOf.get(d)!] : (b.docUnits.get(d) ?? []).reduce((n, u) => n + (lengths[u] ?? 0), 0);
        const s = (idf * f) / (f + k1 * (1 - bb + (bb * len) / avgdl));
        if (s > (best.get(d) ?? 0)) best.set(d, s);
      }
    }
    for (const [d, s] of best) out.set(d, (out.get(d) ?? 0) + s);
  }
  return out;
}

const FIELDS = [{ field: 'text', boost: 1 }, { field: 'title', boost: 1 }];
const PER_PAGE = new Set(['title']);

/** Best section per page, alone or with the page's own match added as the search interface does. */
function ranking(pages: Parameters<typeof build>[0], query: string[], withPage: boolean): string[] {
  const built = build(pages);
  const { index, docOf, docUnits } = built;
  const sections = scoreDisMax(index, query, { fields: FIELDS });
  const page = withPage ? pageScores(built, query, FIELDS.map((f) => f.field), PER_PAGE, new Set(docUnits.keys())) : new Map<string, number>();
  const best = new Map<string, number>();
  for (const [u, s] of sections) {
    const score = s + PAGE_WEIGHT * (page.get(docOf(u)) ?? 0);
    if (score > (best.get(docOf(u)) ?? -1)) best.set(docOf(u), score);
  }
  return [...best].sort((a, b) => b[1] - a[1]).map(([d]) => d);
}

describe('pageScores: a page\'s overall match beside its best section', () => {
  // The query's words are spread over one page's entries; another page has one short entry with the rarest word.
  const pages = {
    sockets: { title: 'sockets', sections: ['socket connection', 'socket connection closed', 'socket timeout in seconds for every blocking call on the connection', 'socket options'] },
    misc: { title: 'misc', sections: ['timeout connection', 'unrelated words here', 'more unrelated words', 'other things'] },
    filler: { title: 'filler', sections: ['alpha beta', 'gamma delta', 'epsilon zeta', 'eta theta'] },
  };
  const query = ['socket', 'connection', 'timeout'];

  it('lifts the page that matches the whole query over a short entry sharing one word', () => {
    expect(ranking(pages, query, false)[0]).toBe('misc');
    expect(ranking(pages, query, true)[0]).toBe('sockets');
  });

  it('a page of one section scores exactly as its section: pages of one section keep their order', () => {
    const single = { a: { title: 'x', sections: ['socket timeout socket'] }, b: { title: 'socket', sections: ['timeout words'] }, c: { title: 'y', sections: ['connection'] } };
    const built = build(single);
    const { index, docOf } = built;
    const sections = scoreDisMax(index, query, { fields: FIELDS });
    const page = pageScores(built, query, ['text', 'title'], PER_PAGE, new Set(['a', 'b', 'c']));
    for (const [u, s] of sections) expect(page.get(docOf(u))).toBeCloseTo(s, 12);
  });

  it('counts the title once per page, not once per section', () => {
    const built = build({ t: { title: 'socket', sections: ['a', 'b', 'c', 'd'] }, u: { title: 'socket', sections: ['e'] }, v: { title: 'w', sections: ['f'] } });
    const page = pageScores(built, ['socket'], ['title'], PER_PAGE, new Set(['t', 'u']));
    expect(page.get('t')).toBeCloseTo(page.get('u')!, 12);
  });

  it('scores only the wanted pages, with document frequencies over all of them', () => {
    const page = pageScores(build(pages), query, ['text'], PER_PAGE, new Set(['misc']));
    expect([...page.keys()]).toEqual(['misc']);
    // One of the three pages has "timeout" beside the wanted one: idf over pages, not over the 12 sections.
    expect(page.get('misc')).toBeGreaterThan(0);
  });

  it('equals the definition (every posting walked) on random pages, repeated query terms and removed pages', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = prng(seed);
      const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
      // Skewed word choice: some terms are in most pages, some in few.
      const word = () => words[Math.floor(words.length * rand() ** 2)];
      const text = (n: number) => Array.from({ length: n }, word).join(' ');
      const pages: Record<string, { title: string; sections: string[] }> = {};
      const count = 5 + Math.floor(rand() * 40);
      for (let p = 0; p < count; p++) {
        pages[`p${p}`] = { title: text(1 + Math.floor(rand() * 4)), sections: Array.from({ length: 1 + Math.floor(rand() * 6) }, () => text(1 + Math.floor(rand() * 12))) };
      }
      const built = build(pages);
      // Remove some pages as IndexState does (units dead, pages uncounted).
      for (const [doc, units] of [...built.docUnits]) {
        if (rand() < 0.2) {
          for (const u of units) built.index.remove(u, built.termsOf(u));
          built.frequencies.remove(units.map(built.termsOf));
          built.docUnits.delete(doc);
        }
      }
      const query = Array.from({ length: 1 + Math.floor(rand() * 5) }, word);
      const wanted = new Set([...built.docUnits.keys()].filter(() => rand() < 0.6));
      const got = pageScores(built, query, ['text', 'title'], PER_PAGE, wanted);
      const want = reference(built, query, ['text', 'title'], PER_PAGE, wanted);
      expect([...got.keys()].sort(), `seed ${seed}`).toEqual([...want.keys()].sort());
      for (const [d, s] of want) expect(got.get(d), `seed ${seed} page ${d}`).toBe(s);
    }
  });
});
