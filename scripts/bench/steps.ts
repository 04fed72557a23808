import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DbProbe } from './db-probe.js';
import { putBody, type CorpusDoc } from './corpus.js';
import { closedLoop, makeTarget, pacedLoop, send, type LoadResult, type PlannedRequest, type Target } from './http-load.js';
import { apiPids, cpuMeter, startBare, threadCpuMs, type Cleanup, type Stack } from './processes.js';
import { createPushIndex, statusCost, waitDrained, type IndexStatus } from './quarry-client.js';
import { distribution, round, type Distribution } from './stats.js';

export interface Settings {
  concurrency: number;
  durationS: number;
  warmupS: number;
  /** Step 5 runs once per rate, each into an index of its own. */
  rates: number[];
  pacedSeconds: number;
  batchSize: number;
  batchParallel: number;
}

export interface Ctx {
  root: string;
  stack: Stack;
  api: Target;
  corpus: CorpusDoc[];
  settings: Settings;
  probe: DbProbe;
  cleanup: Cleanup;
}

export interface PutRun {
  requests: number;
  errors: number;
  errorSamples: string[];
  rps: number;
  latencyMs: Distribution;
  cpuPct: Record<string, number>;
}

const summarize = (r: LoadResult, cpu: Record<string, number>): PutRun => ({
  requests: r.requests, errors: r.errors, errorSamples: r.errorSamples, rps: round(r.rps),
  latencyMs: roundDist(distribution(r.latenciesMs)), cpuPct: cpu,
});

const roundDist = (d: Distribution): Distribution =>
  Object.fromEntries(Object.entries(d).map(([k, v]) => [k, round(v, 2)])) as unknown as Distribution;

/** Unique uid per request, cycling through the corpus; the same sequence of bodies for every target. */
function putSequence(corpus: CorpusDoc[], index: string): () => PlannedRequest {
  let i = 0;
  return () => {
    const n = i++;
    const doc = corpus[n % corpus.length];
    // The request number in the title keeps step 4 honest: no section here shares a hash (and so a
    // reusable vector) with the plain SciFact documents pushed there.
    return { method: 'PUT', path: `/v2/indexes/${index}/documents/a-${n}`, body: putBody(doc, `${doc.title} #${n}`) };
  };
}

async function putRun(ctx: Ctx, target: Target, next: () => PlannedRequest, pids: Record<string, number>): Promise<PutRun> {
  const { concurrency, durationS, warmupS } = ctx.settings;
  if (warmupS > 0) await closedLoop({ target, concurrency, durationMs: warmupS * 1000, next, okStatus: [204] });
  const meter = cpuMeter(pids);
  const r = await closedLoop({ target, concurrency, durationMs: durationS * 1000, next, okStatus: [204] });
  return summarize(r, meter());
}

/** Step 2+3: the bare Express route, then Quarry, same generator and bodies; then Quarry's backlog drains. */
export async function acceptedUpserts(ctx: Ctx) {
  const bare = await startBare(ctx.root, ctx.cleanup);
  const bareTarget = makeTarget(bare.baseUrl, {}, ctx.settings.concurrency);
  const bareRun = await putRun(ctx, bareTarget, putSequence(ctx.corpus, 'bench-accept'), { bare: bare.child.pid });
  bareTarget.agent.destroy();
  await bare.child.stop();

  await createPushIndex(ctx.api, 'bench-accept');
  const { stack } = ctx;
  const pids = { api: stack.api.pid, worker: stack.worker.pid, redis: stack.redisPid };
  const quarryRun = await putRun(ctx, ctx.api, putSequence(ctx.corpus, 'bench-accept'), pids);
  const loadEnd = performance.now();
  const drained = await waitDrained(ctx.api, ctx.probe, 'bench-accept', { assertAlive: stack.assertAlive, stallMs: 120_000 });
  // The accept path alone: the same PUTs with the worker stopped (SIGSTOP), so nothing is indexed or
  // followed meanwhile and the API's own cost per write shows; the worker then drains the backlog.
  await createPushIndex(ctx.api, 'bench-accept-alone');
  // "Drained" means indexed in the store; each API process may still be taking those documents into its
  // engine (the follow), which would run beside this step and measure that tail, not the accept path.
  const aloneSettledAfterS = await waitIdle({ api: stack.api.pid, worker: stack.worker.pid });
  process.kill(stack.worker.pid, 'SIGSTOP');
  let aloneRun: PutRun;
  try {
    aloneRun = await putRun(ctx, ctx.api, putSequence(ctx.corpus, 'bench-accept-alone'), pids);
  } finally {
    process.kill(stack.worker.pid, 'SIGCONT');
  }
  const aloneDrained = await waitDrained(ctx.api, ctx.probe, 'bench-accept-alone', { assertAlive: stack.assertAlive, stallMs: 120_000 });
  return {
    bare: bareRun,
    quarry: quarryRun,
    ratio: round(quarryRun.rps / bareRun.rps, 3),
    alone: { settledAfterS: aloneSettledAfterS, run: aloneRun, ratio: round(aloneRun.rps / bareRun.rps, 3), indexedAfter: aloneDrained.status.indexed, failedAfter: aloneDrained.status.failed },
    drain: { secondsAfterLoad: round((drained.at - loadEnd) / 1000, 2), status: drained.status },
    statusCall: await statusCost(ctx.api, 'bench-accept'),
  };
}

/** Step 4: all of SciFact through the batch endpoint into a fresh index, until every document is indexed. */
export async function batchIndexing(ctx: Ctx) {
  const index = 'bench-batch';
  await createPushIndex(ctx.api, index);
  const { corpus, stack, settings } = ctx;
  // Like the paced step: the accept step leaves tens of thousands of documents that each API process is
  // still analysing into its engine, which would hold the niced worker back and measure that tail, not this step.
  const settledAfterS = await waitIdle({ api: stack.api.pid, worker: stack.worker.pid });
  const batches: CorpusDoc[][] = [];
  for (let i = 0; i < corpus.length; i += settings.batchSize) batches.push(corpus.slice(i, i + settings.batchSize));
  const bodies = batches.map((b) => `{"documents":[${b.map((d) => `{"uid":${JSON.stringify(d.id)},"title":${JSON.stringify(d.title)},"content":${d.contentJson}}`).join(',')}]}`);
  const problems: string[] = [];
  let nextBatch = 0;
  const meter = cpuMeter({ api: stack.api.pid, worker: stack.worker.pid, redis: stack.redisPid });
  const perDocument = documentCpu(stack, corpus.length);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: settings.batchParallel }, async () => {
    while (nextBatch < bodies.length) {
      const b = nextBatch++;
      const reply = await send(ctx.api, 'POST', `/v2/indexes/${index}/documents`, bodies[b]);
      const r = reply.status === 200 ? (JSON.parse(reply.body) as { accepted: number; rejected: number; unchanged: number }) : null;
      if (r?.accepted !== batches[b].length) {
        problems.push(`batch ${b}: ${reply.status} ${r ? JSON.stringify({ ...r, results: undefined }) : reply.body.slice(0, 300)}`);
      }
    }
  }));
  const pushed = performance.now();
  const drained = await waitDrained(ctx.api, ctx.probe, index, { expectDocuments: corpus.length, assertAlive: stack.assertAlive });
  const cpu = meter();
  const totalS = (drained.at - t0) / 1000;
  // Indexed is not the end of the work: every API process still takes the documents into its engine.
  await waitIdle({ api: stack.api.pid, worker: stack.worker.pid });
  return {
    settledAfterS,
    cpuPerDocumentUs: perDocument(),
    documents: corpus.length,
    batches: batches.length,
    pushSeconds: round((pushed - t0) / 1000, 3),
    pushDocsPerSecond: round(corpus.length / ((pushed - t0) / 1000)),
    indexedSeconds: round(totalS, 3),
    indexedDocsPerSecond: round(drained.status.indexed / totalS),
    status: drained.status,
    batchProblems: problems,
    sectionsWithReusedVectors: reusedSections(ctx.probe, index),
    cpuPct: cpu,
  };
}

/** Sections of `index` whose hash also occurs in another index (vectors reused rather than embedded). */
function reusedSections(probe: DbProbe, index: string): { sections: number; sharedWithOtherIndexes: number } {
  const row = probe.search.prepare(
    `SELECT count(*) AS sections, sum(EXISTS (SELECT 1 FROM sections t WHERE t.hash = s.hash AND t.index_id != s.index_id)) AS shared
     FROM sections s WHERE s.index_id = ?`,
  ).get(probe.indexId(index)) as { sections: number; shared: number | null };
  return { sections: row.sections, sharedWithOtherIndexes: row.shared ?? 0 };
}

/** Step 5: single PUTs at a fixed rate; 204 arrival vs the `updated_at` of the indexing commit. */
export async function pacedLatency(ctx: Ctx, rate: number) {
  const index = `bench-paced-${rate}`;
  await createPushIndex(ctx.api, index);
  const { corpus, settings, stack } = ctx;
  // The steps before leave tens of thousands of documents that each API process still analyses into its
  // engine (and that hold the niced worker back meanwhile): this step measures the steady state, so it
  // starts once the service is idle, and says how long absorbing the earlier burst took.
  const settledAfterS = await waitIdle({ api: stack.api.pid, worker: stack.worker.pid });
  const run = randomBytes(4).toString('hex');
  const token = (i: number) => `qbtok${run}n${i}`;
  const meter = cpuMeter({ api: stack.api.pid, worker: stack.worker.pid, redis: stack.redisPid });
  const paced = await pacedLoop({
    target: ctx.api, rate, durationMs: settings.pacedSeconds * 1000, okStatus: [204],
    request: (i) => {
      const doc = corpus[i % corpus.length];
      return { method: 'PUT', path: `/v2/indexes/${index}/documents/p-${i}`, body: putBody(doc, `${doc.title} ${token(i)}`) };
    },
  });
  const drained = await waitDrained(ctx.api, ctx.probe, index, { expectDocuments: paced.ok, assertAlive: stack.assertAlive });
  const cpu = meter();

  const delays = searchableDelays(ctx.probe, index, paced.ackAt, rate, settings.pacedSeconds);
  const sample = await searchableSample(ctx.api, index, delays.uids, (uid) => token(Number(uid.slice(2))));
  return {
    targetRate: rate,
    settledAfterS,
    seconds: settings.pacedSeconds,
    sent: paced.sent,
    accepted: paced.ok,
    errors: paced.errors,
    errorSamples: paced.errorSamples,
    achievedRate: round(paced.ok / (paced.elapsedMs / 1000)),
    putLatencyMs: roundDist(distribution(paced.latenciesMs)),
    indexedMatched: delays.all.length,
    status: drained.status as IndexStatus,
    toSearchableMs: { ...roundDist(distribution(delays.all)), min: round(Math.min(...delays.all), 2) },
    lastThirdP95Ms: round(distribution(delays.perSecond.slice(Math.floor((delays.perSecond.length * 2) / 3)).flat()).p95, 0),
    toSearchableBySecond: delays.perSecond.map((v, second) => {
      const x = distribution(v);
      return { second, docs: x.count, p50: round(x.p50, 0), p95: round(x.p95, 0), max: round(x.max, 0) };
    }),
    searchSample: sample,
    cpuPct: cpu,
  };
}

/** Seconds until the service's processes together use under IDLE_PCT of one core over a second (at most IDLE_WAIT_S). */
/**
 * CPU per document of each API process and of the worker, main thread and other threads apart, from now
 * until the returned function is called (µs): what each process pays to index one document, which the
 * documents-per-second figure hides behind the two cores they share.
 */
function documentCpu(stack: Stack, documents: number) {
  const api = apiPids(stack);
  // With several API processes the first is their primary, which serves nothing.
  const names = api.length > 1 ? ['API primary', ...api.slice(1).map((_, i) => `API ${i + 1}`)] : ['API'];
  const processes = [...api.map((pid, i) => [names[i], pid] as const), ['worker', stack.worker.pid] as const];
  const before = processes.map(([, pid]) => threadCpuMs(pid));
  return () => Object.fromEntries(processes.map(([name, pid], i) => {
    const after = threadCpuMs(pid);
    const us = (ms: number) => Math.round((ms * 1000) / documents);
    return [name, { main: us(after.main - before[i].main), others: us(after.others - before[i].others) }];
  })) as Record<string, { main: number; others: number }>;
}

async function waitIdle(pids: Record<string, number>): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const meter = cpuMeter(pids);
    await new Promise((r) => setTimeout(r, 1000));
    const pct = meter();
    const busy = Object.keys(pids).reduce((sum, k) => sum + pct[k], 0);
    const waited = (performance.now() - t0) / 1000;
    if (busy < IDLE_PCT || waited >= IDLE_WAIT_S) return round(waited, 1);
  }
}
const IDLE_PCT = 15;
const IDLE_WAIT_S = 180;

/**
 * updated_at of every indexed document (set just after the search-store commit that makes it searchable, so an upper bound) minus
 * the wall-clock time its 204 arrived; also grouped by second of the run (by send order), which
 * shows whether the delay grows (falling behind) or only jitters. Uids are `p-<request number>`.
 */
function searchableDelays(probe: DbProbe, index: string, ackAt: Float64Array, rate: number, seconds: number) {
  const rows = probe.raw
    .prepare(`SELECT uid, updated_at FROM documents WHERE index_id = ? AND status = 'indexed'`)
    .all(probe.indexId(index)) as { uid: string; updated_at: number }[];
  const all: number[] = [];
  const uids: string[] = [];
  const perSecond: number[][] = Array.from({ length: Math.ceil(seconds) }, () => []);
  for (const r of rows) {
    const i = Number(r.uid.slice(2));
    if (!Number.isFinite(ackAt[i])) continue;
    const delay = r.updated_at - ackAt[i];
    all.push(delay);
    perSecond[Math.min(perSecond.length - 1, Math.floor(i / rate))].push(delay);
    uids.push(r.uid);
  }
  return { all, uids, perSecond };
}

/** 20 documents spread over `uids` must each be found by a content search for their own token. */
async function searchableSample(api: Target, index: string, uids: string[], tokenOf: (uid: string) => string) {
  const sample = uids.length ? Array.from({ length: 20 }, (_, k) => uids[Math.floor((k * uids.length) / 20)]) : [];
  const missing: string[] = [];
  for (const uid of sample) {
    const body = JSON.stringify({ index_uid: index, query: tokenOf(uid), boosting: 'title content', filter: '', fields: [], limit: 5 });
    const r = await send(api, 'POST', '/v1/content/search', body);
    const found = r.status === 200 && (JSON.parse(r.body).results as { uid: string }[]).some((h) => h.uid === uid);
    if (!found) missing.push(uid);
  }
  return { checked: sample.length, found: sample.length - missing.length, missing };
}
