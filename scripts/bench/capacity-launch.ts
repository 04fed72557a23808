import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort as freePortJs } from '../redis-launcher.mjs';
import { makeTarget, send, type Reply } from './http-load.js';
import { mappedFilesOf } from './mapped-files.js';
import type { Cleanup } from './processes.js';
import type { MemorySnapshot } from './scale-memory-probe.js';
import { memoryOf, spawnQuarry, type QuarryChild } from './scale-processes.js';
import type { Query } from './search-corpus.js';
import { distribution, round, type Distribution } from './stats.js';
import { roundDist } from './search-steps.js';
import { uiPath } from './ui-steps.js';

const freePort = freePortJs as () => Promise<number>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One API process of `npm run bench:capacity`, launched on a seeded data folder and measured: launch
 * → first answered search, the log line that says the indexes are loaded, search latency at
 * concurrency 1, memory after a full GC, and the engine's snapshot files when it writes any.
 */

/** The API's info line once its first pass has loaded every index (api/app.ts, warmApp). */
export const LOADED_MESSAGE = 'search indexes loaded';
/**
 * Snapshot files of the engine in the data folder (paths relative to it): anything under a
 * `snapshots/` folder, or a file named `*.snapshot` (the globs `**​/snapshots/**` and `**​/*.snapshot`).
 */
export const SNAPSHOT_FILES = /(^|\/)snapshots\/|\.snapshot$/;
/** An info line of the engine about a snapshot; its `ms` (or `durationMs`) field is read as the time a write took. */
export const SNAPSHOT_MESSAGE = /snapshot/i;
/** How long a cold launch waits, after its searches, for the line of its first snapshot. */
const SNAPSHOT_WAIT_MS = 30_000;
/** After the first snapshot's line: the replacement of the built copy by the mapped one, and the release of memory a second later. */
const SETTLE_MS = 3000;
const POLL_MS = 25;

export interface Engine {
  /** `current`, or `baseline` (`--baseline`). */
  name: string;
  /** The checkout whose dist/api/main.js runs. */
  root: string;
  commit: string;
}

export interface LaunchSettings {
  redisUrl: string;
  masterKey: string;
  probeDir: string;
  queries: Query[];
  warmup: number;
  searches: number;
  timeoutMs: number;
  cleanup: Cleanup;
  say: (m: string) => void;
}

export interface SearchFigures {
  errors: number;
  errorSamples: string[];
  meanResults: number;
  latencyMs: Distribution;
}

export interface SnapshotFigures {
  files: number;
  bytes: number;
  /** The first snapshot line's `ms`; null when the engine logged none. */
  writeMs: number | null;
  lines: string[];
}

export interface LaunchFigures {
  engine: string;
  commit: string;
  sections: number;
  /** `cold`: no snapshot files in the folder at launch; `snapshot`: the ones the cold launch left. */
  start: 'cold' | 'snapshot';
  /** Why the launch gave no figures (died, heap limit, timeout); null when it went through. */
  failed: string | null;
  /** From spawning the process to the first 200 (with results, on a non-empty index). */
  firstAnswerMs: { content: number | null; ui: number | null };
  /** From spawning the process to the LOADED_MESSAGE line, and the `ms` the line itself reports. */
  loadedMs: number | null;
  loadedReportedMs: number | null;
  search: { content: SearchFigures; ui: SearchFigures } | null;
  /**
   * The search interface from the first answer on: `searches` searches one after another with no warm-up and
   * before the loaded line is awaited, what visitors meet while a start finishes (a copy built from the store
   * used to be searched before its vector lists were trained).
   */
  uiFromFirstAnswer: SearchFigures | null;
  memory: MemorySnapshot | null;
  /**
   * The last reading of resident memory while the process ran (every second, and at the end), its peak (VmHWM)
   * until then, and how much of it is file-backed (RssFile: memory-mapped snapshots and the program's own code),
   * pages the kernel may drop and read again rather than memory the process took.
   */
  resident: { rss: number; peak: number; file: number } | null;
  /**
   * File-backed resident memory by file (from /proc/<pid>/smaps, read with `memory`), the largest
   * first: which mapped file (snapshot, search.db, the embedder's table, the program) holds the pages.
   */
  mappedFiles: { path: string; rss: number }[] | null;
  snapshot: SnapshotFigures;
  /** Lines the process printed at warn or above (the first 50), crash text included. */
  warnings: string[];
}

/** Snapshot files in the data folder and their total size. */
export function snapshotFiles(dataDir: string): { files: string[]; bytes: number } {
  const files: string[] = [];
  let bytes = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (SNAPSHOT_FILES.test(relative(dataDir, path))) {
        files.push(path);
        bytes += statSync(path).size;
      }
    }
  };
  walk(dataDir);
  return { files, bytes };
}

/** Removes the engine's snapshot files, so the next launch starts from the store. */
export function removeSnapshots(dataDir: string): number {
  const { files } = snapshotFiles(dataDir);
  for (const f of files) rmSync(f, { force: true });
  return files.length;
}

const contentBody = (index: string, q: Query) =>
  JSON.stringify({ index_uid: index, query: q.terms.join(' '), boosting: 'title content', filter: '', fields: [], limit: 10 });

const resultCount = (r: Reply) => (JSON.parse(r.body) as { results: unknown[] }).results.length;

/** VmRSS, VmHWM and RssFile of a live process, from /proc; null once it is gone. */
function residentOf(pid: number): { rss: number; peak: number; file: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM'), file: kb('RssFile') };
  } catch {
    return null;
  }
}

/** Why the process is gone, in a few words: the heap limit when V8 said so. */
function deathReason(child: QuarryChild, t0: number): string {
  const how = `${child.proc.signalCode ?? `code ${child.proc.exitCode}`}, ${Math.round((performance.now() - t0) / 1000)} s after launch`;
  return /heap limit|heap out of memory/i.test(child.lines.join('\n')) ? `heap limit (${how})` : `exited (${how})`;
}

class LaunchFailed extends Error {}

/** A step that failed because the process died fails the launch (LaunchFailed); any other failure is the bench's. */
function orDeath<T>(step: Promise<T>, alive: () => void): Promise<T> {
  return step.catch((err: unknown) => {
    alive();
    throw err;
  });
}

/** Launches `engine`'s API on `dataDir` and measures it; never throws for what the process does. */
export async function measureLaunch(
  engine: Engine, folder: { dataDir: string; sections: number; index: string; uiUid: string }, start: LaunchFigures['start'], s: LaunchSettings,
): Promise<LaunchFigures> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const figures: LaunchFigures = {
    engine: engine.name, commit: engine.commit, sections: folder.sections, start, failed: null,
    firstAnswerMs: { content: null, ui: null }, loadedMs: null, loadedReportedMs: null, search: null, uiFromFirstAnswer: null, memory: null, resident: null, mappedFiles: null,
    snapshot: { files: 0, bytes: 0, writeMs: null, lines: [] }, warnings: [],
  };
  const t0 = performance.now();
  const onLine = (line: string) => {
    let entry: { msg?: string; ms?: number; durationMs?: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return; // crash text: kept in the child's lines
    }
    if (entry.msg === LOADED_MESSAGE && figures.loadedMs === null) {
      figures.loadedMs = Math.round(performance.now() - t0);
      figures.loadedReportedMs = entry.ms ?? null;
    } else if (entry.msg && SNAPSHOT_MESSAGE.test(entry.msg)) {
      figures.snapshot.lines.push(line.slice(0, 500));
      const ms = entry.ms ?? entry.durationMs;
      if (figures.snapshot.writeMs === null && typeof ms === 'number') figures.snapshot.writeMs = ms;
    }
  };
  const child = spawnQuarry({
    name: `${engine.name} api (${folder.sections} sections, ${start})`, script: 'dist/api/main.js', cwd: engine.root, onLine,
    env: {
      ...cleanEnv(), QUARRY_DATA_DIR: folder.dataDir, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: s.redisUrl,
      QUARRY_REDIS_PREFIX: 'bench-capacity', QUARRY_MASTER_KEY: s.masterKey, QUARRY_API_PROCESSES: '1',
      // Info: the loaded and snapshot lines are info lines (one line per request comes with them).
      QUARRY_LOG_LEVEL: 'info', BENCH_MEMORY_PROBE_DIR: s.probeDir,
      // The search interface's rate limits stay on, never refusing the one bench client.
      QUARRY_RATE_LIMIT_CLIENT: '100000000/1', QUARRY_RATE_LIMIT_UID: '100000000/1',
    },
  });
  s.cleanup.add(`stop ${child.name}`, () => child.stop());
  // A process that dies leaves no /proc entry to read: its memory is read while it runs.
  const sampler = setInterval(() => (figures.resident = residentOf(child.pid) ?? figures.resident), 1000);
  const content = makeTarget(baseUrl, { 'x-api-key': s.masterKey }, 2);
  const ui = makeTarget(baseUrl, {}, 2);
  const deadline = t0 + s.timeoutMs;
  const alive = () => {
    if (child.unexpectedExit) throw new LaunchFailed(deathReason(child, t0));
  };
  const inTime = () => {
    alive();
    if (performance.now() > deadline) throw new LaunchFailed(`no answer within the launch timeout (${Math.round(s.timeoutMs / 1000)} s)`);
  };
  try {
    const answered = (r: Reply) => r.status === 200 && (folder.sections === 0 || resultCount(r) > 0);
    const q = s.queries[0];
    const [c, u] = await Promise.all([
      firstAnswer(() => send(content, 'POST', '/v1/content/search', contentBody(folder.index, q)), answered, inTime),
      firstAnswer(() => send(ui, 'GET', uiPath(folder.uiUid, q, 'bench-capacity-0')), answered, inTime),
    ]);
    figures.firstAnswerMs = { content: Math.round(c - t0), ui: Math.round(u - t0) };
    figures.uiFromFirstAnswer = await sequential({ ...s, warmup: 0 }, (k) => send(ui, 'GET', uiPath(folder.uiUid, s.queries[k % s.queries.length], `bench-capacity-first-${k}`)), alive);
    // An engine that no longer logs the line is measured all the same, once the launch timeout has passed.
    while (figures.loadedMs === null && performance.now() < deadline) {
      alive();
      await sleep(POLL_MS);
    }
    if (figures.loadedMs === null) s.say(`  no "${LOADED_MESSAGE}" line within the launch timeout`);
    figures.search = {
      content: await sequential(s, (k) => send(content, 'POST', '/v1/content/search', contentBody(folder.index, s.queries[k % s.queries.length])), alive),
      ui: await sequential(s, (k) => send(ui, 'GET', uiPath(folder.uiUid, s.queries[k % s.queries.length], `bench-capacity-${k}`)), alive),
    };
    // A cold start gets a moment to write its first snapshot (the engine leaves it until searches pause) and say how
    // long the write took, then to put the mapped copy in place and give the built one's memory back.
    const waitUntil = performance.now() + SNAPSHOT_WAIT_MS;
    while (start === 'cold' && figures.snapshot.writeMs === null && performance.now() < waitUntil) {
      alive();
      await sleep(100);
    }
    if (start === 'cold' && figures.snapshot.writeMs !== null) await sleep(SETTLE_MS);
    figures.memory = await orDeath(memoryOf(child, s.probeDir), alive);
    figures.mappedFiles = mappedFilesOf(child.pid);
  } catch (err) {
    if (!(err instanceof LaunchFailed)) throw err;
    figures.failed = err.message;
    s.say(`  FAILED: ${err.message}`);
  } finally {
    clearInterval(sampler);
    figures.resident = residentOf(child.pid) ?? figures.resident;
    content.agent.destroy();
    ui.agent.destroy();
    // Gracefully (SIGTERM): an engine may write its snapshot on the way out.
    await child.stop();
  }
  const snap = snapshotFiles(folder.dataDir);
  figures.snapshot.files = snap.files.length;
  figures.snapshot.bytes = snap.bytes;
  figures.warnings = child.warnings;
  return figures;
}

/**
 * The first time (performance.now()) `request` gave an answer `ok` accepts; until then, again
 * POLL_MS after each answer. One request at a time: the first may take the whole load of the index.
 */
async function firstAnswer(request: () => Promise<Reply>, ok: (r: Reply) => boolean, inTime: () => void): Promise<number> {
  for (;;) {
    inTime();
    const pending = request().catch(() => null);
    let reply: Reply | null | undefined;
    while ((reply = await Promise.race([pending, sleep(250).then(() => undefined)])) === undefined) inTime();
    if (reply && ok(reply)) return performance.now();
    await sleep(POLL_MS);
  }
}

/** `warmup` searches, then `searches` timed one after the other (queries after the warm-up's). */
async function sequential(s: LaunchSettings, request: (k: number) => Promise<Reply>, alive: () => void): Promise<SearchFigures> {
  for (let k = 0; k < s.warmup; k++) await orDeath(request(k), alive);
  const latencies: number[] = [];
  const samples: string[] = [];
  let errors = 0;
  let results = 0;
  for (let k = s.warmup; k < s.warmup + s.searches; k++) {
    alive();
    const t = performance.now();
    const r = await orDeath(request(k), alive);
    latencies.push(performance.now() - t);
    if (r.status === 200) results += resultCount(r);
    else if (errors++ < 3) samples.push(`${r.status} ${r.body.slice(0, 200)}`);
  }
  return { errors, errorSamples: samples, meanResults: round(results / Math.max(1, s.searches - errors), 2), latencyMs: roundDist(distribution(latencies)) };
}

/** Inherited QUARRY_* settings would make the figures depend on the caller's shell: defaults only. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUARRY_') && k !== 'DATABASE_URL' && k !== 'QDRANT_URL'));
}
