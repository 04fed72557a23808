import { LUCENE_BM25, type Bm25Params } from './bm25.js';
import type { InvertedIndex } from './inverted-index.js';
import type { PageFrequencies } from './page-frequencies.js';
import { LENGTH_OF_CODE } from './lucene-length.js';
import { seek } from './seek.js';

/**
 * Weight of a page's own match beside its best section's score in the search interface. Sections
 * split at every anchored item are short, so a section score alone ranks a one-line entry that
 * shares one rare word with the query above the page that answers it all over; whole-page BM25
 * alone (Lucene's reference) loses the section. Half a page score beside the section score lets a
 * page's overall match count without outweighing the section that answers (measured with
 * `npm run eval -- --mode faq` and `--mode structure`, docs/content-search-design.md).
 */
export const PAGE_WEIGHT = 0.5;

/** A page to score, by whatever key the caller names pages with: its units (sections), ascending and consecutive (added together). */
export interface WantedPage<K = string> {
  doc: K;
  units: readonly number[];
}

/**
 * BM25 over whole pages: each page's sections summed (term frequencies and lengths), per query
 * term the best of `fields` (DisMax, tie 0), Lucene's idf over pages. A field in `perPage` (the
 * title, copied onto every section) counts once per page, from the first of its sections that has
 * the term. So a page of one section scores as its section does, and pages of one section keep their
 * order (SciFact). Only the `wanted` pages are scored: a page's sections are consecutive units, so
 * its postings of a term are one run of the posting list, found by two binary searches; page
 * frequencies come from `frequencies`. The cost follows the pages returned and the query's terms,
 * never the length of a posting list or of a page.
 */
export function pageScores<K = string>(
  index: InvertedIndex,
  frequencies: PageFrequencies,
  terms: string[],
  fields: string[],
  perPage: ReadonlySet<string>,
  wanted: Iterable<WantedPage<K>>,
  bm25: Bm25Params = LUCENE_BM25,
): Map<K, number> {
  const { k1, b } = bm25;
  const out = new Map<K, number>();
  const docCount = frequencies.pages;
  if (docCount === 0 || terms.length === 0) return out;
  const distinct = [...new Set(terms)];
  // Per field: each distinct term's posting list and idf (none when no page has it), the average page length.
  const plan = fields.flatMap((field) => {
    const lengths = index.fieldLengths(field);
    if (!lengths) return [];
    const once = perPage.has(field);
    const stats = index.fieldStats(field);
    const lists = distinct.map((t) => {
      const df = frequencies.df(field, t);
      const list = index.postings(field, t);
      return df === 0 || !list ? null : { list, idf: Math.log(1 + (docCount - df + 0.5) / (df + 0.5)) };
    });
    if (lists.every((l) => l === null)) return [];
    return [{ once, lists, lengths, avgdl: once ? stats.sumLength / stats.docCount : stats.sumLength / docCount }];
  });
  const slot = new Map(distinct.map((t, i) => [t, i]));
  const best = new Float64Array(distinct.length);
  for (const { doc, units } of wanted) {
    if (units.length === 0) continue;
    best.fill(0);
    const first = units[0];
    const last = units[units.length - 1];
    for (const p of plan) {
      let pageLength = 0;
      if (!p.once) for (const u of units) pageLength += LENGTH_OF_CODE[p.lengths[u]] ?? 0;
      for (let i = 0; i < distinct.length; i++) {
        const entry = p.lists[i];
        if (!entry) continue;
        const { units: postings, freqs, length } = entry.list;
        // The page's postings: the run of units first..last (its sections, added together).
        let at = seek(postings, length, 0, first);
        if (at >= length || postings[at] > last) continue;
        let f: number;
        let dl: number;
        if (p.once) {
          f = freqs[at];
          dl = LENGTH_OF_CODE[p.lengths[postings[at]]];
        } else {
          f = 0;
          for (; at < length && postings[at] <= last; at++) f += freqs[at];
          dl = pageLength;
        }
        const s = (entry.idf * f) / (f + k1 * (1 - b + (b * dl) / p.avgdl));
        if (s > best[i]) best[i] = s;
      }
    }
    // A term the query repeats counts again, as in the section scores.
    let score = 0;
    let any = false;
    for (const t of terms) {
      const s = best[slot.get(t)!];
      if (s > 0) {
        score += s;
        any = true;
      }
    }
    if (any) out.set(doc, score);
  }
  return out;
}
