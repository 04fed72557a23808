import { performance } from 'node:perf_hooks';
import { closedLoop, makeTarget, send, type LoadResult, type PlannedRequest, type Target } from './http-load.js';
import { cpuMeter } from './processes.js';
import { indexStatus, type IndexStatus } from './quarry-client.js';
import { BackendCpu } from './scale-services.js';
import type { Api, Deployment } from './scale-processes.js';
import { distribution, round, type Distribution } from './stats.js';

/** The measured steps of `npm run bench:scale`: indexing through N workers, and closed-loop search over K APIs. */

export const INDEX = 'scifact';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ScaleSettings {
  docs: number;
  batchSize: number;
  batchParallel: number;
  workerCounts: number[];
  workerConcurrency: number;
  durationS: number;
  warmupS: number;
  concurrency: number;
  queries: number;
  stallS: number;
}

/** What the measured steps share: Redis's pid (when local) and the run's PostgreSQL database (for its backends' CPU). */
export interface Services {
  redisPid: number | null;
  database: string | null;
}

/**
 * CPU of a stretch in % of one core: each process of the deployment, `postgres` (backends of our
 * database), `redis` (the machine's, shared), `bench` (this process: pusher or load generator, and
 * the Qdrant stand-in when there is one), `machine`, `others` (machine minus all of those);
 * `quarry` sums the APIs and workers, `service` adds PostgreSQL and Redis.
 */
export function meterFor(dep: Deployment, services: Services): () => Record<string, number> {
  const pids = dep.pids();
  const m = cpuMeter({ ...pids, ...(services.redisPid ? { redis: services.redisPid } : {}) });
  const backends = services.database && dep.postgres ? new BackendCpu(services.database) : null;
  return () => {
    const pct = m();
    if (backends) {
      pct.postgres = backends.stop();
      pct.others = Math.max(0, pct.others - pct.postgres);
    }
    pct.quarry = Object.keys(pids).reduce((s, k) => s + pct[k], 0);
    pct.service = pct.quarry + (pct.postgres ?? 0) + (pct.redis ?? 0);
    return pct;
  };
}

export interface IndexFigures {
  deployment: string;
  workers: number;
  workerConcurrency: number;
  documents: number;
  sections: number;
  pushSeconds: number;
  /** First push request to every document indexed. */
  indexedSeconds: number;
  docsPerSecond: number;
  /** Between 10% and 90% indexed: the pipeline's pace without its start and tail. */
  steadyDocsPerSecond: number;
  /** docs/s divided by the cores the service used (quarry + PostgreSQL + Redis CPU / 100). */
  docsPerServiceCoreSecond: number;
  status: IndexStatus;
  problems: string[];
  cpuPct: Record<string, number>;
}

/** Pushes the corpus through `api` in batches (`batchParallel` in flight) and waits until all of it is indexed. */
export async function indexRun(
  dep: Deployment, api: Api, bodies: { body: string; count: number }[], s: ScaleSettings, services: Services, say: (m: string) => void,
  alreadyIndexed = 0,
): Promise<IndexFigures> {
  const t = makeTarget(api.baseUrl, { 'x-api-key': dep.masterKey }, 16);
  try {
    const documents = bodies.reduce((n, b) => n + b.count, 0);
    const problems: string[] = [];
    let next = 0;
    const meter = meterFor(dep, services);
    const t0 = performance.now();
    await Promise.all(Array.from({ length: s.batchParallel }, async () => {
      while (next < bodies.length) {
        const b = bodies[next++];
        const r = await send(t, 'POST', `/v2/indexes/${INDEX}/documents`, b.body);
        const accepted = r.status === 200 ? (JSON.parse(r.body) as { accepted: number }).accepted : -1;
        if (accepted !== b.count) problems.push(`batch of ${b.count}: ${r.status} ${r.body.slice(0, 300)}`);
      }
    }));
    const pushed = performance.now();
    const progress: { at: number; indexed: number }[] = [];
    let last: IndexStatus;
    let lastChange = performance.now();
    for (;;) {
      dep.assertAlive();
      last = await indexStatus(t, INDEX);
      const at = performance.now();
      if (last.indexed !== progress.at(-1)?.indexed) lastChange = at;
      progress.push({ at, indexed: last.indexed });
      if (last.failed > 0) throw new Error(`${last.failed} document(s) failed to index: ${JSON.stringify(last)}`);
      if (last.pending === 0 && last.documents >= alreadyIndexed + documents) break;
      if (at - lastChange > s.stallS * 1000) throw new Error(`indexing stalled for ${s.stallS} s: ${JSON.stringify(last)}`);
      if (progress.length % 40 === 0) say(`  ${last.indexed - alreadyIndexed}/${documents} indexed after ${((at - t0) / 1000).toFixed(0)} s`);
      await sleep(250);
    }
    const cpu = meter();
    const done = progress.at(-1)!.at;
    const seconds = (done - t0) / 1000;
    const docsPerSecond = (last.indexed - alreadyIndexed) / seconds;
    return {
      deployment: dep.label, workers: dep.workers.length, workerConcurrency: s.workerConcurrency, documents, sections: 0,
      pushSeconds: round((pushed - t0) / 1000, 2), indexedSeconds: round(seconds, 2), docsPerSecond: round(docsPerSecond),
      steadyDocsPerSecond: round(steadyRate(progress.map((p) => ({ at: p.at, indexed: p.indexed - alreadyIndexed })), documents)), docsPerServiceCoreSecond: round(docsPerSecond / (cpu.service / 100)),
      status: last, problems, cpuPct: cpu,
    };
  } finally {
    t.agent.destroy();
  }
}

/** docs/s between the polls that first saw 10% and 90% of `total` indexed (NaN when too few polls fell between). */
function steadyRate(progress: { at: number; indexed: number }[], total: number): number {
  const a = progress.find((p) => p.indexed >= total * 0.1);
  const b = progress.find((p) => p.indexed >= total * 0.9);
  if (!a || !b || b.at - a.at < 500) return Number.NaN;
  return (b.indexed - a.indexed) / ((b.at - a.at) / 1000);
}

export type SearchKind = 'content' | 'ui';

/** The request of one search of `kind`, query number `i`. */
export function searchRequest(kind: SearchKind, query: string, uiUid: string, i: number): PlannedRequest {
  if (kind === 'content') {
    const body = JSON.stringify({ index_uid: INDEX, query, boosting: 'title content', filter: '', fields: [], limit: 10 });
    return { method: 'POST', path: '/v1/content/search', body };
  }
  const p = new URLSearchParams({ uid: uiUid, 'session-id': `s${i % 1000}`, query });
  return { method: 'GET', path: `/v1/ui/search?${p}` };
}

/** Content searches carry the master key; the search interface takes none, as a widget sends none. */
export function searchTargets(dep: Deployment, kind: SearchKind, concurrency: number): Target[] {
  const per = Math.ceil(concurrency / dep.apis.length);
  return dep.apis.map((a) => makeTarget(a.baseUrl, kind === 'content' ? { 'x-api-key': dep.masterKey } : {}, per));
}

/** Sequential searches on every API: results per query and empty share, so a broken index shows before the load. */
export async function checkAnswers(targets: Target[], kind: SearchKind, queries: string[], uiUid: string, n = 20) {
  let results = 0;
  let empty = 0;
  for (let i = 0; i < n; i++) {
    const r = await send(targets[i % targets.length], ...requestArgs(searchRequest(kind, queries[i % queries.length], uiUid, i)));
    if (r.status !== 200) throw new Error(`${kind} search -> ${r.status}: ${r.body.slice(0, 300)}`);
    const k = (JSON.parse(r.body) as { results: unknown[] }).results.length;
    results += k;
    if (k === 0) empty++;
  }
  return { queries: n, meanResults: round(results / n, 2), emptyShare: round(empty / n, 2) };
}

const requestArgs = (r: PlannedRequest): [string, string, string | undefined] => [r.method, r.path, r.body];

export interface SearchFigures {
  deployment: string;
  apis: number;
  kind: SearchKind;
  concurrency: number;
  seconds: number;
  requests: number;
  errors: number;
  errorSamples: string[];
  qps: number;
  latencyMs: Distribution;
  /** QPS divided by the cores the service used (APIs + PostgreSQL + Redis CPU / 100). */
  qpsPerServiceCore: number;
  /** Each API's share of the answered searches. */
  perApiQps: number[];
  cpuPct: Record<string, number>;
}

/**
 * A closed loop of `concurrency` users split evenly over the APIs (each user keeps to one API, as
 * behind a balancer with keep-alive connections), all cycling through the same query list.
 */
export async function searchRun(
  dep: Deployment, targets: Target[], kind: SearchKind, queries: string[], uiUid: string,
  o: { concurrency: number; durationMs: number; offset: number; services?: Services },
): Promise<{ figures: SearchFigures; next: number }> {
  let i = o.offset;
  const next = () => {
    const n = i++;
    return searchRequest(kind, queries[n % queries.length], uiUid, n);
  };
  const meter = o.services ? meterFor(dep, o.services) : null;
  const per = targets.map((_, k) => Math.floor(o.concurrency / targets.length) + (k < o.concurrency % targets.length ? 1 : 0));
  const runs = await Promise.all(targets.map((target, k) => closedLoop({ target, concurrency: per[k], durationMs: o.durationMs, next, okStatus: [200] })));
  const cpu = meter ? meter() : {};
  dep.assertAlive();
  const merged = mergeRuns(runs);
  const qps = merged.ok / (merged.elapsedMs / 1000);
  return {
    next: i,
    figures: {
      deployment: dep.label, apis: targets.length, kind, concurrency: o.concurrency, seconds: round(merged.elapsedMs / 1000, 1),
      requests: merged.requests, errors: merged.errors, errorSamples: merged.errorSamples, qps: round(qps),
      latencyMs: roundDist(distribution(merged.latenciesMs)), qpsPerServiceCore: cpu.service ? round(qps / (cpu.service / 100)) : Number.NaN,
      perApiQps: runs.map((r) => round(r.rps)), cpuPct: cpu,
    },
  };
}

function mergeRuns(runs: LoadResult[]) {
  const latencies = new Float64Array(runs.reduce((n, r) => n + r.latenciesMs.length, 0));
  let at = 0;
  for (const r of runs) {
    latencies.set(r.latenciesMs, at);
    at += r.latenciesMs.length;
  }
  return {
    requests: runs.reduce((n, r) => n + r.requests, 0),
    ok: runs.reduce((n, r) => n + r.ok, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    errorSamples: [...new Set(runs.flatMap((r) => r.errorSamples))].slice(0, 5),
    elapsedMs: Math.max(...runs.map((r) => r.elapsedMs)),
    latenciesMs: latencies,
  };
}

const roundDist = (d: Distribution): Distribution =>
  Object.fromEntries(Object.entries(d).map(([k, v]) => [k, round(v, 2)])) as unknown as Distribution;

