import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config/config.js';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { REDIS_HELP, findRedisServer, freePort as freePortJs, startRedis as startRedisJs } from '../redis-launcher.mjs';
import { ensureServer } from '../build-server.mjs';

const freePort = freePortJs as () => Promise<number>;
const startRedis = startRedisJs as (o: { binary: string; dir: string; port: number }) => Promise<ChildProcess>;

/** Everything the bench started, undone in reverse order: at the end, on error, on Ctrl-C. */
export class Cleanup {
  private readonly steps: { what: string; fn: () => unknown }[] = [];
  private running: Promise<void> | null = null;
  add(what: string, fn: () => unknown) {
    this.steps.push({ what, fn });
  }
  private interruptedBy: string | null = null;

  /** Ctrl-C or SIGTERM cleans up and exits (130); a second signal exits at once. */
  onSignals(say: (m: string) => void): void {
    const handler = (sig: string) => {
      if (this.interruptedBy) process.exit(1);
      this.interruptedBy = sig;
      say(`${sig}: cleaning up`);
      void this.run().then(() => process.exit(130));
    };
    process.on('SIGINT', () => handler('SIGINT'));
    process.on('SIGTERM', () => handler('SIGTERM'));
  }

  /** True once a signal started the cleanup: errors of the step it cut short mean nothing. */
  get interrupted(): boolean {
    return this.interruptedBy !== null;
  }

  /** Runs every step once, last added first; a second caller waits for the same run. */
  run(): Promise<void> {
    this.running ??= this.runSteps();
    return this.running;
  }
  private async runSteps() {
    while (this.steps.length) {
      const { what, fn } = this.steps.pop()!;
      try {
        await fn();
      } catch (err) {
        console.error(`[bench] cleanup "${what}" failed: ${(err as Error).message}`);
      }
    }
  }
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`. Resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface NodeChild {
  name: string;
  proc: ChildProcess;
  pid: number;
  /** Output lines (stdout+stderr) the child printed: pino JSON at warn and above, or crash text. */
  lines: string[];
  /** Set when the child exited before we asked it to. */
  unexpectedExit: string | null;
  stop(): Promise<void>;
}

function spawnNode(name: string, script: string, cwd: string, env: NodeJS.ProcessEnv): NodeChild {
  // BENCH_NODE_ARGS: extra node flags for the service's processes, e.g. '--cpu-prof --cpu-prof-dir=prof' (not allowed in NODE_OPTIONS).
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The service's processes as `npm start` runs them: compiled (dist/, built by startStack); the bench's own
  // helpers (the bare server) and a TypeScript module BENCH_NODE_ARGS imports go through tsx.
  const service = /^(api|workers)\//.test(script);
  const loader = !service || extra.some((a) => a.endsWith('.ts')) ? ['--import', 'tsx'] : [];
  const entry = service ? join('dist', script.replace(/\.ts$/, '.js')) : script;
  const proc = spawn(process.execPath, [...extra, ...loader, '--enable-source-maps', entry], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const child: NodeChild = {
    name, proc, pid: proc.pid!, lines: [], unexpectedExit: null,
    stop: async () => {
      stopping = true;
      await stopChild(proc);
    },
  };
  let stopping = false;
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => {
      const parts = (rest + d).split('\n');
      rest = parts.pop()!;
      for (const l of parts) if (l.trim() && child.lines.length < 2000) child.lines.push(l);
    });
  }
  proc.on('exit', (code, signal) => {
    if (!stopping) child.unexpectedExit = `${name} exited unexpectedly (${signal ?? `code ${code}`})`;
  });
  return child;
}

/** Waits for GET /healthz to answer 200, failing early if the child died. */
export async function waitHealthy(baseUrl: string, child: NodeChild, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.unexpectedExit) throw new Error(`${child.unexpectedExit}\n${child.lines.slice(-20).join('\n')}`);
    try {
      const r = await fetch(`${baseUrl}/healthz`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} did not answer ${baseUrl}/healthz within ${timeoutMs} ms\n${child.lines.slice(-20).join('\n')}`);
}

/** Waits until `n` API processes serve (the cluster primary's quarry_api_processes), so no run measures a start. */
async function waitApiProcesses(baseUrl: string, masterKey: string, n: number, api: NodeChild, timeoutMs = 90_000): Promise<void> {
  if (n === 1) return;
  const end = Date.now() + timeoutMs;
  let serving = 0;
  while (Date.now() < end) {
    if (api.unexpectedExit) throw new Error(`${api.unexpectedExit}\n${api.lines.slice(-20).join('\n')}`);
    const r = await fetch(`${baseUrl}/metrics`, { headers: { 'x-api-key': masterKey } });
    serving = Number(/^quarry_api_processes (\d+)$/m.exec(await r.text())?.[1] ?? 0);
    if (serving >= n) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${serving} of ${n} API processes serving after ${timeoutMs} ms`);
}

export interface Stack {
  baseUrl: string;
  masterKey: string;
  dataDir: string;
  api: NodeChild;
  /** API processes sharing the port (QUARRY_API_PROCESSES); `api` is their primary when more than one. */
  apiProcesses: number;
  worker: NodeChild;
  generator: NodeChild;
  redisPid: number;
  /** Throws if the API or worker died. */
  assertAlive(): void;
}

/** A redis-server of the bench's own on a free port, its files under `dir`; `cleanup` stops it. */
export async function startPrivateRedis(dir: string, cleanup: Cleanup): Promise<{ url: string; pid: number }> {
  const binary = findRedisServer() as string | null;
  if (!binary) throw new Error(REDIS_HELP as string);
  const port = await freePort();
  const redis = await startRedis({ binary, dir, port });
  cleanup.add('stop redis', () => stopChild(redis, 5000));
  return { url: `redis://127.0.0.1:${port}`, pid: redis.pid! };
}

/** A private Redis, the API and one worker, all on fresh temp folders; `extraEnv` on top of the defaults. */
export async function startStack(root: string, cleanup: Cleanup, extraEnv: Record<string, string> = {}): Promise<Stack> {
  const tmp = mkdtempSync(join(tmpdir(), 'quarry-bench-'));
  cleanup.add('remove temp dir', () => rmSync(tmp, { recursive: true, force: true }));
  const redis = await startPrivateRedis(join(tmp, 'redis'), cleanup);
  const dataDir = join(tmp, 'data');
  const masterKey = `qb_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  // Inherited QUARRY_* settings would make the figures depend on the caller's shell: defaults only, but
  // QUARRY_API_PROCESSES, which a run states (stack.apiProcesses), to compare one API process with several.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUARRY_') || k === 'QUARRY_API_PROCESSES'));
  Object.assign(env, {
    QUARRY_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: redis.url,
    QUARRY_MASTER_KEY: masterKey, QUARRY_LOG_LEVEL: 'warn', QUARRY_REDIS_PREFIX: 'bench', ...extraEnv,
  });
  await ensureServer();
  const api = spawnNode('api', 'api/main.ts', root, env);
  cleanup.add('stop api', () => api.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  const apiProcesses = loadConfig({ QUARRY_API_PROCESSES: env.QUARRY_API_PROCESSES }).http.processes;
  await waitHealthy(baseUrl, api);
  await waitApiProcesses(baseUrl, masterKey, apiProcesses, api);
  // After the API has migrated the database, so the two processes don't race on the first open.
  const worker = spawnNode('worker', 'workers/main.ts', root, env);
  cleanup.add('stop worker', () => worker.stop());
  const generator = spawnNode('generator', 'workers/generator-main.ts', root, env);
  cleanup.add('stop generator', () => generator.stop());
  return {
    baseUrl, masterKey, dataDir, api, apiProcesses, worker, generator, redisPid: redis.pid,
    assertAlive() {
      for (const c of [api, worker, generator]) {
        if (c.unexpectedExit) throw new Error(`${c.unexpectedExit}; last output:\n${c.lines.slice(-20).join('\n')}`);
      }
    },
  };
}

/** The baseline: a bare Express 5 app with the same body limit, in its own process. */
export async function startBare(root: string, cleanup: Cleanup): Promise<{ baseUrl: string; child: NodeChild }> {
  const port = await freePort();
  const child = spawnNode('bare', 'scripts/bench/bare-server.ts', root, { ...process.env, PORT: String(port) });
  cleanup.add('stop bare server', () => child.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitHealthy(baseUrl, child);
  return { baseUrl, child };
}

/** Parent pid and CPU time (user+system, all threads, in ms) of every live process, from /proc. */
/** The parent and the CPU time (user + system, ms) of a /proc stat line, a process's or a thread's. */
function statOf(stat: string): { ppid: number; cpuMs: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 }; // CLK_TCK is 100 on Linux
}

function processTable(): Map<number, { ppid: number; cpuMs: number }> {
  const table = new Map<number, { ppid: number; cpuMs: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const { ppid, cpuMs } = statOf(readFileSync(`/proc/${d}/stat`, 'utf8'));
      table.set(Number(d), { ppid, cpuMs });
    } catch {
      // exited meanwhile
    }
  }
  return table;
}

/**
 * CPU time so far of a process's main thread (JavaScript, and garbage collection done there) and of its
 * other threads together (V8's helpers: concurrent and parallel garbage collection, optimising compilers;
 * libuv's pool), in ms, from /proc/<pid>/task; NaN when the process is gone.
 */
export function threadCpuMs(pid: number): { main: number; others: number } {
  const out = { main: 0, others: 0 };
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        const { cpuMs } = statOf(readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8'));
        if (t === String(pid)) out.main += cpuMs;
        else out.others += cpuMs;
      } catch {
        // the thread ended meanwhile: its time leaves with it
      }
    }
  } catch {
    return { main: Number.NaN, others: Number.NaN };
  }
  return out;
}

/** A process and its live descendants (an API's cluster processes), from /proc. */
export function processTree(pid: number, table = processTable()): number[] {
  const tree = table.has(pid) ? [pid] : [];
  for (let i = 0; i < tree.length; i++) for (const [p, { ppid }] of table) if (ppid === tree[i]) tree.push(p);
  return tree;
}

/**
 * CPU time (user+system, all threads) of a process and its live descendants so far, in ms, from /proc;
 * NaN where unavailable. A descendant that exits in between takes its share with it.
 */
export function cpuTimeMs(pid: number, { descendants = true } = {}): number {
  const table = processTable();
  const tree = descendants ? processTree(pid, table) : table.has(pid) ? [pid] : [];
  return tree.length ? tree.reduce((sum, p) => sum + table.get(p)!.cpuMs, 0) : Number.NaN;
}

/** The API's own processes: the one started, and its cluster processes when QUARRY_API_PROCESSES > 1. */
export function apiPids(stack: Stack): number[] {
  return processTree(stack.api.pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('api/main.js');
    } catch {
      return false;
    }
  });
}

/** Busy and total CPU time of the whole machine so far (all cores), in ms, from /proc/stat. */
function machineCpuMs(): { busy: number; total: number } {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    const idle = ticks[3] + (ticks[4] ?? 0); // idle + iowait
    return { busy: ((total - idle) * 1000) / 100, total: (total * 1000) / 100 };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/**
 * CPU use over a stretch of time, in % of one core: the given processes, `bench` (this process: the
 * load generator), `machine` (everything on the box, up to cores x 100) and `others` (machine minus
 * ours: load the bench did not cause, e.g. other jobs sharing the machine).
 */
export function cpuMeter(children: Record<string, number>) {
  const pids = { bench: process.pid, ...children };
  // The bench's own process alone: its descendants are the processes measured beside it.
  const cpu = (k: string, pid: number) => cpuTimeMs(pid, { descendants: k !== 'bench' });
  const t0 = performance.now();
  const m0 = machineCpuMs();
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpu(k, pid)]));
  return () => {
    const wall = performance.now() - t0;
    const m1 = machineCpuMs();
    const pct: Record<string, number> = {};
    for (const [k, pid] of Object.entries(pids)) pct[k] = Math.round(((cpu(k, pid) - before[k]) / wall) * 100);
    pct.machine = Math.round(((m1.busy - m0.busy) / wall) * 100);
    const ours = Object.keys(pids).reduce((sum, k) => sum + pct[k], 0);
    pct.others = Math.max(0, pct.machine - ours);
    return pct;
  };
}

/** What the machine was doing before a bench starts (other processes' CPU over `ms`); says so when it is busy. */
export async function machineBefore(say: (m: string) => void, ms = 2000): Promise<{ loadAvg: number[]; idleCpu: Record<string, number> }> {
  const loadAvg = os.loadavg();
  const idle = cpuMeter({});
  await new Promise((r) => setTimeout(r, ms));
  const idleCpu = idle();
  if (idleCpu.others > 25) say(`warning: the machine is already busy (${idleCpu.others}% of one core used by other processes, load ${loadAvg[0].toFixed(2)}); figures will be noisy`);
  return { loadAvg, idleCpu };
}

/** Writes a benchmark's JSON beside the others in bench-results/. */
export function writeResults(root: string, file: string, out: unknown, say: (m: string) => void): void {
  mkdirSync(join(root, 'bench-results'), { recursive: true });
  writeFileSync(join(root, 'bench-results', file), `${JSON.stringify(out, null, 2)}\n`);
  say(`wrote bench-results/${file}`);
}

/** A failed run: the error, and the last lines the API and worker printed (unless a signal cut it short). */
export function reportFailure(err: unknown, cleanup: Cleanup, stack: Stack | undefined, tag = 'bench'): void {
  process.exitCode = 1;
  if (cleanup.interrupted) return; // the processes were stopped under the running step; its error says nothing
  console.error(`[${tag}] FAILED: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  if (!stack) return;
  for (const c of [stack.api, stack.worker]) if (c.lines.length) console.error(`--- last output of ${c.name} ---\n${c.lines.slice(-30).join('\n')}`);
}

/** The machine a run measured, for the JSON beside its figures. */
export function machineInfo(loadAvgAtStart: number[], cpuBeforeStartPct: unknown) {
  return {
    cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}`,
    totalMemMB: Math.round(os.totalmem() / 2 ** 20), loadAvgAtStart: loadAvgAtStart.map((v) => Number(v.toFixed(2))), cpuBeforeStartPct,
  };
}

/** Says what the API and worker printed at warn or above; returns the first lines of each for the JSON. */
export function processOutput(stack: Stack, say: (m: string) => void): Record<string, string[]> {
  const logLines = { api: stack.api.lines, worker: stack.worker.lines };
  for (const [name, lines] of Object.entries(logLines)) {
    if (lines.length) say(`${name} printed ${lines.length} line(s) at warn or above; first: ${lines[0].slice(0, 300)}`);
  }
  return Object.fromEntries(Object.entries(logLines).map(([k, v]) => [k, v.slice(0, 50)]));
}
