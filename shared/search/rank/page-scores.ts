import type { Bm25Params } from './dismax.js';
import { LUCENE_BM25 } from './dismax.js';
import type { InvertedIndex, UnitTerms } from './inverted-index.js';
import type { PageFrequencies } from './page-frequencies.js';

/**
 * Weight of a page's own match beside its best section's score in the search interface. Sections
 * split at every anchored item are short, so a section score alone ranks a one-line entry that
 * shares one rare word with the query above the page that answers it all over; whole-page BM25
 * alone (Lucene's reference) loses the section. Half a page score beside the section score lets a
 * page's overall match count without outweighing the section that answers (measured with
 * `npm run eval -- --mode faq` and `--mode structure`, docs/content-search-design.md).
 */
export const PAGE_WEIGHT = 0.5;

/** A page to score: its units (sections), in the order they were added. */
export interface WantedPage {
  doc: string;
  units: readonly number[];
}

/**
 * BM25 over whole pages: each page's sections summed (term frequencies and lengths), per query
 * term the best of `fields` (DisMax, tie 0), Lucene's idf over pages. A field in `perPage` (the
 * title, copied onto every section) counts once per page, from the first of its sections that has
 * the term. So a page of one section scores as its section does, and pages of one section keep their
 * order (SciFact). Only the `wanted` pages are scored: term frequencies come from their own sections'
 * terms (`termsOf`) and page frequencies from `frequencies`, so the cost follows the pages returned,
 * never the length of a posting list.
 */
export function pageScores(
  index: InvertedIndex,
  frequencies: PageFrequencies,
  terms: string[],
  fields: string[],
  perPage: ReadonlySet<string>,
  wanted: Iterable<WantedPage>,
  termsOf: (unit: number) => UnitTerms,
  bm25: Bm25Params = LUCENE_BM25,
): Map<string, number> {
  const { k1, b } = bm25;
  const out = new Map<string, number>();
  const docCount = frequencies.pages;
  if (docCount === 0 || terms.length === 0) return out;
  const distinct = [...new Set(terms)];
  // Per field: each distinct term's idf (0 when no page has it) and the average page length.
  const plan = fields.map((field) => {
    const once = perPage.has(field);
    const stats = index.fieldStats(field);
    const idf = distinct.map((t) => {
      const df = frequencies.df(field, t);
      return df === 0 ? 0 : Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
    });
    return { field, once, idf, avgdl: once ? stats.sumLength / stats.docCount : stats.sumLength / docCount, lengths: index.fieldLengths(field) };
  });
  const active = plan.filter((p) => p.lengths && p.idf.some((w) => w > 0));
  const slot = new Map(distinct.map((t, i) => [t, i]));
  const tf = new Int32Array(distinct.length);
  const local = new Int32Array(distinct.length);
  const len = new Float64Array(distinct.length);
  const best = new Float64Array(distinct.length);
  for (const { doc, units } of wanted) {
    best.fill(0);
    for (const p of active) {
      const lengths = p.lengths!;
      tf.fill(0);
      let pageLength = 0;
      let found = 0;
      for (const u of units) {
        const tokens = termsOf(u)[p.field];
        if (!tokens) continue;
        pageLength += lengths[u] ?? 0;
        // A per-page field: the first section that has a term gives its frequency and length.
        if (p.once && found === distinct.length) continue;
        const counts = p.once ? local.fill(0) : tf;
        for (let i = 0; i < tokens.length; i++) {
          const at = slot.get(tokens[i]);
          if (at !== undefined) counts[at]++;
        }
        if (!p.once) continue;
        for (let i = 0; i < distinct.length; i++) {
          if (tf[i] === 0 && local[i] > 0) {
            tf[i] = local[i];
            len[i] = lengths[u];
            found++;
          }
        }
      }
      for (let i = 0; i < distinct.length; i++) {
        const f = tf[i];
        if (f === 0 || p.idf[i] === 0) continue;
        const dl = p.once ? len[i] : pageLength;
        const s = (p.idf[i] * f) / (f + k1 * (1 - b + (b * dl) / p.avgdl));
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
