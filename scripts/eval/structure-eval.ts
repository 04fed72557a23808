import { join } from 'node:path';
import type { Target } from '../bench/http-load.js';
import { markdownTable, round } from '../bench/stats.js';
import { createRankers, pageOf, pushPages, uiSearchUrls } from './faq-eval.js';
import { loadPythonDocs, type Page } from './python-docs.js';
import { mapPool } from './quarry-eval-client.js';

/**
 * `npm run eval -- --mode structure`: the search interface on pages whose items are definition-list
 * entries, not headings: the API entries of the Python library reference (`<dt id="os.getcwd">`).
 * The FAQ set's pages are all headings, so this keeps the section splitter from being tuned to one
 * page shape. Each sampled entry's query is the first sentence of its description, written as a
 * reader would search for what the entry does ("Return a string representing the current working
 * directory."); the answer is the entry's page, and its section is page#id.
 */

const SITE = 'https://docs.python.org/3.11/';
/** Every STRIDE-th described entry of library/ is asked: about 200 queries, spread over the reference. */
const STRIDE = 40;
/** Rankings compared (names as faq-eval.ts's createRankers gives them): the two legs and the defaults of each fusion. */
const RANKINGS = ['keyword leg alone', 'vector leg alone', 'fused: reciprocal rank, keyword 0.5', 'fused: weighted scores, keyword 0.7'];

export interface EntryQuery {
  page: string;
  anchor: string;
  query: string;
}

const stripTags = (s: string) =>
  s.replace(/<[^>]*>/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();

/** Sphinx API entries with a described first paragraph, in page order; the first sentence is the query. */
export function entryQueries(pages: Pick<Page, 'uid' | 'content'>[]): EntryQuery[] {
  const all: EntryQuery[] = [];
  const entry = /<dt class="sig sig-object py" id="([^"]+)">[\s\S]*?<\/dt>\s*<dd><p>([\s\S]*?)<\/p>/g;
  for (const p of pages) {
    if (!p.uid.startsWith('library/')) continue;
    for (const m of p.content.matchAll(entry)) {
      const sentence = stripTags(m[2]).match(/^.*?[.!?](?=\s|$)/)?.[0] ?? '';
      if (sentence.split(' ').length >= 5) all.push({ page: p.uid, anchor: m[1], query: sentence });
    }
  }
  return all.filter((_, i) => i % STRIDE === 0);
}

export interface StructureRow {
  ranking: string;
  asked: number;
  top1: number;
  reciprocalRank: number;
  top5: number;
  top10: number;
  sectionTop5: number;
  errors: number;
}

export async function runStructureEval(api: Target, dataDir: string, assertAlive: () => void, say: (m: string) => void) {
  const pages = loadPythonDocs(join(dataDir, 'python-3.11.2-html.tar.gz'));
  const queries = entryQueries(pages);
  const index = `structure-${Date.now().toString(36)}`;
  say(`pushing ${pages.length} pages into ${index}`);
  await pushPages(api, index, pages, assertAlive, say, SITE);
  const rankers = (await createRankers(api, index)).filter((r) => RANKINGS.includes(r.name));
  const rows: StructureRow[] = [];
  for (const ranker of rankers) {
    say(`asking ${queries.length} entry queries: ${ranker.name}`);
    const row: StructureRow = { ranking: ranker.name, asked: 0, top1: 0, reciprocalRank: 0, top5: 0, top10: 0, sectionTop5: 0, errors: 0 };
    await mapPool(queries, 4, async (q) => {
      row.asked++;
      const urls = await uiSearchUrls(api, ranker, q.query);
      if (!urls) return void row.errors++;
      const rank = urls.map((u) => pageOf(u, SITE)).indexOf(q.page);
      if (rank === 0) row.top1++;
      if (rank >= 0) row.reciprocalRank += 1 / (rank + 1);
      if (rank >= 0 && rank < 5) row.top5++;
      if (rank >= 0 && rank < 10) row.top10++;
      if (urls.slice(0, 5).includes(`${SITE}${q.page}#${encodeURIComponent(q.anchor)}`)) row.sectionTop5++;
    });
    rows.push(row);
    assertAlive();
  }
  return { index, pages: pages.length, queries: queries.length, rows };
}

const pct = (n: number, d: number) => (d ? `${round((100 * n) / d, 1)}%` : '—');

export function structureTable(rows: StructureRow[]): string {
  return markdownTable([
    ['ranking', 'entry page first', 'MRR', 'entry page in top 5', 'in top 10', 'entry section (page#id) in top 5', 'errors'],
    ...rows.map((r) => [r.ranking, pct(r.top1, r.asked), String(round(r.reciprocalRank / (r.asked || 1), 3)), `${pct(r.top5, r.asked)} (${r.top5}/${r.asked})`, pct(r.top10, r.asked), pct(r.sectionTop5, r.asked), String(r.errors)]),
  ]);
}
