import { escapeHtml } from '../../shared/text/escape-html.js';
import type { Target } from '../bench/http-load.js';
import { markdownTable, round } from '../bench/stats.js';
import type { Dataset } from './dataset.js';
import { createRankers, pageOf, pushPages, uiSearchUrls } from './ui-search-client.js';
import { ndcgAt, recallAt } from './metrics.js';
import { mapPool } from './quarry-eval-client.js';

/**
 * The fusion comparison on a second corpus: a BEIR dataset (SciFact) pushed through /v2 as pages
 * (title, the text as escaped HTML, a made-up url naming the document) and its judged queries asked
 * through GET /v1/ui/search with each leg alone and each fusion. The FAQ questions are copies of page
 * headings, which flatters the keyword leg; SciFact's claims share few words with their abstracts.
 */

const SITE = 'https://beir.invalid/';

export interface HybridBeirRow {
  ranking: string;
  ndcg10: number;
  recall10: number;
  errors: number;
}

export async function runHybridBeirEval(api: Target, ds: Dataset, assertAlive: () => void, say: (m: string) => void) {
  const index = `hybrid-${ds.name}-${Date.now().toString(36)}`.replace(/[^A-Za-z0-9_-]/g, '-');
  say(`pushing ${ds.corpus.length} ${ds.name} documents into ${index}`);
  const pages = ds.corpus.map((d) => ({ uid: d.id, title: d.title || d.id, content: `<p>${escapeHtml(d.text)}</p>` }));
  await pushPages(api, index, pages, assertAlive, say, SITE);
  const rows: HybridBeirRow[] = [];
  for (const ranker of await createRankers(api, index)) {
    say(`asking ${ds.queries.length} ${ds.name} queries: ${ranker.name}`);
    const row: HybridBeirRow = { ranking: ranker.name, ndcg10: 0, recall10: 0, errors: 0 };
    await mapPool(ds.queries, 4, async (q) => {
      const urls = await uiSearchUrls(api, ranker, q.text);
      if (!urls) {
        row.errors++;
        return;
      }
      const ranked = urls.map((u) => pageOf(u, SITE) ?? '');
      const judged = ds.qrels.get(q.id) ?? new Map<string, number>();
      row.ndcg10 += ndcgAt(ranked, judged, 10);
      row.recall10 += recallAt(ranked, judged, 10);
    });
    row.ndcg10 /= ds.queries.length;
    row.recall10 /= ds.queries.length;
    rows.push(row);
    assertAlive();
  }
  return { index, documents: ds.corpus.length, queries: ds.queries.length, rows };
}

export function hybridBeirTable(rows: HybridBeirRow[]): string {
  return markdownTable([
    ['ranking', 'nDCG@10', 'recall@10', 'errors'],
    ...rows.map((r) => [r.ranking, String(round(r.ndcg10, 4)), String(round(r.recall10, 4)), String(r.errors)]),
  ]);
}
