import { htmlToSections } from '../../shared/ingest/html-to-sections.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import { LUCENE_BM25 } from '../../shared/search/rank/bm25.js';
import { scoreDisMax, topK } from '../../shared/search/rank/dismax.js';
import { InvertedIndex } from '../../shared/search/rank/inverted-index.js';
import type { Page } from './python-docs.js';

/**
 * The baseline the issue compares with: plain BM25 over whole pages, as ../shared/data/README.md's
 * Lucene reference runs it (title and visible text in one field, English analyzer, Lucene's default
 * k1 1.2 / b 0.75), computed in this process with Quarry's own analyzer and BM25. No sections, no
 * vectors: it tells how much the section structure costs or gains against not splitting at all.
 * Returns a search function: query -> page uids, best first.
 */
export function wholePageBm25(pages: Pick<Page, 'uid' | 'title' | 'content'>[]): (query: string, k: number) => string[] {
  const analyzer = createAnalyzer('en');
  const index = new InvertedIndex();
  const uids: string[] = [];
  for (const p of pages) {
    const visible = htmlToSections(p.content, { fallbackTitle: p.title, maxSectionChars: Number.MAX_SAFE_INTEGER }).map((s) => `${s.title}\n${s.text}`);
    index.add({ page: analyzer.analyze([p.title, ...visible].join('\n')) });
    uids.push(p.uid);
  }
  const fields = [{ field: 'page', boost: 1 }];
  return (query, k) => topK(scoreDisMax(index, analyzer.analyze(query), { fields, bm25: LUCENE_BM25 }), k).map(([unit]) => uids[unit]);
}
