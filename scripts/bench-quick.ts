/**
 * `npm run bench:quick`: the speed budgets of issue 19 in about a minute and a half, to run on every
 * change to the push route, the pipeline or search. On one private stack (Redis, the API processes,
 * a worker): content search (plain and filtered) and the search interface (hybrid) at concurrency 1
 * and 16 on a small corpus, then on the same index grown to `growth` times that; then a short push
 * check (accepted single PUTs against a bare Express route, batch indexing, 204 -> searchable at a
 * paced rate). Prints the runs and the budgets, met or NOT met; writes bench-results/quick.json.
 * The steps are bench:search's and bench:push's; their budgets are set for 100k documents, and are
 * printed as they are at the quick sizes. Before resolving a search change, run bench:search at 100k.
 *
 *   --small 1000   --growth 10      corpus sizes: small, then small x growth (same index, grown)
 *   --duration 2   --warmup 20      seconds per search run; sequential warm-up queries per kind
 *   --push-seconds 3  --rate 200  --paced-seconds 5  --batch-docs 3000    the push check (batch: the first
 *                                                                          3,000 SciFact documents)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSciFact } from './bench/corpus.js';
import { DbProbe } from './bench/db-probe.js';
import { makeTarget, type Target } from './bench/http-load.js';
import { Cleanup, apiPids, cpuMeter, machineInfo, processOutput, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { QUICK_BUDGETS, runRows, verdicts, type CorpusRuns, type PushFigures } from './bench/quick-budgets.js';
import { makeQueries, makeVocabulary, type Query } from './bench/search-corpus.js';
import { perDocumentText } from './bench/report.js';
import { cpuText } from './bench/search-report.js';
import { createSearchIndex, loadCorpus, serviceRun, warmup, type Kind, type LoadFigures, type RunFigures } from './bench/search-steps.js';
import { memorySnapshot, probeImport } from './bench/scale-memory-probe.js';
import { markdownTable } from './bench/stats.js';
import { acceptedUpserts, batchIndexing, pacedLatency, type Ctx, type Settings as PushSettings } from './bench/steps.js';
import { SearchTally, UI_RATE_LIMITS, createUiConfiguration, uiRun, uiWarmup } from './bench/ui-steps.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[quick] ${m}`);
const INDEX = 'bench-quick';
const KINDS: Kind[] = ['plain', 'filtered'];
const CONCURRENCY = [1, 16];
const SESSIONS = 1000;
const WALL_BUDGET_S = 90;

function settingsFromArgs() {
  const names = ['small', 'growth', 'duration', 'warmup', 'push-seconds', 'rate', 'paced-seconds', 'batch-docs'];
  const { values } = parseArgs({ options: Object.fromEntries(names.map((k) => [k, { type: 'string' as const }])), strict: true });
  const num = (k: string, d: number, min: number) => {
    const v = values[k] === undefined ? d : Number(values[k]);
    if (!Number.isFinite(v) || v < min) throw new Error(`--${k} must be a number >= ${min}`);
    return v;
  };
  return {
    small: Math.floor(num('small', 1000, 10)),
    growth: num('growth', 10, 1),
    durationS: num('duration', 2, 0.5),
    warmup: Math.floor(num('warmup', 20, 1)),
    pushSeconds: num('push-seconds', 3, 1),
    rate: num('rate', 200, 1),
    pacedSeconds: num('paced-seconds', 5, 1),
    batchDocs: Math.floor(num('batch-docs', 3000, 100)),
  };
}
type Settings = ReturnType<typeof settingsFromArgs>;

/** Warm-up, then every kind at every concurrency on the index as it is now. */
async function searchRuns(api: Target, ui: Target, stack: Stack, uiUid: string, queries: Query[], s: Settings, tally: SearchTally, offset: number) {
  for (const k of KINDS) await warmup(api, INDEX, queries, k, s.warmup);
  await uiWarmup(ui, uiUid, queries, s.warmup, { sessions: SESSIONS, legSample: 0, tally });
  const runs: RunFigures[] = [];
  for (const c of CONCURRENCY) {
    for (const k of [...KINDS, 'ui'] as const) {
      const durationMs = s.durationS * 1000;
      const r = k === 'ui'
        ? await uiRun(ui, stack, uiUid, queries, { concurrency: c, durationMs, offset, sessions: SESSIONS, tally })
        : await serviceRun(api, stack, INDEX, queries, k, c, durationMs, offset);
      offset += 397;
      if (r.errors) say(`  ${k} c=${c}: ${r.errors} errors, e.g. ${r.errorSamples[0]}`);
      runs.push(r);
    }
  }
  return runs;
}

interface ApiMemory {
  totalRssMb: number;
  /** The started process first (with several, the cluster primary: connections and the SQLite commit thread). */
  processes: { pid: number; rssMb: number; heapUsedMb: number }[];
}

/** Resident memory of every API process after a full GC. */
async function apiMemoryOf(stack: Stack, probeDir: string): Promise<ApiMemory> {
  const mb = (b: number) => Math.round(b / 2 ** 20);
  const processes = [];
  for (const pid of apiPids(stack)) {
    const m = await memorySnapshot(pid, probeDir, { name: `api ${pid}`, died: () => stack.api.unexpectedExit });
    processes.push({ pid, rssMb: mb(m.vmRss), heapUsedMb: mb(m.heapUsed) });
  }
  return { totalRssMb: processes.reduce((sum, p) => sum + p.rssMb, 0), processes };
}

async function main() {
  const started = performance.now();
  const s = settingsFromArgs();
  const cleanup = new Cleanup();
  cleanup.onSignals(say);
  let stack: Stack | undefined;
  try {
    const loadAvg = os.loadavg();
    const idle = cpuMeter({});
    await new Promise((r) => setTimeout(r, 1000));
    const idleCpu = idle();
    if (idleCpu.others > 25) say(`warning: the machine is already busy (${idleCpu.others}% of one core used by other processes); figures will be noisy`);
    const vocab = makeVocabulary(50_000, 1.0);
    const queries = makeQueries(vocab, 2000, 7);

    // The service's processes answer SIGUSR2 with their memory after a full GC (scale-memory-probe.ts).
    const probeDir = mkdtempSync(join(tmpdir(), 'quarry-quick-memory-'));
    cleanup.add('remove memory snapshots', () => rmSync(probeDir, { recursive: true, force: true }));
    process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --expose-gc --import ${probeImport}`;
    say('starting redis, API and worker');
    stack = await startStack(root, cleanup, { ...UI_RATE_LIMITS, BENCH_MEMORY_PROBE_DIR: probeDir });
    const api = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey }, 64);
    const ui = makeTarget(stack.baseUrl, {}, Math.max(...CONCURRENCY));
    cleanup.add('close client sockets', () => {
      api.agent.destroy();
      ui.agent.destroy();
    });
    await createSearchIndex(api, INDEX);
    const uiUid = (await createUiConfiguration(api, INDEX)).uid;
    const tally = new SearchTally();

    const sizes = [s.small, Math.round(s.small * s.growth)];
    const corpora: CorpusRuns[] = [];
    const loads: LoadFigures[] = [];
    const apiMemory: Record<number, ApiMemory> = {};
    for (const [i, size] of sizes.entries()) {
      say(`loading documents ${i ? sizes[i - 1] : 0}..${size - 1}`);
      const load = await loadCorpus(api, INDEX, vocab, size, { concurrency: 32, timeoutMs: 120_000, stack, say, from: i ? sizes[i - 1] : 0 });
      loads.push(load);
      if (!load.complete) say(`  only ${load.progress.indexed} of ${size} indexed; measuring what is`);
      say(`searching ${size} documents: ${KINDS.join(', ')}, ui at c=${CONCURRENCY.join(', ')}, ${s.durationS} s each`);
      corpora.push({ documents: load.progress.indexed, runs: await searchRuns(api, ui, stack, uiUid, queries, s, tally, 200 + i * 5000) });
      apiMemory[size] = await apiMemoryOf(stack, probeDir);
    }

    say(`push check: bare Express vs accepted PUTs (${s.pushSeconds} s each), SciFact in batches, ${s.rate} PUT/s for ${s.pacedSeconds} s`);
    const probe = new DbProbe(stack.dataDir);
    cleanup.add('close database', () => probe.close());
    const pushSettings: PushSettings = {
      concurrency: 32, durationS: s.pushSeconds, warmupS: 1, rates: [s.rate], pacedSeconds: s.pacedSeconds, batchSize: 500, batchParallel: 3,
    };
    // A part of SciFact: the batch step indexes all of the corpus it is given, and the whole took 15 s on a busy machine.
    const ctx: Ctx = { root, stack, api, corpus: loadSciFact(root).slice(0, s.batchDocs), settings: pushSettings, probe, cleanup };
    const push: PushFigures = { accept: await acceptedUpserts(ctx), batch: await batchIndexing(ctx), paced: await pacedLatency(ctx, s.rate) };

    const wallS = Number(((performance.now() - started) / 1000).toFixed(1));
    const budgetRows = verdicts(corpora, push, s.rate);
    const notMet = budgetRows.filter((v) => !v.met).length;
    const table = [['budget', 'measured', 'target', 'verdict'], ...budgetRows.map((v) => [v.budget, v.measured, v.target, v.met ? 'met' : 'NOT met'])];
    table.push(['bench:quick wall time', `${wallS} s`, `<= ${WALL_BUDGET_S} s`, wallS <= WALL_BUDGET_S ? 'met' : 'NOT met']);
    const facts = [
      ['figure', 'value'],
      ['API processes (QUARRY_API_PROCESSES)', String(stack.apiProcesses)],
      ...sizes.map((size, i) => [`load to ${size} docs: pushed / indexed per second`, `${loads[i].pushDocsPerSecond} / ${loads[i].indexedDocsPerSecond}`]),
      ...sizes.map((size) => [`API resident memory after GC at ${size} docs: all processes (each)`, `${apiMemory[size].totalRssMb} MB (${apiMemory[size].processes.map((p) => p.rssMb).join(' + ')})`]),
      ['push: accepted / bare requests per second', `${push.accept.quarry.rps} / ${push.accept.bare.rps}`],
      ['batch: CPU per document until idle, main thread + other threads', perDocumentText(push.batch.cpuPerDocumentUs)],
      ['machine', `${os.cpus().length} cpus, node ${process.version}; CPU before start: others ${idleCpu.others}%`],
    ];
    console.log(`\n${markdownTable(runRows(corpora, cpuText))}\n\n${markdownTable(facts)}\n\n${markdownTable(table)}\n`);
    say(`${budgetRows.length - notMet} of ${budgetRows.length} budgets met; ${wallS} s`);

    writeResults(root, 'quick.json', {
      timestamp: new Date().toISOString(),
      machine: machineInfo(loadAvg, idleCpu),
      settings: { ...s, apiProcesses: stack.apiProcesses, concurrency: CONCURRENCY, push: pushSettings, budgets: QUICK_BUDGETS, budgetsAreFor: '100,000 documents (bench:search)' },
      results: { wallSeconds: wallS, loads, corpora, apiMemory, push, budgets: budgetRows },
      processOutput: processOutput(stack, say),
    }, say);
  } catch (err) {
    reportFailure(err, cleanup, stack, 'quick');
  } finally {
    await cleanup.run();
  }
}

await main();
