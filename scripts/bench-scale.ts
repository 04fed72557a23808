/**
 * `npm run bench:scale`: indexing throughput with 1, 2 and 4 worker processes and search throughput
 * with 1 and 2 API processes on PostgreSQL, beside the embedded mode (SQLite) in the same run, and
 * what an API process holds in memory per section with vectors in memory and with vectors external
 * (a Qdrant stand-in). Real SciFact abstracts; the machine's PostgreSQL (a database of its own for
 * the run, dropped at the end) and Redis (a prefix of its own per deployment, deleted at the end).
 * Prints tables and an interpretation; writes bench-results/scale.json.
 *
 *   --docs 5183                 documents (SciFact has 5,183; more repeat as numbered copies)
 *   --workers 1,2,4             worker process counts on PostgreSQL (embedded: 1)
 *   --worker-concurrency 4      jobs per queue per worker process
 *   --batch-size 500 --batch-parallel 3
 *   --apis 2                    API processes on PostgreSQL searched through (1..n; embedded: 1)
 *   --duration 15 --warmup 3 --concurrency 16   closed-loop search (seconds, seconds, users)
 *   --phases embedded,postgres,stand-in,keyword-qdrant   which deployments run (keyword-qdrant: the keyword
 *                               leg and vectors in the stand-in, QUARRY_KEYWORD_INDEX=qdrant: API memory and first answer)
 *   --memory-extra-docs 15549   documents added afterwards for a second memory reading (0: none)
 *   --corpus scifact            scifact (past 5,183 documents, numbered copies) or synthetic (bench:capacity's, no copies)
 *   --postgres-url postgres://postgres@127.0.0.1:5432/postgres   --redis-url redis://127.0.0.1:6379
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Cleanup, cpuMeter, machineInfo, writeResults } from './bench/processes.js';
import { ensureServer } from './build-server.mjs';
import { batchBodies, scaleCorpus, syntheticScaleCorpus, titleQueries } from './bench/scale-corpus.js';
import { freshApiMemory, growPhase, indexPhase, searchPhase, type MemoryFigures, type PhaseContext } from './bench/scale-phases.js';
import { Deployment } from './bench/scale-processes.js';
import { interpretation, scaleTables } from './bench/scale-report.js';
import { createDatabase, deleteRedisPrefix, localRedisPid } from './bench/scale-services.js';
import type { IndexFigures, ScaleSettings, SearchFigures, Services } from './bench/scale-steps.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench:scale] ${m}`);
const PHASES = ['embedded', 'postgres', 'stand-in', 'keyword-qdrant'] as const;
type Phase = (typeof PHASES)[number];

function settingsFromArgs() {
  const names = ['docs', 'workers', 'worker-concurrency', 'batch-size', 'batch-parallel', 'apis', 'duration', 'warmup', 'concurrency', 'queries', 'stall', 'phases', 'postgres-url', 'redis-url', 'memory-extra-docs', 'corpus'];
  const { values } = parseArgs({ options: Object.fromEntries(names.map((k) => [k, { type: 'string' as const }])), strict: true });
  const num = (k: string, d: number, min: number) => {
    const v = values[k] === undefined ? d : Number(values[k]);
    if (!Number.isInteger(v) || v < min) throw new Error(`--${k} must be a whole number >= ${min}`);
    return v;
  };
  const workerCounts = (values.workers ?? '1,2,4').split(',').map(Number);
  if (workerCounts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--workers takes a list such as 1,2,4');
  const phases = (values.phases ?? PHASES.join(',')).split(',') as Phase[];
  if (phases.some((p) => !PHASES.includes(p))) throw new Error(`--phases takes some of ${PHASES.join(',')}`);
  const scale: ScaleSettings = {
    docs: num('docs', 5183, 1), batchSize: num('batch-size', 500, 1), batchParallel: num('batch-parallel', 3, 1),
    workerCounts, workerConcurrency: num('worker-concurrency', 4, 1), durationS: num('duration', 15, 1), warmupS: num('warmup', 3, 0),
    concurrency: num('concurrency', 16, 1), queries: num('queries', 2000, 1), stallS: num('stall', 120, 5),
  };
  const corpus = values.corpus ?? 'scifact';
  if (corpus !== 'scifact' && corpus !== 'synthetic') throw new Error('--corpus takes scifact or synthetic');
  return {
    scale, phases, corpus, apis: num('apis', 2, 1), extraDocs: num('memory-extra-docs', 15_549, 0),
    postgresUrl: values['postgres-url'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: values['redis-url'] ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

/** The in-memory Qdrant stand-in of the tests (strict against Qdrant's API description), in this process. */
async function startStandIn(cleanup: Cleanup) {
  const { startQdrantStandIn } = await import('../test/helpers/qdrant-stand-in.js');
  const q = await startQdrantStandIn();
  cleanup.add('stop qdrant stand-in', () => q.close());
  return q;
}

async function main() {
  const o = settingsFromArgs();
  const cleanup = new Cleanup();
  cleanup.onSignals(say);
  const runId = randomBytes(4).toString('hex');
  const results = { indexing: [] as IndexFigures[], search: [] as SearchFigures[], memory: [] as MemoryFigures[], growth: [] as IndexFigures[] };
  const deps: Deployment[] = [];
  const warnings = () => Object.assign({}, ...deps.map((d) => d.warnings())) as Record<string, { count: number; first: string[] }>;
  let standInViolations: unknown[] = [];
  try {
    const loadAvg = os.loadavg();
    const idle = cpuMeter({});
    await new Promise((r) => setTimeout(r, 2000));
    const idleCpu = idle();
    if (idleCpu.others > 25) say(`warning: the machine is already busy (${idleCpu.others}% of one core used by other processes, load ${loadAvg[0].toFixed(2)}); figures will be noisy`);

    // The service's processes start from compiled JavaScript, built here when a source changed since.
    await ensureServer();
    const documents = (n: number) => (o.corpus === 'synthetic' ? syntheticScaleCorpus(n) : scaleCorpus(root, n));
    const corpus = documents(o.scale.docs);
    const bodies = batchBodies(corpus, o.scale.batchSize);
    const extraBodies = batchBodies(documents(o.scale.docs + o.extraDocs).slice(o.scale.docs), o.scale.batchSize);
    const queries = titleQueries(corpus, o.scale.queries);
    const database = `quarry_bench_scale_${runId}`;
    const databaseUrl = o.phases.some((p) => p !== 'embedded') ? await createDatabase(o.postgresUrl, database, cleanup) : null;
    const services: Services = { redisPid: await localRedisPid(o.redisUrl), database: databaseUrl ? database : null };
    const probeDir = mkdtempSync(join(tmpdir(), 'quarry-scale-probe-'));
    cleanup.add('remove probe folder', () => rmSync(probeDir, { recursive: true, force: true }));

    // Inherited QUARRY_* settings would make the figures depend on the caller's shell: defaults only.
    const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUARRY_') && k !== 'QDRANT_URL' && k !== 'DATABASE_URL'));
    Object.assign(baseEnv, {
      REDIS_URL: o.redisUrl, QUARRY_MASTER_KEY: `qs_${randomBytes(18).toString('base64url')}`, QUARRY_LOG_LEVEL: 'warn',
      BENCH_MEMORY_PROBE_DIR: probeDir,
      // The search interface's rate limits stay on (their Redis calls are part of the cost), never refusing the one bench client.
      QUARRY_RATE_LIMIT_CLIENT: '100000000/1', QUARRY_RATE_LIMIT_UID: '100000000/1',
    });
    const deployment = (label: string, slug: string, env: Record<string, string>) => {
      const prefix = `qscale-${runId}-${slug}`;
      cleanup.add(`delete redis keys ${prefix}:*`, () => deleteRedisPrefix(o.redisUrl, prefix));
      const dep = new Deployment(label, root, cleanup, { ...baseEnv, QUARRY_REDIS_PREFIX: prefix, ...env });
      deps.push(dep);
      return dep;
    };
    const pgEnv = (schema: string) => ({ QUARRY_STORAGE: 'postgres', DATABASE_URL: databaseUrl!, QUARRY_DATABASE_SCHEMA: schema });
    const stores = new Map<Deployment, ReturnType<PhaseContext['store']>>();
    const ctx: PhaseContext = { settings: o.scale, services, bodies, extraBodies, queries, probeDir, store: (d) => stores.get(d)!, memory: results.memory, say };
    say(`${corpus.length} documents in ${bodies.length} batches, ${queries.length} queries; run ${runId}`);

    if (o.phases.includes('embedded')) {
      const dataDir = mkdtempSync(join(tmpdir(), 'quarry-scale-embedded-'));
      cleanup.add('remove embedded data', () => rmSync(dataDir, { recursive: true, force: true }));
      const dep = deployment('embedded', 'emb', { QUARRY_STORAGE: 'sqlite', QUARRY_DATA_DIR: dataDir });
      stores.set(dep, { dataDir });
      const { figures, uiUid } = await indexPhase(dep, ctx, 1, true);
      results.indexing.push(figures);
      results.search.push(...(await searchPhase(dep, ctx, uiUid, 1, figures.sections)));
      await dep.stopAll();
    }
    let standIn: Awaited<ReturnType<typeof startStandIn>> | null = null;
    const qdrant = async () => {
      const q = (standIn ??= await startStandIn(cleanup));
      // The stand-in shares this process: how much of a replica's first answer is its own work, not the replica's.
      ctx.standInBusyMs = () => q.busyMs;
      return q;
    };
    if (o.phases.includes('postgres')) {
      for (const [i, n] of o.scale.workerCounts.entries()) {
        const last = i === o.scale.workerCounts.length - 1;
        const dep = deployment('postgres', `pg${n}`, pgEnv(`w${n}`));
        stores.set(dep, { url: databaseUrl!, schema: `w${n}` });
        const { figures, uiUid } = await indexPhase(dep, ctx, n, i === 0);
        results.indexing.push(figures);
        // Search once, on the last store indexed: the same data whatever the worker count.
        if (!last) {
          await dep.stopAll();
          continue;
        }
        results.search.push(...(await searchPhase(dep, ctx, uiUid, o.apis, figures.sections)));
        // The same store read by an API whose vectors are external (an empty stand-in: what the API holds, not what it finds).
        const q = await qdrant();
        const external = deployment('postgres, vectors external', `pgx${n}`, { ...pgEnv(`w${n}`), QDRANT_URL: q.url, QUARRY_QDRANT_COLLECTION: `scale_${runId}_x` });
        await freshApiMemory(external, ctx, uiUid, 'loaded', figures.sections);
        if (o.extraDocs) {
          const grown = await growPhase(dep, ctx, uiUid, n, figures.documents);
          results.growth.push(grown);
          await freshApiMemory(external, ctx, uiUid, 'grown', grown.sections);
        }
        await external.stopAll();
        await dep.stopAll();
      }
    }
    if (o.phases.includes('stand-in')) {
      const q = await qdrant();
      const dep = deployment('postgres + qdrant stand-in', 'qd', { ...pgEnv('qd'), QDRANT_URL: q.url, QUARRY_QDRANT_COLLECTION: `scale_${runId}` });
      stores.set(dep, { url: databaseUrl!, schema: 'qd' });
      const { figures, uiUid } = await indexPhase(dep, ctx, 1, false);
      results.indexing.push(figures);
      results.search.push(...(await searchPhase(dep, ctx, uiUid, 1, figures.sections)));
      await dep.stopAll();
    }
    if (o.phases.includes('keyword-qdrant')) {
      // The keyword leg and the vectors in (the stand-in for) Qdrant: the API replicas hold no index. What a
      // fresh replica holds after the corpus, and after --memory-extra-docs more, and how long it takes from
      // launch to its first answer (the stand-in answers by exact scans of everything it holds: its share of
      // that time grows with the corpus, a real Qdrant's would not).
      const q = await qdrant();
      const dep = deployment('postgres, keyword leg and vectors in qdrant', 'kq', {
        ...pgEnv('kq'), QDRANT_URL: q.url, QUARRY_QDRANT_COLLECTION: `scale_${runId}_kq`, QUARRY_KEYWORD_INDEX: 'qdrant', QUARRY_QDRANT_KEYWORD_PREFIX: `scale_${runId}_kw_`,
      });
      stores.set(dep, { url: databaseUrl!, schema: 'kq' });
      const { figures, uiUid } = await indexPhase(dep, ctx, 1, true);
      results.indexing.push(figures);
      await dep.stopAll();
      for (let replica = 1; replica <= o.apis; replica++) await freshApiMemory(dep, ctx, uiUid, 'loaded', figures.sections);
      if (o.extraDocs) {
        const grown = await growPhase(dep, ctx, uiUid, 1, figures.documents);
        results.growth.push(grown);
        // The replica after the first also meets a stand-in whose postings are built (its first sparse query after
        // writes rebuilds them, seconds at 50k points): its launch to first answer is the API's own.
        for (let replica = 2; replica <= o.apis; replica++) await freshApiMemory(dep, ctx, uiUid, 'grown', grown.sections);
      }
      await dep.stopAll();
    }
    if (standIn) {
      const v = (standIn as Awaited<ReturnType<typeof startStandIn>>).violations;
      standInViolations = v.slice(0, 20);
      if (v.length) say(`the Qdrant stand-in refused ${v.length} request(s): ${JSON.stringify(v[0])}`);
    }

    const machine = machineInfo(loadAvg, idleCpu);
    console.log(`\n${scaleTables(results, machine)}\n\n${interpretation(results, machine)}\n`);
    writeResults(root, 'scale.json', {
      timestamp: new Date().toISOString(), machine, loadAvgAtEnd: os.loadavg().map((v) => Number(v.toFixed(2))),
      settings: {
        ...o.scale, apis: o.apis, phases: o.phases, memoryExtraDocs: o.extraDocs, corpus: o.corpus === 'synthetic' ? "bench:capacity's synthetic documents (SciFact's shape, Zipf English words, no copies)" : 'SciFact corpus.jsonl (title + abstract as one <p>; past 5,183 documents numbered copies)', embedder: 'glove (default)',
        workerCommand: `workers/main.ts --queues index,embed --concurrency ${o.scale.workerConcurrency}`,
        search: { content: 'POST /v1/content/search {boosting: "title content", limit: 10}', ui: 'GET /v1/ui/search (result_count 10, hybrid)', split: 'users split evenly over the APIs, each keeping to one' },
        postgres: 'machine server, a database of its own for the run, one schema per deployment; default pool size', redis: 'machine server, a prefix per deployment',
        memory: 'VmRSS and process.memoryUsage() after two full GCs (SIGUSR2 to a preloaded probe), after the warm-up',
      },
      results, standInViolations, processWarnings: warnings(),
    }, say);
  } catch (err) {
    process.exitCode = 1;
    if (!cleanup.interrupted) say(`FAILED: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  } finally {
    await cleanup.run();
    const w = warnings();
    for (const [name, x] of Object.entries(w)) say(`${name} printed ${x.count} warning line(s); first: ${x.first[0]?.slice(0, 400)}`);
  }
}

await main();
