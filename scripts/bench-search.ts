/**
 * `npm run bench:search`: content search latency and throughput on a synthetic Zipf corpus, on a
 * private stack (Redis, API, one worker) started and removed here, next to the raw FTS5 engine on
 * the same data. Prints a table; writes bench-results/search.json.
 *
 *   --docs 100000       documents to generate and load
 *   --duration 10       seconds per measured run (closed loop)
 *   --queries 2000      size of the fixed query list
 *   --warmup 200        warm-up queries per kind
 *   --concurrency 1,16  closed-loop concurrencies
 *   --load-timeout 900  seconds allowed for push + indexing (then continues with what is indexed)
 *   --vocab 50000  --zipf 1.0  --seed 7
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DbProbe } from './bench/db-probe.js';
import { makeTarget } from './bench/http-load.js';
import { Cleanup, cpuMeter, machineInfo, processOutput, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { makeQueries, makeVocabulary } from './bench/search-corpus.js';
import {
  BOOSTING, FILTER, SEARCH_SCHEMA, createSearchIndex, indexSize, loadCorpus, rawRun, serviceRun, warmup,
  type Kind, type RunFigures, type WarmupFigures,
} from './bench/search-steps.js';
import { markdownTable } from './bench/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench] ${m}`);
const INDEX = 'bench-search';

function settingsFromArgs() {
  const { values } = parseArgs({
    options: Object.fromEntries(
      ['docs', 'duration', 'queries', 'warmup', 'concurrency', 'load-timeout', 'vocab', 'zipf', 'seed', 'push-concurrency'].map((k) => [k, { type: 'string' as const }]),
    ),
    strict: true,
  });
  const num = (k: string, d: number, min: number) => {
    const v = values[k] === undefined ? d : Number(values[k]);
    if (!Number.isFinite(v) || v < min) throw new Error(`--${k} must be a number >= ${min}`);
    return v;
  };
  const conc = (values.concurrency ?? '1,16').split(',').map(Number);
  if (!conc.length || conc.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--concurrency takes a list such as 1,16');
  return {
    docs: num('docs', 100_000, 1),
    durationS: num('duration', 10, 1),
    queries: num('queries', 2000, 1),
    warmup: num('warmup', 200, 0),
    concurrency: conc,
    loadTimeoutS: num('load-timeout', 900, 10),
    vocab: num('vocab', 50_000, 20_000),
    zipf: num('zipf', 1.0, 0),
    seed: num('seed', 7, 0),
    pushConcurrency: num('push-concurrency', 32, 1),
  };
}

const TARGET_P50 = 5;
const TARGET_P99 = 25;
const TARGET_RATIO = 3;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
const cpu = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${v}%`).join(', ');

async function main() {
  const settings = settingsFromArgs();
  const cleanup = new Cleanup();
  cleanup.onSignals(say);

  let stack: Stack | undefined;
  try {
    const vocab = makeVocabulary(settings.vocab, settings.zipf);
    const queries = makeQueries(vocab, settings.queries, settings.seed);
    const loadAvg = os.loadavg();
    const idle = cpuMeter({});
    await new Promise((r) => setTimeout(r, 2000));
    const idleCpu = idle();
    if (idleCpu.others > 25) say(`warning: the machine is already busy (${idleCpu.others}% of one core used by other processes); figures will be noisy`);

    say('starting redis, API and worker');
    stack = await startStack(root, cleanup);
    const maxConc = Math.max(...settings.concurrency, settings.pushConcurrency);
    const api = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey }, Math.max(maxConc, 64));
    cleanup.add('close client sockets', () => api.agent.destroy());
    await createSearchIndex(api, INDEX);

    say(`step 2: loading ${settings.docs} documents (concurrency ${settings.pushConcurrency}, up to ${settings.loadTimeoutS} s)`);
    const load = await loadCorpus(api, INDEX, vocab, settings.docs, {
      concurrency: settings.pushConcurrency, timeoutMs: settings.loadTimeoutS * 1000, stack, say,
    });
    say(`load: ${load.indexedSeconds} s to ${load.progress.indexed} indexed (${load.indexedDocsPerSecond} docs/s)${load.complete ? '' : ' -- INCOMPLETE'}`);

    const probe = new DbProbe(stack.dataDir);
    cleanup.add('close database', () => probe.close());
    const indexId = probe.indexId(INDEX);
    const size = indexSize(probe, indexId);

    say(`step 3: warm-up, ${settings.warmup} queries per kind`);
    const kinds: Kind[] = ['plain', 'filtered'];
    const warm: Record<string, WarmupFigures> = {};
    for (const k of kinds) warm[k] = await warmup(api, INDEX, queries, k, settings.warmup);
    for (const k of kinds) {
      const w = warm[k];
      say(`  ${k}: ${w.meanResults} results/query, ${Math.round(w.emptyShare * 100)}% empty, ${w.errors} errors${k === 'filtered' ? `, ${w.priceOutOfRange} results with price outside the range` : ''}`);
    }

    const runs: RunFigures[] = [];
    let offset = settings.warmup;
    for (const c of settings.concurrency) {
      for (const k of kinds) {
        say(`step 4: ${k}, concurrency ${c}, ${settings.durationS} s`);
        const r = await serviceRun(api, stack, INDEX, queries, k, c, settings.durationS * 1000, offset);
        offset += 397; // a different (fixed) starting point per run
        if (r.errors) say(`  ${r.errors} errors, e.g. ${r.errorSamples[0]}`);
        runs.push(r);
      }
    }

    say(`step 5: raw FTS5 (fts_${indexId}), concurrency 1, ${settings.durationS} s`);
    const raw = rawRun(probe, indexId, queries, settings.durationS * 1000, settings.warmup);

    const c1 = (k: Kind) => runs.find((r) => r.kind === k && r.concurrency === 1);
    const ratios = Object.fromEntries(kinds.map((k) => {
      const r = c1(k);
      return [k, r ? Number((r.latencyMs.p50 / raw.latencyMs.p50).toFixed(2)) : null];
    })) as Record<Kind, number | null>;

    const rows: string[][] = [['run', 'concurrency', 'requests', 'errors', 'QPS', 'p50 ms', 'p99 ms', 'targets (c=1)', 'CPU (% of one core)']];
    for (const r of runs) {
      const targets = r.concurrency === 1
        ? `p50 <= ${TARGET_P50} (${verdict(r.latencyMs.p50 <= TARGET_P50)}), p99 <= ${TARGET_P99} (${verdict(r.latencyMs.p99 <= TARGET_P99)}), ${ratios[r.kind as Kind]}x raw <= ${TARGET_RATIO}x (${verdict((ratios[r.kind as Kind] ?? Infinity) <= TARGET_RATIO)})`
        : '';
      rows.push([`service ${r.kind}`, String(r.concurrency), String(r.requests), String(r.errors), String(r.qps), String(r.latencyMs.p50), String(r.latencyMs.p99), targets, cpu(r.cpuPct)]);
    }
    rows.push(['raw FTS5 bm25 "t1" OR "t2"', '1', String(raw.requests), '0', String(raw.qps), String(raw.latencyMs.p50), String(raw.latencyMs.p99), `baseline (${raw.meanRows} rows/query)`, cpu(raw.cpuPct)]);

    const info: string[][] = [
      ['figure', 'value'],
      ['documents (indexed / requested)', `${load.progress.indexed} / ${settings.docs}${load.complete ? '' : ' (INCOMPLETE)'}`],
      ['push time (docs/s accepted)', `${load.pushSeconds} s (${load.pushDocsPerSecond} docs/s, ${load.retries} retries)`],
      ['first push -> all indexed (docs/s)', `${load.indexedSeconds} s (${load.indexedDocsPerSecond} docs/s)`],
      ['FTS5 rows (sections)', String(size.ftsRows)],
      ['warm-up plain: results/query, empty', `${warm.plain.meanResults}, ${Math.round(warm.plain.emptyShare * 100)}%`],
      ['warm-up filtered: results/query, empty, price out of range', `${warm.filtered.meanResults}, ${Math.round(warm.filtered.emptyShare * 100)}%, ${warm.filtered.priceOutOfRange}`],
      ['service p50 / raw p50 (c=1)', `plain ${ratios.plain}x, filtered ${ratios.filtered}x (target <= ${TARGET_RATIO}x)`],
      ['machine', `${os.cpus().length} cpus, ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; CPU before start: others ${idleCpu.others}%`],
    ];
    console.log(`\n${markdownTable(rows)}\n\n${markdownTable(info)}\n`);

    const output = processOutput(stack, say);
    const out = {
      timestamp: new Date().toISOString(),
      machine: machineInfo(loadAvg, idleCpu),
      settings: {
        ...settings, schema: SEARCH_SCHEMA, language: 'en', boosting: BOOSTING, filter: FILTER, limit: 10, fields: ['price'],
        queryMix: 'one term Zipf-drawn from ranks [0,1000), one from [1000,20000)', workerProcesses: 1,
        loadGenerator: 'node:http keep-alive (in the bench process)', rawEngine: 'better-sqlite3 read-only in the bench process, unicode61 raw text',
        targets: { p50Ms: TARGET_P50, p99Ms: TARGET_P99, ratioToRaw: TARGET_RATIO },
      },
      results: { load, indexId, ...size, warmup: warm, runs, raw, ratioP50ToRaw: ratios, sampleQueries: queries.slice(0, 10).map((q) => q.terms.join(' ')) },
      processOutput: output,
    };
    writeResults(root, 'search.json', out, say);
  } catch (err) {
    reportFailure(err, cleanup, stack);
  } finally {
    await cleanup.run();
  }
}

await main();
