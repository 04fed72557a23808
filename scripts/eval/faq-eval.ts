import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { send, sendJson, type Target } from '../bench/http-load.js';
import { markdownTable, round } from '../bench/stats.js';
import { loadFaqQuestions, loadPythonDocs, type FaqQuestion, type Page } from './python-docs.js';
import { mapPool, waitIndexed } from './quarry-eval-client.js';

/**
 * `npm run eval -- --mode faq`: the search interface on the Python docs. Pushes the 530 pages through
 * document push, then asks the 175 FAQ questions through GET /v1/ui/search (preview, so nothing is
 * learnt) with the keyword leg alone, the vector leg alone and each fusion, and counts how often the
 * answering page is among the top 5 and top 10 paragraph results, and (harder) how often one of the
 * pages the answer links to is. (scripts/eval/hybrid-beir-eval.ts repeats the comparison on SciFact.)
 */

const SITE = 'https://docs.python.org/3.11/';
/** Fusions compared: reciprocal-rank and weighted scores, each with these keyword weights. */
const WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9];

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

export interface Ranker {
  name: string;
  uid: string;
  retrieval: 'hybrid' | 'keyword' | 'vector';
}

/**
 * One UI configuration per fusion setting over `index`, and the two legs alone (asked through the
 * `retrieval` parameter of a configuration).
 */
export async function createRankers(api: Target, index: string): Promise<Ranker[]> {
  const config = async (fusion: string, keywordWeight: number) =>
    (await sendJson<{ uid: string }>(api, 'POST', '/v1/admin/configurations', { variant: 'ui', name: `eval ${fusion} ${keywordWeight}`, indexes: [index], result_count: 10, fusion, keyword_weight: keywordWeight })).uid;
  const legs = await config('rrf', 0.5);
  const rankers: Ranker[] = [
    { name: 'keyword leg alone', uid: legs, retrieval: 'keyword' },
    { name: 'vector leg alone', uid: legs, retrieval: 'vector' },
  ];
  for (const fusion of ['rrf', 'weighted']) {
    for (const w of WEIGHTS) rankers.push({ name: `fused: ${fusion === 'rrf' ? 'reciprocal rank' : 'weighted scores'}, keyword ${w}`, uid: await config(fusion, w), retrieval: 'hybrid' });
  }
  return rankers;
}

/** The result urls of one preview search through GET /v1/ui/search, or null on an error status. */
export async function uiSearchUrls(api: Target, ranker: Ranker, query: string): Promise<string[] | null> {
  const qs = new URLSearchParams({ uid: ranker.uid, 'session-id': 'eval', query, preview: 'true', retrieval: ranker.retrieval });
  const r = await send(api, 'GET', `/v1/ui/search?${qs}`);
  if (r.status !== 200) return null;
  return (JSON.parse(r.body) as { results: { url?: string }[] }).results.map((x) => x.url ?? '');
}

/**
 * Pushes the pages into a new push index through PUT /v2 (source_url `site` + uid, so results name
 * their page) and waits until all are indexed.
 */
export async function pushPages(api: Target, index: string, pages: Pick<Page, 'uid' | 'title' | 'content'>[], assertAlive: () => void, say: (m: string) => void, site = SITE): Promise<void> {
  await sendJson(api, 'POST', '/v1/admin/indexes', { uid: index, language_code: 'en' }, [200, 201]);
  await mapPool(pages, 8, async (p) => {
    const r = await send(api, 'PUT', `/v2/indexes/${index}/documents/${encodeURIComponent(p.uid)}`, JSON.stringify({ title: p.title, content: p.content, source_url: site + p.uid }));
    if (r.status !== 204) throw new Error(`PUT ${p.uid} -> ${r.status}: ${r.body.slice(0, 300)}`);
  });
  await waitIndexed(api, index, pages.length, { assertAlive, onPoll: (p) => say(`  indexed ${p.indexed} of ${pages.length}`) });
}

/** The pushed page a result url names (its uid), or null for a url outside `site`. */
export const pageOf = (url: string | undefined, site = SITE) => (url?.startsWith(site) ? url.slice(site.length).replace(/#.*$/, '') : null);

export async function runFaqEval(api: Target, dataDir: string, assertAlive: () => void, say: (m: string) => void) {
  const pages = loadPythonDocs(join(dataDir, 'python-3.11.2-html.tar.gz'));
  const questions = loadFaqQuestions(join(dataDir, 'faq_questions.jsonl'));
  const index = `faq-${Date.now().toString(36)}`;
  say(`pushing ${pages.length} pages into ${index}`);
  await pushPages(api, index, pages, assertAlive, say);

  const rankers = await createRankers(api, index);

  const rows: FaqRow[] = [];
  for (const ranker of rankers) {
    say(`asking ${questions.length} questions: ${ranker.name}`);
    rows.push(await score(api, ranker, questions));
    assertAlive();
  }
  say(`asking ${questions.length} questions for summaries (default generator)`);
  const tool = (await sendJson<{ uid: string }>(api, 'POST', '/v1/admin/configurations', { variant: 'tool', name: 'faq summaries', indexes: [index], result_count: 10 })).uid;
  const summaries = await scoreSummaries(api, tool, questions);
  return { index, pages: pages.length, questions: questions.length, rows, summaries };
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

async function score(api: Target, ranker: Ranker, questions: FaqQuestion[]): Promise<FaqRow> {
  const row: FaqRow = { ranking: ranker.name, answered: 0, top1: 0, reciprocalRank: 0, sectionTop5: 0, top5: 0, top10: 0, supportQuestions: 0, supportTop5: 0, supportTop10: 0, errors: 0 };
  await mapPool(questions, 4, async (q) => {
    const urls = await uiSearchUrls(api, ranker, q.question);
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

const pct = (n: number, d: number) => (d ? `${round((100 * n) / d, 1)}%` : '—');

export function faqTable(rows: FaqRow[]): string {
  return markdownTable([
    ['ranking', 'answer page first', 'MRR', 'answer page in top 5', 'in top 10', 'answer section in top 5', 'a supporting page in top 5', 'in top 10', 'errors'],
    ...rows.map((r) => [r.ranking, pct(r.top1, r.answered), String(round(r.reciprocalRank / (r.answered || 1), 3)), `${pct(r.top5, r.answered)} (${r.top5}/${r.answered})`, pct(r.top10, r.answered), pct(r.sectionTop5, r.answered), pct(r.supportTop5, r.supportQuestions), pct(r.supportTop10, r.supportQuestions), String(r.errors)]),
  ]);
}
