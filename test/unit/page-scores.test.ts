import { describe, expect, it } from 'vitest';
import { scoreDisMax } from '../../shared/search/rank/dismax.js';
import { InvertedIndex, type UnitTerms } from '../../shared/search/rank/inverted-index.js';
import { PAGE_WEIGHT, pageScores } from '../../shared/search/rank/page-scores.js';

/** An index of pages, each a list of sections' body words; every section also carries its page title. */
function build(pages: Record<string, { title: string; sections: string[] }>) {
  const index = new InvertedIndex();
  const docOf: string[] = [];
  const docUnits = new Map<string, number[]>();
  for (const [doc, { title, sections }] of Object.entries(pages)) {
    for (const text of sections) {
      const terms: UnitTerms = { text: text.split(' '), title: title.split(' ') };
      const u = index.add(terms);
      docOf[u] = doc;
      docUnits.set(doc, [...(docUnits.get(doc) ?? []), u]);
    }
  }
  return { index, docOf: (u: number) => docOf[u], docUnits };
}

const FIELDS = [{ field: 'text', boost: 1 }, { field: 'title', boost: 1 }];
const PER_PAGE = new Set(['title']);

/** Best section per page, alone or with the page's own match added as the search interface does. */
function ranking(pages: Parameters<typeof build>[0], query: string[], withPage: boolean): string[] {
  const { index, docOf, docUnits } = build(pages);
  const sections = scoreDisMax(index, query, { fields: FIELDS });
  const page = withPage ? pageScores(index, query, FIELDS.map((f) => f.field), PER_PAGE, docOf, docUnits, new Set(docUnits.keys())) : new Map<string, number>();
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
    const { index, docOf, docUnits } = build(single);
    const sections = scoreDisMax(index, query, { fields: FIELDS });
    const page = pageScores(index, query, ['text', 'title'], PER_PAGE, docOf, docUnits, new Set(['a', 'b', 'c']));
    for (const [u, s] of sections) expect(page.get(docOf(u))).toBeCloseTo(s, 12);
  });

  it('counts the title once per page, not once per section', () => {
    const { index, docOf, docUnits } = build({ t: { title: 'socket', sections: ['a', 'b', 'c', 'd'] }, u: { title: 'socket', sections: ['e'] }, v: { title: 'w', sections: ['f'] } });
    const page = pageScores(index, ['socket'], ['title'], PER_PAGE, docOf, docUnits, new Set(['t', 'u']));
    expect(page.get('t')).toBeCloseTo(page.get('u')!, 12);
  });

  it('scores only the wanted pages, with document frequencies over all of them', () => {
    const { index, docOf, docUnits } = build(pages);
    const page = pageScores(index, query, ['text'], PER_PAGE, docOf, docUnits, new Set(['misc']));
    expect([...page.keys()]).toEqual(['misc']);
    // One of the three pages has "timeout" beside the wanted one: idf over pages, not over the 12 sections.
    expect(page.get('misc')).toBeGreaterThan(0);
  });
});
