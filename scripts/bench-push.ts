/**
 * `npm run bench:push`: how fast Quarry accepts and indexes pushed documents, on a private stack
 * (Redis, API, one worker) started and removed here. Prints a table; writes bench-results/push.json.
 *
 *   --concurrency 32   --duration 10   --warmup 2        step 3 (closed loop of single PUTs)
 *   --batch-size 500   --batch-parallel 3                step 4 (all of SciFact via batch upsert)
 *   --rate 200,1000    --paced-seconds 15                step 5 (paced PUTs, 204 -> searchable, at each rate)
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSciFact } from './bench/corpus.js';
import { DbProbe } from './bench/db-probe.js';
import { makeTarget, send } from './bench/http-load.js';
import { Cleanup, cpuMeter, machineInfo, processOutput, reportFailure, startStack, writeResults } from './bench/processes.js';
import { createPushIndex, waitDrained } from './bench/quarry-client.js';
import { resultsTable } from './bench/report.js';
import { acceptedUpserts, batchIndexing, pacedLatency, type Ctx, type Settings } from './bench/steps.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench] ${m}`);

function settingsFromArgs(): Settings {
  const { values } = parseArgs({
    options: Object.fromEntries(
      ['concurrency', 'duration', 'warmup', 'rate', 'paced-seconds', 'batch-size', 'batch-parallel'].map((k) => [k, { type: 'string' as const }]),
    ),
    strict: true,
  });
  const num = (k: string, d: number, min: number) => {
    const v = values[k] === undefined ? d : Number(values[k]);
    if (!Number.isFinite(v) || v < min) throw new Error(`--${k} must be a number >= ${min}`);
    return v;
  };
  return {
    concurrency: num('concurrency', 32, 1),
    durationS: num('duration', 10, 1),
    warmupS: num('warmup', 2, 0),
    rates: rates(values.rate ?? '200,1000'),
    pacedSeconds: num('paced-seconds', 15, 1),
    batchSize: num('batch-size', 500, 1),
    batchParallel: num('batch-parallel', 3, 1),
  };
}

function rates(list: string): number[] {
  const out = list.split(',').map(Number);
  if (out.some((r) => !Number.isFinite(r) || r < 1)) throw new Error('--rate must be one or more numbers >= 1, comma-separated');
  return out;
}

/** The worker is ready once a document pushed to a scratch index comes out indexed. */
async function waitWorkerReady(ctx: Pick<Ctx, 'api' | 'stack' | 'probe'>) {
  await createPushIndex(ctx.api, 'bench-ready');
  const r = await send(ctx.api, 'PUT', '/v2/indexes/bench-ready/documents/ready', JSON.stringify({ title: 'ready', content: '<p>ready</p>' }));
  if (r.status !== 204) throw new Error(`readiness PUT -> ${r.status}: ${r.body}`);
  await waitDrained(ctx.api, ctx.probe, 'bench-ready', { expectDocuments: 1, assertAlive: ctx.stack.assertAlive, pollMs: 100 });
}

async function main() {
  const settings = settingsFromArgs();
  const cleanup = new Cleanup();
  cleanup.onSignals(say);

  let stack: Ctx['stack'] | undefined;
  try {
    const corpus = loadSciFact(root);
    const loadAvg = os.loadavg();
    const idle = cpuMeter({});
    await new Promise((r) => setTimeout(r, 2000));
    const idleCpu = idle();
    if (idleCpu.others > 25) say(`warning: the machine is already busy (${idleCpu.others}% of one core used by other processes); figures will be noisy`);
    say(`${corpus.length} SciFact documents; starting redis, API and worker`);
    stack = await startStack(root, cleanup);
    const api = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey }, Math.max(settings.concurrency, 64));
    cleanup.add('close client sockets', () => api.agent.destroy());
    const probe = new DbProbe(stack.dataDir);
    cleanup.add('close database', () => probe.close());
    const ctx: Ctx = { root, stack, api, corpus, settings, cleanup, probe };
    await waitWorkerReady(ctx);

    say(`steps 2-3: bare Express, then Quarry, ${settings.concurrency} connections x ${settings.durationS} s (after ${settings.warmupS} s warm-up each)`);
    const accept = await acceptedUpserts(ctx);
    say(`step 4: ${corpus.length} documents in batches of ${settings.batchSize}, ${settings.batchParallel} in parallel`);
    const batch = await batchIndexing(ctx);
    const paced = [];
    for (const rate of settings.rates) {
      say(`step 5: ${rate} docs/s for ${settings.pacedSeconds} s`);
      paced.push(await pacedLatency(ctx, rate));
    }

    const results = { accept, batch, paced };
    console.log(`\n${resultsTable(results, idleCpu)}\n`);
    const output = processOutput(stack, say);
    const out = {
      timestamp: new Date().toISOString(),
      machine: machineInfo(loadAvg, idleCpu),
      settings: { ...settings, embedder: 'default (glove)', workerProcesses: 1, loadGenerator: 'node:http keep-alive (in the bench process)' },
      results,
      processOutput: output,
    };
    writeResults(root, 'push.json', out, say);
  } catch (err) {
    reportFailure(err, cleanup, stack);
  } finally {
    await cleanup.run();
  }
}

await main();
