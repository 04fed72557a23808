import { performance } from 'node:perf_hooks';
import { makeTarget } from './http-load.js';
import { createPushIndex } from './quarry-client.js';
import type { MemorySnapshot } from './scale-memory-probe.js';
import { memoryOf, type Deployment } from './scale-processes.js';
import { sectionCount } from './scale-services.js';
import {
  INDEX, checkAnswers, indexRun, searchRun, searchTargets,
  type IndexFigures, type ScaleSettings, type SearchFigures, type SearchKind, type Services,
} from './scale-steps.js';
import { createUiConfiguration } from './ui-steps.js';

/**
 * The phases of `npm run bench:scale` for one deployment: index the corpus with N workers (an empty
 * API's memory first, when asked), then search through 1..K fresh APIs (memory of each once warm).
 */

export interface MemoryFigures {
  deployment: string;
  process: string;
  /** `empty`: index and configuration exist, no documents; `loaded`: the corpus indexed; `grown`: more documents added. */
  state: 'empty' | 'loaded' | 'grown';
  vectors: 'in memory' | 'external';
  sections: number;
  /** Loaded APIs: from spawning the process to its first content search answered (start, index load, IVF training). */
  firstAnswerMs: number | null;
  /** Fresh APIs: from spawning the process to its health check answering, and what the same first search took when asked again right after. */
  readyMs?: number;
  againMs?: number;
  /** With the Qdrant stand-in in the bench's process: its own time (validation and search) inside the first answer and inside the same search again. */
  standInFirstMs?: number;
  standInAgainMs?: number;
  snapshot: MemorySnapshot;
}

export interface PhaseContext {
  settings: ScaleSettings;
  services: Services;
  bodies: { body: string; count: number }[];
  /** Documents added after the searches, for a second memory reading (numbered copies: no vector reused). */
  extraBodies: { body: string; count: number }[];
  queries: string[];
  probeDir: string;
  /** Where the deployment's sections are, to count them. */
  store: (dep: Deployment) => { url: string; schema: string } | { dataDir: string };
  memory: MemoryFigures[];
  say: (m: string) => void;
  /** The Qdrant stand-in's busy time so far (ms), when it runs in this process. */
  standInBusyMs?: () => number;
}

const KINDS: SearchKind[] = ['content', 'ui'];
const vectorsOf = (dep: Deployment): MemoryFigures['vectors'] => (dep.external ? 'external' : 'in memory');

/** Warms every API of `dep` (or only `only`) on both kinds: a check of the answers, then `warmupS` of load. */
async function warm(dep: Deployment, c: PhaseContext, uiUid: string, offset: number, only?: number): Promise<Record<string, unknown>> {
  const checks: Record<string, unknown> = {};
  for (const kind of KINDS) {
    const targets = searchTargets(dep, kind, c.settings.concurrency);
    const used = only === undefined ? targets : [targets[only]];
    checks[kind] = await checkAnswers(used, kind, c.queries, uiUid);
    if (c.settings.warmupS > 0) {
      await searchRun(dep, used, kind, c.queries, uiUid, { concurrency: c.settings.concurrency, durationMs: c.settings.warmupS * 1000, offset: offset + 7919 });
    }
    for (const t of targets) t.agent.destroy();
  }
  return checks;
}

/**
 * Starts an API, creates the index and a UI configuration, optionally records the empty API's
 * memory, then indexes the corpus with `workers` processes. Leaves nothing running.
 */
export async function indexPhase(dep: Deployment, c: PhaseContext, workers: number, measureEmpty: boolean): Promise<{ figures: IndexFigures; uiUid: string }> {
  const api = await dep.startApi();
  const admin = makeTarget(api.baseUrl, { 'x-api-key': dep.masterKey }, 4);
  await createPushIndex(admin, INDEX);
  const uiUid = (await createUiConfiguration(admin, INDEX)).uid;
  admin.agent.destroy();
  if (measureEmpty) {
    await warm(dep, c, uiUid, 0);
    c.memory.push({ deployment: dep.label, process: 'api1', state: 'empty', vectors: vectorsOf(dep), sections: 0, firstAnswerMs: null, snapshot: await memoryOf(api.child, c.probeDir) });
  }
  c.say(`${dep.label}: indexing ${c.bodies.reduce((n, b) => n + b.count, 0)} documents with ${workers} worker process(es)`);
  await dep.startWorkers(workers, c.settings.workerConcurrency);
  const figures = await indexRun(dep, api, c.bodies, c.settings, c.services, c.say);
  const counted = await sectionCount(c.store(dep), INDEX);
  figures.sections = counted.sections;
  c.say(`  ${figures.docsPerSecond} docs/s (${figures.indexedSeconds} s, ${counted.sections} sections, ${counted.withVector} with a vector); CPU ${JSON.stringify(figures.cpuPct)}`);
  await dep.stopWorkers();
  await dep.stopApis();
  return { figures, uiUid };
}

/**
 * Search through 1..`maxApis` fresh APIs: each new API is warmed and its memory read, then every
 * kind runs closed-loop over all the APIs started so far. The workers are stopped: nothing else runs.
 */
export async function searchPhase(dep: Deployment, c: PhaseContext, uiUid: string, maxApis: number, sections: number): Promise<SearchFigures[]> {
  const out: SearchFigures[] = [];
  let offset = 0;
  for (let k = 1; k <= maxApis; k++) {
    const t0 = performance.now();
    const api = await dep.startApi();
    const first = searchTargets(dep, 'content', 1)[k - 1];
    await checkAnswers([first], 'content', c.queries, uiUid, 1);
    first.agent.destroy();
    const firstAnswerMs = Math.round(performance.now() - t0);
    const checks = await warm(dep, c, uiUid, offset, k - 1);
    c.say(`${dep.label}: api${k} warm (${JSON.stringify(checks)})`);
    c.memory.push({ deployment: dep.label, process: `api${k}`, state: 'loaded', vectors: vectorsOf(dep), sections, firstAnswerMs, snapshot: await memoryOf(api.child, c.probeDir) });
    for (const kind of KINDS) {
      const targets = searchTargets(dep, kind, c.settings.concurrency);
      const r = await searchRun(dep, targets, kind, c.queries, uiUid, {
        concurrency: c.settings.concurrency, durationMs: c.settings.durationS * 1000, offset, services: c.services,
      });
      for (const t of targets) t.agent.destroy();
      offset = r.next;
      const f = r.figures;
      c.say(`  ${kind} on ${k} API(s): ${f.qps} q/s, p50 ${f.latencyMs.p50} ms, p99 ${f.latencyMs.p99} ms, ${f.errors} errors; CPU ${JSON.stringify(f.cpuPct)}`);
      if (f.errors) c.say(`  e.g. ${f.errorSamples[0]}`);
      out.push(f);
    }
  }
  await dep.stopApis();
  return out;
}

/** The memory of one fresh API, warmed, recorded as `state`; the API is stopped afterwards. */
export async function freshApiMemory(dep: Deployment, c: PhaseContext, uiUid: string, state: MemoryFigures['state'], sections: number): Promise<void> {
  const busy = c.standInBusyMs ?? (() => 0);
  const t0 = performance.now();
  const busy0 = busy();
  const api = await dep.startApi();
  const readyMs = Math.round(performance.now() - t0);
  const first = searchTargets(dep, 'content', 1)[0];
  await checkAnswers([first], 'content', c.queries, uiUid, 1);
  const firstAnswerMs = Math.round(performance.now() - t0);
  const standInFirstMs = Math.round(busy() - busy0);
  // The same search again: what it costs once nothing is cold (with a Qdrant stand-in, mostly the stand-in's own time).
  const t1 = performance.now();
  const busy1 = busy();
  await checkAnswers([first], 'content', c.queries, uiUid, 1);
  const againMs = Math.round(performance.now() - t1);
  const standInAgainMs = Math.round(busy() - busy1);
  first.agent.destroy();
  await warm(dep, c, uiUid, 0);
  const standIn = c.standInBusyMs ? { standInFirstMs, standInAgainMs } : {};
  c.memory.push({ deployment: dep.label, process: 'api1', state, vectors: vectorsOf(dep), sections, firstAnswerMs, readyMs, againMs, ...standIn, snapshot: await memoryOf(api.child, c.probeDir) });
  const inStandIn = (ms: number) => (c.standInBusyMs ? `, ${ms} ms of it in the Qdrant stand-in` : '');
  c.say(`${dep.label}: fresh API with ${sections} sections: VmRSS ${Math.round(c.memory.at(-1)!.snapshot.vmRss / 2 ** 20)} MB, healthy after ${readyMs} ms, first answer after ${firstAnswerMs} ms${inStandIn(standInFirstMs)} (the same search again: ${againMs} ms${inStandIn(standInAgainMs)})`);
  await dep.stopApis();
}

/**
 * Second memory reading: adds `extraBodies` to the index (the workers of `workers` processes), then
 * reads a fresh, warmed API's memory. Growth between the two readings over the sections added is
 * the per-section cost without the fixed costs (code, caches, buffers) of a warmed process.
 */
export async function growPhase(dep: Deployment, c: PhaseContext, uiUid: string, workers: number, indexed: number): Promise<IndexFigures> {
  const api = await dep.startApi();
  c.say(`${dep.label}: adding ${c.extraBodies.reduce((n, b) => n + b.count, 0)} documents for the second memory reading`);
  await dep.startWorkers(workers, c.settings.workerConcurrency);
  const figures = await indexRun(dep, api, c.extraBodies, c.settings, c.services, c.say, indexed);
  figures.sections = (await sectionCount(c.store(dep), INDEX)).sections;
  await dep.stopWorkers();
  await dep.stopApis();
  await freshApiMemory(dep, c, uiUid, 'grown', figures.sections);
  return figures;
}
