import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort as freePortJs } from '../redis-launcher.mjs';
import { stopChild, waitHealthy, type Cleanup, type NodeChild } from './processes.js';
import { memorySnapshot, probeImport, type MemorySnapshot } from './scale-memory-probe.js';

const freePort = freePortJs as () => Promise<number>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Quarry process: NodeChild (so waitHealthy takes it) plus what the scale bench reads from its output. */
export interface QuarryChild extends NodeChild {
  /** Set once the output contained the child's `readyText`. */
  ready: boolean;
  /** Lines at pino level warn (40) or above, or non-JSON lines (crash text): the first 50, and how many. */
  warnings: string[];
  warningCount: number;
}

/**
 * Starts `node --expose-gc [--import tsx] --import <memory probe> <script> <args>` (tsx for a .ts
 * script; a compiled .js runs as it is); keeps the last 200 output lines (`lines`), the warnings,
 * and notes the ready line. `onLine` sees every line as it arrives.
 */
export function spawnQuarry(o: {
  name: string; script: string; args?: string[]; cwd: string; env: NodeJS.ProcessEnv; readyText?: string; onLine?: (line: string) => void;
}): QuarryChild {
  const loader = o.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // BENCH_NODE_ARGS: extra node flags, e.g. '--cpu-prof --cpu-prof-dir=prof' (as for bench:push's processes).
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...extra, '--expose-gc', ...loader, '--import', probeImport, o.script, ...(o.args ?? [])], {
    cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stopping = false;
  const child: QuarryChild = {
    name: o.name, proc, pid: proc.pid!, lines: [], unexpectedExit: null, ready: false, warnings: [], warningCount: 0,
    stop: async () => {
      stopping = true;
      await stopChild(proc);
    },
  };
  const onLine = (l: string) => {
    o.onLine?.(l);
    if (o.readyText && l.includes(o.readyText)) child.ready = true;
    child.lines.push(l);
    if (child.lines.length > 200) child.lines.shift();
    let level = 100;
    try {
      level = (JSON.parse(l) as { level?: number }).level ?? 100;
    } catch {
      // not pino JSON: crash text, counted as a warning
    }
    if (level >= 40) {
      child.warningCount++;
      if (child.warnings.length < 50) child.warnings.push(l.slice(0, 1000));
    }
  };
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => {
      const parts = (rest + d).split('\n');
      rest = parts.pop()!;
      for (const l of parts) if (l.trim()) onLine(l);
    });
  }
  proc.on('exit', (code, signal) => {
    if (!stopping) child.unexpectedExit = `${o.name} exited unexpectedly (${signal ?? `code ${code}`})`;
  });
  return child;
}

async function waitReady(child: QuarryChild, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!child.ready) {
    if (child.unexpectedExit) throw new Error(`${child.unexpectedExit}\n${child.lines.slice(-20).join('\n')}`);
    if (Date.now() > end) throw new Error(`${child.name} not ready within ${timeoutMs} ms\n${child.lines.slice(-20).join('\n')}`);
    await sleep(100);
  }
}

/**
 * Asks a child for its memory after a full GC (SIGUSR2 to the preloaded probe) and waits for the
 * answer file.
 */
export function memoryOf(child: QuarryChild, probeDir: string, timeoutMs = 30_000): Promise<MemorySnapshot> {
  return memorySnapshot(child.pid, probeDir, { name: child.name, died: () => child.unexpectedExit, timeoutMs });
}

export interface Api {
  child: QuarryChild;
  baseUrl: string;
}

/**
 * One installation as an operator would run it: API and worker processes over one store (`env`
 * says which) and one Redis prefix. In the scale-out mode each process gets a data folder of its
 * own (nothing shared on disk); in the embedded mode they share the one that holds the database.
 */
export class Deployment {
  readonly apis: Api[] = [];
  readonly workers: QuarryChild[] = [];
  private readonly dirs: string[] = [];
  /** Every process this deployment started, for the warnings of the JSON. */
  private readonly started: QuarryChild[] = [];

  readonly masterKey: string;
  /** Scale-out mode: each process gets a data folder of its own; the embedded mode shares the one holding the database. */
  readonly postgres: boolean;
  /** Vectors in an external index (QDRANT_URL set), not in each API's memory. */
  readonly external: boolean;

  constructor(
    readonly label: string,
    private readonly root: string,
    cleanup: Cleanup,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.masterKey = env.QUARRY_MASTER_KEY!;
    this.postgres = env.QUARRY_STORAGE === 'postgres';
    this.external = Boolean(env.QDRANT_URL);
    cleanup.add(`stop ${label}`, () => this.stopAll());
  }

  private dataDir(): string {
    if (!this.postgres) return this.env.QUARRY_DATA_DIR!;
    const d = mkdtempSync(join(tmpdir(), 'quarry-scale-'));
    this.dirs.push(d);
    return d;
  }

  async startApi(): Promise<Api> {
    const port = await freePort();
    const n = this.apis.length + 1;
    const child = spawnQuarry({
      // Compiled, as `npm start`, the Docker image and an operator run it (bench-scale.ts builds dist/ first).
      name: `${this.label} api${n}`, script: 'dist/api/main.js', cwd: this.root,
      // One process per replica: this bench compares replica counts (QUARRY_API_PROCESSES is bench:search's).
      env: { ...this.env, PORT: String(port), HOST: '127.0.0.1', QUARRY_DATA_DIR: this.dataDir(), QUARRY_API_PROCESSES: '1' },
    });
    const api = { child, baseUrl: `http://127.0.0.1:${port}` };
    this.apis.push(api);
    this.started.push(child);
    await waitHealthy(api.baseUrl, child);
    return api;
  }

  /** Starts `n` worker processes (each `--queues index,embed --concurrency c`), resolved once all report started. */
  async startWorkers(n: number, concurrency: number): Promise<QuarryChild[]> {
    const started: QuarryChild[] = [];
    for (let i = 0; i < n; i++) {
      const k = this.workers.length + 1;
      const child = spawnQuarry({
        name: `${this.label} worker${k}`, script: 'dist/workers/main.js', cwd: this.root, readyText: 'workers started',
        args: ['--queues', 'index,embed', '--concurrency', String(concurrency)],
        // Info level for the ready line; a worker logs little at info (start, reconciler actions).
        env: { ...this.env, QUARRY_DATA_DIR: this.dataDir(), QUARRY_LOG_LEVEL: 'info' },
      });
      this.workers.push(child);
      this.started.push(child);
      started.push(child);
    }
    await Promise.all(started.map((c) => waitReady(c)));
    return started;
  }

  async stopWorkers(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((w) => w.stop()));
  }

  async stopApis(): Promise<void> {
    await Promise.all(this.apis.splice(0).map((a) => a.child.stop()));
  }

  async stopAll(): Promise<void> {
    await Promise.all([this.stopApis(), this.stopWorkers()]);
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }

  /** Throws if a process died; says which, with its last lines. */
  assertAlive(): void {
    for (const c of [...this.apis.map((a) => a.child), ...this.workers]) {
      if (c.unexpectedExit) throw new Error(`${c.unexpectedExit}; last output:\n${c.lines.slice(-20).join('\n')}`);
    }
  }

  /** The processes' ids by name, for cpuMeter. */
  pids(): Record<string, number> {
    const out: Record<string, number> = {};
    this.apis.forEach((a, i) => (out[`api${i + 1}`] = a.child.pid));
    this.workers.forEach((w, i) => (out[`worker${i + 1}`] = w.pid));
    return out;
  }

  /** Warnings every process printed so far (first lines), for the JSON. */
  warnings(): Record<string, { count: number; first: string[] }> {
    return Object.fromEntries(this.started.filter((c) => c.warningCount).map((c) => [c.name, { count: c.warningCount, first: c.warnings.slice(0, 10) }]));
  }
}
