/**
 * `npm run eval`: retrieval quality on a BEIR-format dataset, through Quarry's public HTTP interface.
 * Loads the corpus into a fresh index (content interface, API.md section C), waits until it is indexed,
 * runs every judged query through POST /v1/content/search for each boosting, and prints nDCG@10 and
 * Recall@100 (trec_eval definitions, see scripts/eval/metrics.ts). Writes bench-results/eval-<dataset>.json.
 *
 * Starts a private Redis, API and worker (removed at the end and on Ctrl-C) unless --url is given.
 * Options: see scripts/eval/args.ts (`npm run eval -- --help`).
 */
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { makeTarget, type Target } from './bench/http-load.js';
import { Cleanup, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { round } from './bench/stats.js';
import { parseEvalArgs, USAGE, type EvalSettings } from './eval/args.js';
import { loadDataset, type Dataset } from './eval/dataset.js';
import { evaluate } from './eval/metrics.js';
import { faqTable, runFaqEval, summaryTable } from './eval/faq-eval.js';
import { hybridBeirTable, runHybridBeirEval } from './eval/hybrid-beir-eval.js';
import { runStructureEval, structureTable } from './eval/structure-eval.js';
import { createContentIndex, pushCorpus, runQueries, waitIndexed } from './eval/quarry-eval-client.js';
import { boostingResult, resultsTable, type BoostingResult, type Timings } from './eval/report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[eval] ${m}`);

/** A fresh index uid: dataset name plus time, within the 64-character [A-Za-z0-9_-] rule. */
const indexUid = (ds: Dataset) => `eval-${ds.name.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40)}-${Date.now().toString(36)}`;

async function loadIndex(api: Target, ds: Dataset, settings: EvalSettings, index: string, assertAlive: () => void): Promise<Timings> {
  await createContentIndex(api, index, settings.language);
  say(`index ${index} (language ${settings.language}): pushing ${ds.corpus.length} documents, ${settings.concurrency} at a time`);
  const t0 = performance.now();
  const pushMs = await pushCorpus(api, index, ds, settings.concurrency, (n) => say(`  pushed ${n}`));
  const pushedAt = performance.now();
  say(`pushed in ${(pushMs / 1000).toFixed(1)} s; waiting until indexed`);
  await waitIndexed(api, index, ds.corpus.length, {
    assertAlive,
    onPoll: (p) => say(`  indexed ${p.indexed} of ${ds.corpus.length} (pending ${p.pending})`),
  });
  const done = performance.now();
  return {
    documents: ds.corpus.length,
    pushSeconds: round(pushMs / 1000, 1),
    indexSeconds: round((done - t0) / 1000, 1),
    indexAfterPushSeconds: round((done - pushedAt) / 1000, 1),
  };
}

async function main() {
  let settings: EvalSettings;
  try {
    settings = parseEvalArgs(process.argv.slice(2), root);
  } catch (err) {
    console.error(`[eval] ${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const cleanup = new Cleanup();
  cleanup.onSignals(say);

  let stack: Stack | undefined;
  if (settings.mode === 'faq' || settings.mode === 'structure') {
    try {
      await (settings.mode === 'faq' ? faqMode : structureMode)(settings, cleanup, (s) => (stack = s));
    } catch (err) {
      reportFailure(err, cleanup, stack, 'eval');
    } finally {
      await cleanup.run();
    }
    return;
  }
  try {
    const ds = loadDataset(settings.dataset, settings.split, (m) => say(`warning: ${m}`));
    say(`${ds.name}/${ds.split}: ${ds.corpus.length} documents, ${ds.queries.length} judged queries`);
    let baseUrl: string;
    let key: string;
    let assertAlive = () => {};
    if (settings.url) {
      baseUrl = settings.url;
      key = settings.key!;
      say(`using the running instance at ${baseUrl}`);
    } else {
      say('starting a private redis, API and worker');
      stack = await startStack(root, cleanup);
      baseUrl = stack.baseUrl;
      key = stack.masterKey;
      assertAlive = () => stack!.assertAlive();
    }
    const api = makeTarget(baseUrl, { 'x-api-key': key }, Math.max(settings.concurrency, 16));
    cleanup.add('close client sockets', () => api.agent.destroy());

    const index = indexUid(ds);
    const timings = await loadIndex(api, ds, settings, index, assertAlive);
    say(`indexed in ${timings.indexSeconds} s from the first push (${timings.indexAfterPushSeconds} s after the last)`);

    const results: BoostingResult[] = [];
    for (const boosting of settings.boostings) {
      say(`searching ${ds.queries.length} queries, boosting "${boosting}"${settings.bm25 ? `, bm25 ${JSON.stringify(settings.bm25)}` : ''}`);
      const search = await runQueries(api, index, ds, boosting, settings.bm25, settings.concurrency);
      if (search.errors) say(`warning: ${search.errors} searches failed (scored as 0), e.g. ${search.errorSamples[0]}`);
      results.push(boostingResult(settings, boosting, ds.queries.length, search, evaluate(search.run, ds.qrels), ds.name));
      assertAlive();
    }

    console.log(`\n${resultsTable(ds.name, ds.split, timings, results)}\n`);
    if (stack) {
      for (const c of [stack.api, stack.worker]) {
        if (c.lines.length) say(`${c.name} printed ${c.lines.length} line(s) at warn or above; first: ${c.lines[0].slice(0, 300)}`);
      }
    }
    const out = {
      timestamp: new Date().toISOString(),
      dataset: { name: ds.name, dir: ds.dir, split: ds.split, documents: ds.corpus.length, queries: ds.queries.length, judgedQueries: ds.qrels.size },
      settings: {
        language: settings.language, boostings: settings.boostings, bm25Sent: settings.bm25, concurrency: settings.concurrency,
        instance: settings.url ?? 'private stack (redis, API, one worker; default settings)', index,
        searchBody: { index_uid: index, query: '<query text>', boosting: '<boosting>', filter: '', fields: [], limit: 100, ...(settings.bm25 && { bm25: settings.bm25 }) },
        metrics: 'trec_eval ndcg_cut.10 and recall.100; mean over queries with >= 1 relevant document; repeated uids count once',
      },
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      timings,
      results,
    };
    writeResults(root, `eval-${ds.name}.json`, out, say);
  } catch (err) {
    reportFailure(err, cleanup, stack, 'eval');
  } finally {
    await cleanup.run();
  }
}

/**
 * A private stack for the search-interface modes, and a client of it; or the running instance of
 * `--url` (started with QUARRY_RATE_LIMIT_CLIENT and QUARRY_RATE_LIMIT_UID raised: thousands of searches
 * come from one address), e.g. one in the scale-out mode.
 */
async function uiStack(settings: EvalSettings, cleanup: Cleanup, started: (s: Stack) => void) {
  let baseUrl: string;
  let key: string;
  let assertAlive = () => {};
  if (settings.url) {
    [baseUrl, key] = [settings.url, settings.key!];
    say(`using the running instance at ${baseUrl}`);
  } else {
    say('starting a private redis, API and worker');
    // Rate limits guard a public search box; the evaluation sends thousands of searches from one address.
    const stack = await startStack(root, cleanup, { QUARRY_RATE_LIMIT_CLIENT: '1000000/1', QUARRY_RATE_LIMIT_UID: '1000000/1' });
    started(stack);
    [baseUrl, key, assertAlive] = [stack.baseUrl, stack.masterKey, () => stack.assertAlive()];
  }
  const api = makeTarget(baseUrl, { 'x-api-key': key }, 16);
  cleanup.add('close client sockets', () => api.agent.destroy());
  return { assertAlive, api };
}

/** The search interface on the Python library reference's API entries: pages of dl/dt items, not headings. */
async function structureMode(settings: EvalSettings, cleanup: Cleanup, started: (s: Stack) => void) {
  const { assertAlive, api } = await uiStack(settings, cleanup, started);
  const r = await runStructureEval(api, settings.dataset, assertAlive, say);
  console.log(`\nPython library reference API entries: ${r.queries} entries (first sentence of the description as the query) over ${r.pages} pages pushed through /v2, asked through GET /v1/ui/search (preview); before: sections at h1–h6 only, after: also at anchored items\n`);
  console.log(`${structureTable(r.rows, r.baseline)}\n`);
  writeResults(root, 'eval-structure.json', { timestamp: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, ...r }, say);
}

/** The search interface on the Python docs FAQ, in two page shapes: keyword leg, vector leg and fusions side by side. */
async function faqMode(settings: EvalSettings, cleanup: Cleanup, started: (s: Stack) => void) {
  const { assertAlive, api } = await uiStack(settings, cleanup, started);
  const faq = await runFaqEval(api, settings.dataset, assertAlive, say);
  for (const set of faq.sets) {
    console.log(`\n${set.name}: ${set.questions} questions over ${set.pages} pages pushed through /v2, asked through GET /v1/ui/search (preview); before: sections at h1–h6 only, after: also at anchored items\n`);
    console.log(`${faqTable(set.rows, set.baseline)}\n`);
  }
  console.log('Reference (../shared/data/README.md), Lucene 8.7 BM25 over whole pages of the python-docs FAQ: answer page in top 5 96.6%, top 10 98.9%; a supporting page in top 5 19.5%, top 10 34.5%.\n');
  const ds = loadDataset(join(root, '../shared/data/scifact'), 'dev', (m) => say(`warning: ${m}`));
  const beir = await runHybridBeirEval(api, ds, assertAlive, say);
  console.log(`The same rankings on ${ds.name}/${ds.split}: ${beir.documents} documents pushed through /v2, ${beir.queries} judged queries through GET /v1/ui/search (preview)\n`);
  console.log(`${hybridBeirTable(beir.rows)}\n`);
  console.log(`Summaries of the python-docs FAQ (GET /v1/tool/summary, preview, offline extractive generator unless QUARRY_LLM_* says otherwise):\n\n${summaryTable(faq.summaries)}\n`);
  if (faq.summaries.failures.length) say(`summary problems (first ${faq.summaries.failures.length}):\n  ${faq.summaries.failures.join('\n  ')}`);
  writeResults(root, 'eval-faq.json', { timestamp: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, ...faq, beir }, say);
}

await main();
