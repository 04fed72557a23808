import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { send, sendJson, type Target } from '../bench/http-load.js';
import { markdownTable, round } from '../bench/stats.js';
import { wholePageBm25 } from './page-bm25.js';
import { loadFaqQuestions, loadPythonDocs, type FaqQuestion, type Page } from './python-docs.js';
import { mapPool } from './quarry-eval-client.js';
import { boldFaqSite } from './section-shapes.js';
import { change, pct, pushBeforeAfter, type BeforeAfter } from './section-variants.js';
import { createRankers, pageOf, SITE, uiSearchUrls } from './ui-search-client.js';

/**
 * `npm run eval -- --mode faq`: the search interface on the Python docs. Pushes the 530 pages through
 * document push, then asks the 175 FAQ questions through GET /v1/ui/search (preview, so nothing is
 * learnt) with the keyword leg alone, the vector leg alone and each fusion, and counts how often the
 * answering page is among the top 5 and top 10 paragraph results, and (harder) how often one of the
 * pages the answer links to is. It does so for two shapes of FAQ page (a heading per question, and
 * anchored bold paragraphs), each sectioned before (headings only) and after (anchored items too) in
 * the same run, beside plain BM25 over whole pages. (scripts/eval/hybrid-beir-eval.ts repeats the
 * fusion comparison on SciFact.)
 */

export interface FaqRow {
  ranking: string;
  answered: number;
  top1: number;
  /** Answer reciprocal rank, summed (MRR = this / answered). */
  reciprocalRank: number;
  /** The answering section itself (page and anchor) in the top 5. */
  sectionTop5: number;
  top5: number;
  top10: number;
  supportQuestions: number;
  supportTop5: number;
  supportTop10: number;
  errors: number;
}

/** A set of FAQ questions over a site: the pages to push and the questions with their answering page#anchor. */
export interface FaqSet {
  name: string;
  pages: Page[];
  questions: FaqQuestion[];
}

export interface FaqSetResult {
  name: string;
  pages: number;
  questions: number;
  indexes: BeforeAfter<string>;
  rows: BeforeAfter<FaqRow[]>;
  /** Plain BM25 over whole pages, in process (page-bm25.ts). */
  baseline: FaqRow;
}

/**
 * The Python FAQ in two page shapes over the same 530 pages: as published (a heading per question)
 * and rewritten as anchored bold paragraphs (section-shapes.ts), each pushed before (sections at
 * headings only) and after (sections at anchored items too).
 */
export function faqSets(dataDir: string): FaqSet[] {
  const pages = loadPythonDocs(join(dataDir, 'python-3.11.2-html.tar.gz'));
  const questions = loadFaqQuestions(join(dataDir, 'faq_questions.jsonl'));
  const bold = boldFaqSite(pages, questions);
  return [
    { name: 'python-docs FAQ (headings)', pages, questions },
    { name: 'FAQ as anchored bold paragraphs', pages: bold.pages, questions: bold.questions },
  ];
}

export async function runFaqSet(api: Target, set: FaqSet, assertAlive: () => void, say: (m: string) => void): Promise<FaqSetResult> {
  const indexes = await pushBeforeAfter(api, 'faq', set.pages, assertAlive, say);
  const rows: BeforeAfter<FaqRow[]> = { before: [], after: [] };
  for (const variant of ['before', 'after'] as const) {
    for (const ranker of await createRankers(api, indexes[variant])) {
      say(`${set.name}, ${variant}: asking ${set.questions.length} questions: ${ranker.name}`);
      rows[variant].push(await score(ranker.name, (q) => uiSearchUrls(api, ranker, q), set.questions));
      assertAlive();
    }
  }
  const bm25 = wholePageBm25(set.pages);
  const baseline = await score('whole-page BM25, no sections (in process)', async (q) => bm25(q, 10).map((uid) => SITE + uid), set.questions);
  return { name: set.name, pages: set.pages.length, questions: set.questions.length, indexes, rows, baseline };
}

export async function runFaqEval(api: Target, dataDir: string, assertAlive: () => void, say: (m: string) => void) {
  const all = faqSets(dataDir);
  const sets: FaqSetResult[] = [];
  for (const set of all) sets.push(await runFaqSet(api, set, assertAlive, say));
  const { questions } = all[0];
  say(`asking ${questions.length} questions for summaries (default generator)`);
  const tool = (await sendJson<{ uid: string }>(api, 'POST', '/v1/admin/configurations', { variant: 'tool', name: 'faq summaries', indexes: [sets[0].indexes.after], result_count: 10 })).uid;
  const summaries = await scoreSummaries(api, tool, questions);
  return { sets, summaries };
}

export interface SummaryRow {
  asked: number;
  answered: number;
  noRelevantResults: number;
  errors: number;
  /** Summaries whose references include the answering page. */
  answerPageReferenced: number;
  /** Summaries passing the citation check: every [n] is a reference, every reference is cited, every cited sentence is in its reference. */
  citationsValid: number;
  failures: string[];
  latencyMs: number[];
}

const unescapeHtml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The citation check, from the outside: what a client can verify with the response alone. */
export function citationProblems(summaryHtml: string, references: { index: number; content: string }[]): string[] {
  const text = unescapeHtml(summaryHtml.replace(/^<p>|<\/p>$/g, ''));
  const problems: string[] = [];
  const cited = new Set<number>();
  // Extractive format: "Sentence. [1] Next sentence. [2]": each citation closes the text before it.
  let last = 0;
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    const n = Number(m[1]);
    const sentence = squash(text.slice(last, m.index));
    last = m.index! + m[0].length;
    const ref = references.find((r) => r.index === n);
    if (!ref) problems.push(`[${n}] has no reference`);
    else if (sentence && !squash(ref.content).includes(sentence)) problems.push(`sentence cited [${n}] is not in reference ${n}: "${sentence.slice(0, 80)}"`);
    cited.add(n);
  }
  for (const r of references) if (!cited.has(r.index)) problems.push(`reference ${r.index} is never cited`);
  if (cited.size === 0) problems.push('no citation');
  return problems;
}

async function scoreSummaries(api: Target, uid: string, questions: FaqQuestion[]): Promise<SummaryRow> {
  const row: SummaryRow = { asked: 0, answered: 0, noRelevantResults: 0, errors: 0, answerPageReferenced: 0, citationsValid: 0, failures: [], latencyMs: [] };
  await mapPool(questions, 4, async (q) => {
    row.asked++;
    const t0 = performance.now();
    const r = await send(api, 'GET', `/v1/tool/summary?${new URLSearchParams({ uid, query: q.question, preview: 'true' })}`);
    row.latencyMs.push(performance.now() - t0);
    if (r.status !== 200) {
      row.errors++;
      if (row.failures.length < 10) row.failures.push(`${q.id}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
      return;
    }
    const body = JSON.parse(r.body) as { status: string; summary: string; references: { index: number; url?: string; content: string }[] };
    if (body.status !== 'success') {
      row.noRelevantResults++;
      return;
    }
    row.answered++;
    if (q.answer_page && body.references.some((ref) => pageOf(ref.url) === q.answer_page)) row.answerPageReferenced++;
    const problems = citationProblems(body.summary, body.references);
    if (problems.length === 0) row.citationsValid++;
    else if (row.failures.length < 10) row.failures.push(`${q.id}: ${problems.join('; ')}`);
  });
  return row;
}

export function summaryTable(s: SummaryRow): string {
  const lat = [...s.latencyMs].sort((a, b) => a - b);
  return markdownTable([
    ['summaries asked', 'success', 'no-relevant-results', 'errors', 'answer page among references', 'citation check passed', 'latency p50 ms'],
    [String(s.asked), String(s.answered), String(s.noRelevantResults), String(s.errors), `${pct(s.answerPageReferenced, s.asked)} (${s.answerPageReferenced}/${s.asked})`, `${pct(s.citationsValid, s.answered)} (${s.citationsValid}/${s.answered})`, String(round(lat[Math.floor(lat.length / 2)] ?? 0, 1))],
  ]);
}

async function score(ranking: string, search: (query: string) => Promise<string[] | null>, questions: FaqQuestion[]): Promise<FaqRow> {
  const row: FaqRow = { ranking, answered: 0, top1: 0, reciprocalRank: 0, sectionTop5: 0, top5: 0, top10: 0, supportQuestions: 0, supportTop5: 0, supportTop10: 0, errors: 0 };
  await mapPool(questions, 4, async (q) => {
    const urls = await search(q.question);
    if (!urls) {
      row.errors++;
      return;
    }
    const ranked = urls.map((u) => pageOf(u));
    const within = (k: number, page: string) => ranked.slice(0, k).includes(page);
    if (q.answer_page) {
      row.answered++;
      const rank = ranked.indexOf(q.answer_page);
      if (rank === 0) row.top1++;
      if (rank >= 0) row.reciprocalRank += 1 / (rank + 1);
      if (q.answer_anchor && urls.slice(0, 5).includes(`${SITE}${q.answer_page}#${encodeURIComponent(q.answer_anchor)}`)) row.sectionTop5++;
      if (within(5, q.answer_page)) row.top5++;
      if (within(10, q.answer_page)) row.top10++;
    }
    const support = q.supporting_pages ?? [];
    if (support.length) {
      row.supportQuestions++;
      if (support.some((p) => within(5, p))) row.supportTop5++;
      if (support.some((p) => within(10, p))) row.supportTop10++;
    }
  });
  return row;
}

const cells = (r: FaqRow) => [
  pct(r.top1, r.answered), String(round(r.reciprocalRank / (r.answered || 1), 3)), `${pct(r.top5, r.answered)} (${r.top5}/${r.answered})`, pct(r.top10, r.answered),
  pct(r.sectionTop5, r.answered), pct(r.supportTop5, r.supportQuestions), pct(r.supportTop10, r.supportQuestions), String(r.errors),
];

/** One row per ranking, each cell "before → after"; the whole-page baseline last (it has no sections). */
export function faqTable(rows: BeforeAfter<FaqRow[]>, baseline: FaqRow): string {
  return markdownTable([
    ['ranking (before → after)', 'answer page first', 'MRR', 'answer page in top 5', 'in top 10', 'answer section in top 5', 'a supporting page in top 5', 'in top 10', 'errors'],
    ...rows.after.map((a, i) => {
      const b = cells(rows.before[i]);
      return [a.ranking, ...cells(a).map((c, j) => change(b[j], c))];
    }),
    [baseline.ranking, ...cells(baseline).slice(0, 4), '—', ...cells(baseline).slice(5)],
  ]);
}
