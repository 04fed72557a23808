/**
 * `npm run bench:keyword`: the keyword leg's scoring in process, full DisMax against the pruned top-k
 * scoring the searches use. Two corpora:
 * - `search` (default): bench:search's synthetic corpus (title, body and the title again as the section
 *   heading, three fields as the search interface scores them), top `--k`.
 * - `capacity`: bench:capacity's SciFact-size pages (title and content), timed as content search scores
 *   them (title and content, the best 10 documents, each by its best section: one section a page here) and as the search interface's keyword leg does
 *   (title, content and the heading, the best 100). `--cache DIR` keeps the built index as a snapshot
 *   file there, so a million sections are built once.
 * Both use 2-word queries (one common word, one rarer) and check that pruned scoring gives the same top k
 * as full DisMax (on the first `--check` queries). Prints a table; writes bench-results/keyword.json.
 *
 *   --docs 100000  --queries 2000  --k 50  --rounds 5  --corpus search|capacity  --cache DIR  --check 200
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAnalyzer } from '../shared/search/analyzer/analyzer.js';
import { HEADING_FIELD } from '../shared/search/engine/index-state.js';
import { scoreDisMaxDense } from '../shared/search/rank/dismax.js';
import { InvertedIndex, type InvertedIndexSnapshot } from '../shared/search/rank/inverted-index.js';
import { topUnits } from '../shared/search/rank/top-units.js';
import { SnapshotReader, SnapshotWriter } from '../shared/search/snapshot/snapshot-codec.js';
import { CAPACITY_CORPUS_VERSION, capacityDoc, capacityVocabulary } from './bench/capacity-corpus.js';
import { writeResults } from './bench/processes.js';
import { makeDoc, makeQueries, makeVocabulary } from './bench/search-corpus.js';
import { distribution, markdownTable, round } from './bench/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench] ${m}`);
const { values } = parseArgs({
  options: { ...Object.fromEntries(['docs', 'queries', 'k', 'rounds', 'check', 'corpus', 'cache'].map((k) => [k, { type: 'string' as const }])) },
  strict: true,
});
const num = (k: string, d: number) => {
  const v = values[k] === undefined ? d : Number(values[k]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${k} must be a whole number >= 1`);
  return v;
};
const corpus = values.corpus ?? 'search';
if (corpus !== 'search' && corpus !== 'capacity') throw new Error('--corpus must be search or capacity');
const settings = { corpus, docs: num('docs', 100_000), queries: num('queries', 2000), k: num('k', 50), rounds: num('rounds', 5), check: num('check', 200) };

const analyzer = createAnalyzer('en');
const vocabulary = corpus === 'capacity' ? capacityVocabulary() : makeVocabulary(50_000, 1.0);
// The snapshot codec's format number of these cache files (not the engine's).
const CACHE_FORMAT = 1;
const cacheFile = values.cache ? path.join(values.cache, `keyword-${corpus}-v${CAPACITY_CORPUS_VERSION}-${settings.docs}.snapshot`) : null;
const pause = async () => {};

async function buildIndex(): Promise<InvertedIndex> {
  if (cacheFile && existsSync(cacheFile)) {
    say(`reading the index from ${cacheFile}`);
    const r = await SnapshotReader.open(readFileSync(cacheFile), CACHE_FORMAT, pause);
    return InvertedIndex.restore(r, r.body as InvertedIndexSnapshot);
  }
  say(`building an index of ${settings.docs} documents (${corpus} corpus)`);
  const index = new InvertedIndex();
  for (let i = 0; i < settings.docs; i++) {
    if (corpus === 'capacity') {
      const d = capacityDoc(vocabulary, i);
      index.add({ content: analyzer.analyze(d.content.slice(3, -4)), title: analyzer.analyze(d.title) });
    } else {
      const { fields } = makeDoc(vocabulary, i);
      const title = analyzer.analyze(String(fields.title));
      index.add({ title, body: analyzer.analyze(String(fields.body)), [HEADING_FIELD]: title });
    }
  }
  if (cacheFile) {
    const w = new SnapshotWriter();
    const head = await index.snapshot(w, pause);
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, Buffer.concat(await w.encode(CACHE_FORMAT, head, pause)));
    say(`index kept in ${cacheFile}`);
  }
  return index;
}

const index = await buildIndex();
const queries = makeQueries(vocabulary, settings.queries).map((q) => analyzer.analyze(q.terms.join(' ')));
const kinds = corpus === 'capacity'
  ? [
    { name: 'content search (title, content; best 10 documents)', fields: [{ field: 'title', boost: 1 }, { field: 'content', boost: 1 }], k: 10, documentOf: (u: number) => u },
    { name: 'search interface keyword leg (title, content, heading; best 100)', fields: [{ field: 'title', boost: 1 }, { field: 'content', boost: 1 }, { field: HEADING_FIELD, boost: 1 }], k: 100 },
  ]
  : [{ name: 'search interface keyword leg', fields: [{ field: 'title', boost: 1 }, { field: 'body', boost: 1 }, { field: HEADING_FIELD, boost: 1 }], k: settings.k, documentOf: undefined }];

const run = (fields: { field: string; boost: number }[], k: number, topK: number | undefined, n: number, documentOf?: (unit: number) => number) => {
  const perQuery: number[] = [];
  let scored = 0;
  const tops: number[][] = [];
  for (const terms of queries.slice(0, n)) {
    const t0 = performance.now();
    const { units, scores } = scoreDisMaxDense(index, terms, { fields, topK, documentOf });
    const top = topUnits(units, scores, k);
    perQuery.push(performance.now() - t0);
    scored += units.length;
    tops.push(top.map((u) => scores[u]));
  }
  return { perQuery, scoredPerQuery: scored / n, tops };
};

const rows = [['scoring', 'sections kept per query', 'mean ms', 'p50 ms', 'p95 ms', 'p99 ms', 'vs full (mean)']];
const results: Record<string, unknown>[] = [];
let mismatches = 0;
for (const kind of kinds) {
  // Full DisMax only on the checked queries at large sizes: it walks every posting.
  const n = Math.min(settings.check, queries.length);
  const check = { full: run(kind.fields, kind.k, undefined, n), pruned: run(kind.fields, kind.k, kind.k, n, kind.documentOf) };
  let differ = 0;
  check.full.tops.forEach((scores, q) => {
    const other = check.pruned.tops[q];
    if (scores.length !== other.length || scores.some((s, i) => Math.abs(s - other[i]) > 1e-9 * Math.max(1, s))) differ++;
  });
  mismatches += differ;
  const full: number[] = [];
  const pruned: number[] = [];
  let kept = 0;
  // Alternating rounds, so a noisy neighbour slows both alike.
  for (let r = 0; r < settings.rounds; r++) {
    full.push(...run(kind.fields, kind.k, undefined, n).perQuery);
    const p = run(kind.fields, kind.k, kind.k, queries.length, kind.documentOf);
    pruned.push(...p.perQuery);
    kept = p.scoredPerQuery;
  }
  const df = distribution(full);
  const dp = distribution(pruned);
  rows.push(
    [`${kind.name}: full DisMax (${n} queries)`, String(Math.round(check.full.scoredPerQuery)), String(round(df.mean, 3)), String(round(df.p50, 3)), String(round(df.p95, 3)), String(round(df.p99, 3)), '1x (baseline)'],
    [`${kind.name}: pruned`, String(Math.round(kept)), String(round(dp.mean, 3)), String(round(dp.p50, 3)), String(round(dp.p95, 3)), String(round(dp.p99, 3)), `${round(dp.mean / df.mean, 3)}x`],
  );
  results.push({ kind: kind.name, k: kind.k, full: df, pruned: dp, scoredPerQuery: kept, differ });
}
console.log(`\n${markdownTable(rows)}\n`);
console.log(`${settings.docs} documents (${corpus}), ${queries.length} queries x ${settings.rounds} rounds; queries whose top-k scores differ from full DisMax: ${mismatches}\n`);
writeResults(root, 'keyword.json', {
  timestamp: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, settings, results, mismatches,
}, say);
if (mismatches > 0) process.exitCode = 1;
