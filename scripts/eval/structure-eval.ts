import { join } from 'node:path';
import type { Target } from '../bench/http-load.js';
import { markdownTable, round } from '../bench/stats.js';
import { wholePageBm25 } from './page-bm25.js';
import { loadPythonDocs, type Page } from './python-docs.js';
import { mapPool } from './quarry-eval-client.js';
import { change, pct, pushBeforeAfter, type BeforeAfter } from './section-variants.js';
import { createRankers, pageOf, SITE, uiSearchUrls } from './ui-search-client.js';

/**
 * `npm run eval -- --mode structure`: the search interface on pages whose items are definition-list
 * entries, not headings: the API entries of the Python library reference (`<dt id="os.getcwd">`).
 * The FAQ set's pages are all headings, so this keeps the section splitter from being tuned to one
 * page shape. Each sampled entry's query is the first sentence of its description, written as a
 * reader would search for what the entry does ("Return a string representing the current working
 * directory."); the answer is the entry's page, and its section is page#id. Measured before (sections
 * at headings only) and after (at anchored items too) in the same run, beside whole-page BM25.
 */

/** Every STRIDE-th described entry of library/ is asked: about 200 queries, spread over the reference. */
const STRIDE = 40;
/**
 * Rankings compared (names as createRankers gives them): the two legs, reciprocal rank's default, the
 * weighted fusion first measured here (0.7) and the served default (0.85).
 */
const RANKINGS = ['keyword leg alone', 'vector leg alone', 'fused: reciprocal rank, keyword 0.5', 'fused: weighted scores, keyword 0.7', 'fused: weighted scores, keyword 0.85'];

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

async function score(ranking: string, search: (query: string) => Promise<string[] | null>, queries: EntryQuery[]): Promise<StructureRow> {
  const row: StructureRow = { ranking, asked: 0, top1: 0, reciprocalRank: 0, top5: 0, top10: 0, sectionTop5: 0, errors: 0 };
  await mapPool(queries, 4, async (q) => {
    row.asked++;
    const urls = await search(q.query);
    if (!urls) return void row.errors++;
    const rank = urls.map((u) => pageOf(u, SITE)).indexOf(q.page);
    if (rank === 0) row.top1++;
    if (rank >= 0) row.reciprocalRank += 1 / (rank + 1);
    if (rank >= 0 && rank < 5) row.top5++;
    if (rank >= 0 && rank < 10) row.top10++;
    if (urls.slice(0, 5).includes(`${SITE}${q.page}#${encodeURIComponent(q.anchor)}`)) row.sectionTop5++;
  });
  return row;
}

export async function runStructureEval(api: Target, dataDir: string, assertAlive: () => void, say: (m: string) => void) {
  const pages = loadPythonDocs(join(dataDir, 'python-3.11.2-html.tar.gz'));
  const queries = entryQueries(pages);
  const indexes = await pushBeforeAfter(api, 'structure', pages, assertAlive, say, SITE);
  const rows: BeforeAfter<StructureRow[]> = { before: [], after: [] };
  for (const variant of ['before', 'after'] as const) {
    for (const ranker of (await createRankers(api, indexes[variant])).filter((r) => RANKINGS.includes(r.name))) {
      say(`${variant}: asking ${queries.length} entry queries: ${ranker.name}`);
      rows[variant].push(await score(ranker.name, (q) => uiSearchUrls(api, ranker, q), queries));
      assertAlive();
    }
  }
  const bm25 = wholePageBm25(pages);
  const baseline = await score('whole-page BM25, no sections (in process)', async (q) => bm25(q, 10).map((uid) => SITE + uid), queries);
  return { indexes, pages: pages.length, queries: queries.length, rows, baseline };
}

const cells = (r: StructureRow) => [
  pct(r.top1, r.asked), String(round(r.reciprocalRank / (r.asked || 1), 3)), `${pct(r.top5, r.asked)} (${r.top5}/${r.asked})`, pct(r.top10, r.asked), pct(r.sectionTop5, r.asked), String(r.errors),
];

/** One row per ranking, each cell "before → after"; the whole-page baseline last (it has no sections). */
export function structureTable(rows: BeforeAfter<StructureRow[]>, baseline: StructureRow): string {
  return markdownTable([
    ['ranking (before → after)', 'entry page first', 'MRR', 'entry page in top 5', 'in top 10', 'entry section (page#id) in top 5', 'errors'],
    ...rows.after.map((a, i) => {
      const b = cells(rows.before[i]);
      return [a.ranking, ...cells(a).map((c, j) => change(b[j], c))];
    }),
    [baseline.ranking, ...cells(baseline).slice(0, 4), '—', cells(baseline)[5]],
  ]);
}
