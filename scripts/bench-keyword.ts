/**
 * `npm run bench:keyword`: the keyword leg's scoring in process, full DisMax against the pruned top-k
 * scoring the search box uses, on the synthetic corpus of bench:search (title, body and the title again
 * as the section heading, three fields as the search box scores them) and its 2-word queries (one
 * common word, one rarer). Checks that both give the same top k. Prints a table; writes
 * bench-results/keyword.json.
 *
 *   --docs 100000  --queries 2000  --k 50  --rounds 5
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAnalyzer } from '../shared/search/analyzer/analyzer.js';
import { HEADING_FIELD } from '../shared/search/engine/index-state.js';
import { scoreDisMaxDense } from '../shared/search/rank/dismax.js';
import { InvertedIndex } from '../shared/search/rank/inverted-index.js';
import { topUnits } from '../shared/search/rank/top-units.js';
import { writeResults } from './bench/processes.js';
import { makeDoc, makeQueries, makeVocabulary } from './bench/search-corpus.js';
import { distribution, markdownTable, round } from './bench/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench] ${m}`);
const { values } = parseArgs({ options: Object.fromEntries(['docs', 'queries', 'k', 'rounds'].map((k) => [k, { type: 'string' as const }])), strict: true });
const num = (k: string, d: number) => {
  const v = values[k] === undefined ? d : Number(values[k]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${k} must be a whole number >= 1`);
  return v;
};
const settings = { docs: num('docs', 100_000), queries: num('queries', 2000), k: num('k', 50), rounds: num('rounds', 5) };

say(`building an index of ${settings.docs} documents`);
const vocabulary = makeVocabulary(50_000, 1.0);
const analyzer = createAnalyzer('en');
const index = new InvertedIndex();
for (let i = 0; i < settings.docs; i++) {
  const { fields } = makeDoc(vocabulary, i);
  const title = analyzer.analyze(String(fields.title));
  index.add({ title, body: analyzer.analyze(String(fields.body)), [HEADING_FIELD]: title });
}
const queries = makeQueries(vocabulary, settings.queries).map((q) => analyzer.analyze(q.terms.join(' ')));
const fields = [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }, { field: HEADING_FIELD, boost: 1 }];

const run = (topK: number | undefined) => {
  const perQuery: number[] = [];
  let scored = 0;
  const tops: number[][] = [];
  for (const terms of queries) {
    const t0 = performance.now();
    const { units, scores } = scoreDisMaxDense(index, terms, { fields, topK });
    const top = topUnits(units, scores, settings.k);
    perQuery.push(performance.now() - t0);
    scored += units.length;
    tops.push(top.map((u) => scores[u]));
  }
  return { perQuery, scoredPerQuery: scored / queries.length, tops };
};

// Alternating rounds, so a noisy neighbour slows both alike.
const full: number[] = [];
const pruned: number[] = [];
const check = { full: run(undefined), pruned: run(settings.k) };
for (let r = 0; r < settings.rounds; r++) {
  full.push(...run(undefined).perQuery);
  pruned.push(...run(settings.k).perQuery);
}
let mismatches = 0;
check.full.tops.forEach((scores, q) => {
  const other = check.pruned.tops[q];
  if (scores.length !== other.length || scores.some((s, i) => Math.abs(s - other[i]) > 1e-9 * Math.max(1, s))) mismatches++;
});
const df = distribution(full);
const dp = distribution(pruned);
const rows = [
  ['scoring', 'sections kept per query', 'mean ms', 'p50 ms', 'p99 ms', 'vs full (mean)'],
  ['full DisMax (content interface)', String(Math.round(check.full.scoredPerQuery)), String(round(df.mean, 3)), String(round(df.p50, 3)), String(round(df.p99, 3)), '1x (baseline)'],
  [`pruned to the top ${settings.k} (search box)`, String(Math.round(check.pruned.scoredPerQuery)), String(round(dp.mean, 3)), String(round(dp.p50, 3)), String(round(dp.p99, 3)), `${round(dp.mean / df.mean, 2)}x`],
];
console.log(`\n${markdownTable(rows)}\n`);
console.log(`${settings.docs} documents, ${queries.length} queries x ${settings.rounds} rounds, top ${settings.k}; queries whose top-${settings.k} scores differ: ${mismatches}\n`);
writeResults(root, 'keyword.json', {
  timestamp: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, settings,
  full: { ...df, scoredPerQuery: rows[1][1] }, pruned: { ...dp, scoredPerQuery: rows[2][1] }, ratio: dp.mean / df.mean, mismatches,
}, say);
if (mismatches > 0) process.exitCode = 1;
