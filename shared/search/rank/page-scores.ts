import type { Bm25Params } from './dismax.js';
import { LUCENE_BM25 } from './dismax.js';
import type { InvertedIndex } from './inverted-index.js';

/**
 * Weight of a page's own match beside its best section's score in the search interface. Sections
 * split at every anchored item are short, so a section score alone ranks a one-line entry that
 * shares one rare word with the query above the page that answers it all over; whole-page BM25
 * alone (Lucene's reference) loses the section. Half a page score beside the section score lets a
 * page's overall match count without outweighing the section that answers (measured with
 * `npm run eval -- --mode faq` and `--mode structure`, docs/content-search-design.md).
 */
export const PAGE_WEIGHT = 0.5;

/**
 * BM25 over whole pages: each document's sections summed (term frequencies and lengths), per query
 * term the best of `fields` (DisMax, tie 0), Lucene's idf over documents. A field in `perPage` (the
 * title, copied onto every section) counts once per page, from one of its sections. So a page of one
 * section scores as its section does, and pages of one section keep their order (SciFact). Only the
 * documents in `wanted` are scored, but document frequencies count every document. `docOf` names a
 * unit's document.
 */
export function pageScores(
  index: InvertedIndex,
  terms: string[],
  fields: string[],
  perPage: ReadonlySet<string>,
  docOf: (unit: number) => string,
  docUnits: ReadonlyMap<string, readonly number[]>,
  wanted: ReadonlySet<string>,
  bm25: Bm25Params = LUCENE_BM25,
): Map<string, number> {
  const { k1, b } = bm25;
  const docCount = docUnits.size;
  const out = new Map<string, number>();
  if (docCount === 0) return out;
  const lengthCache = new Map<string, number>();
  for (const term of terms) {
    const best = new Map<string, number>();
    for (const field of fields) {
      const list = index.postings(field, term);
      const lengths = index.fieldLengths(field);
      if (!list || !lengths || list.df === 0) continue;
      const once = perPage.has(field);
      const tf = new Map<string, number>();
      const unitOf = new Map<string, number>();
      for (let i = 0; i < list.length; i++) {
        const u = list.units[i];
        if (!index.isAlive(u)) continue;
        const d = docOf(u);
        if (once && tf.has(d)) continue;
        tf.set(d, (tf.get(d) ?? 0) + list.freqs[i]);
        if (once) unitOf.set(d, u);
      }
      if (tf.size === 0) continue;
      const idf = Math.log(1 + (docCount - tf.size + 0.5) / (tf.size + 0.5));
      const stats = index.fieldStats(field);
      const avgdl = once ? stats.sumLength / stats.docCount : stats.sumLength / docCount;
      for (const [d, f] of tf) {
        if (!wanted.has(d)) continue;
        const key = `${field}\u0000${d}`;
        let len = once ? lengths[unitOf.get(d)!] : lengthCache.get(key);
        if (len === undefined) {
          len = 0;
          for (const u of docUnits.get(d) ?? []) if (index.isAlive(u)) len += lengths[u] ?? 0;
          lengthCache.set(key, len);
        }
        const s = (idf * f) / (f + k1 * (1 - b + (b * len) / avgdl));
        if (s > (best.get(d) ?? 0)) best.set(d, s);
      }
    }
    for (const [d, s] of best) out.set(d, (out.get(d) ?? 0) + s);
  }
  return out;
}
