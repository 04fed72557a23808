import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The kinds of process a Quarry installation runs; each can be killed on its own. */
export type ProcessKind = 'api' | 'index' | 'embed' | 'generator' | 'redis';

export interface SupervisedSpec {
  kind: ProcessKind;
  /** Starts one process; resolves once it is spawned (not yet ready). */
  spawn(): ChildProcess | Promise<ChildProcess>;
  /** Resolves true once the process serves; false if it died first. */
  ready(child: ChildProcess, lines: string[]): Promise<boolean>;
  /** Seconds between an exit and the restart, as `npm start` and most supervisors do (default 1). */
  restartDelayMs?: number;
}

/** What happened to one process kind over a run. */
export interface ProcessStats {
  kills: number;
  /** Kills after which the process came back and served again. */
  survived: number;
  /** Exits nobody asked for (crashes): each is a finding. */
  crashes: { at: number; exit: string; lastLines: string[] }[];
  restarts: number;
}

/**
 * One process kept running the way a supervisor (systemd, Docker's restart policy, `npm start`)
 * keeps it: any exit is followed by a restart a second later. The runner kills it with SIGKILL
 * (an expected exit), stops it with SIGSTOP/SIGCONT, and asks whether it is up.
 */
export class Supervised {
  child: ChildProcess | null = null;
  up = false;
  readonly stats: ProcessStats = { kills: 0, survived: 0, crashes: [], restarts: 0 };
  private lines: string[] = [];
  private stopping = false;
  private killedByUs = false;
  private pendingKill = false;
  private starting: Promise<void> | null = null;
  /** Hook run before each restart (e.g. Redis gets an empty folder). */
  beforeRestart: (() => void | Promise<void>) | null = null;

  constructor(readonly name: string, private readonly spec: SupervisedSpec) {}

  get kind(): ProcessKind {
    return this.spec.kind;
  }

  /** Starts the process and waits until it serves. */
  start(): Promise<void> {
    this.starting ??= this.launch().finally(() => (this.starting = null));
    return this.starting;
  }

  private async launch(): Promise<void> {
    let child: ChildProcess;
    try {
      child = await this.spec.spawn();
    } catch (err) {
      // Did not even start (e.g. Redis on a full disk): a crash like any other, tried again shortly.
      this.stats.crashes.push({ at: Date.now(), exit: `failed to start: ${(err as Error).message}`, lastLines: [] });
      this.scheduleRestart();
      return;
    }
    this.child = child;
    this.lines = [];
    const keep = (d: Buffer | string) => {
      for (const l of String(d).split('\n')) if (l.trim()) this.lines.push(l.slice(0, 2000));
      if (this.lines.length > 400) this.lines.splice(0, this.lines.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => this.onExit(child, signal ?? `code ${code}`));
    const ok = await this.spec.ready(child, this.lines);
    if (ok && this.child === child && child.exitCode === null && child.signalCode === null) {
      this.up = true;
      if (this.pendingKill) {
        this.pendingKill = false;
        this.stats.survived++;
      }
    }
  }

  private onExit(child: ChildProcess, exit: string) {
    if (this.child !== child) return;
    this.up = false;
    if (this.stopping) return;
    if (this.killedByUs) {
      this.killedByUs = false;
    } else {
      this.stats.crashes.push({ at: Date.now(), exit, lastLines: this.lines.slice(-30) });
    }
    this.scheduleRestart();
  }

  private scheduleRestart() {
    setTimeout(() => {
      if (this.stopping) return;
      void Promise.resolve(this.beforeRestart?.()).then(() => {
        this.stats.restarts++;
        return this.start();
      });
    }, this.spec.restartDelayMs ?? 1000);
  }

  /** SIGKILL, as an OOM killer or a pulled plug would; the supervisor restarts it. */
  kill(): void {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.stats.kills++;
    this.killedByUs = true;
    this.pendingKill = true;
    this.up = false;
    this.child.kill('SIGKILL');
  }

  /** SIGSTOP: the process holds its sockets open and answers nothing. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** True once the process serves again, or false after `timeoutMs`. */
  async waitUp(timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (!this.up) {
      if (Date.now() > end) return false;
      await sleep(100);
    }
    return true;
  }

  lastLines(n = 30): string[] {
    return this.lines.slice(-n);
  }

  /** SIGTERM (SIGCONT first, should it be stopped), then SIGKILL after `graceMs`; no restart. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    await this.starting?.catch(() => {});
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * A Node process of the service as `npm start` runs it: compiled (`dist/`, built by startCluster),
 * `node --enable-source-maps dist/<script>.js <args>`, its output piped.
 */
export function spawnNode(root: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const entry = join('dist', script.replace(/\.ts$/, '.js'));
  return spawn(process.execPath, ['--enable-source-maps', entry, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Ready once a line containing `text` was printed; false if the process exits first or 120 s pass. */
export async function readyOnLine(child: ChildProcess, lines: string[], text: string): Promise<boolean> {
  const end = Date.now() + 120_000;
  while (Date.now() < end) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if (lines.some((l) => l.includes(text))) return true;
    await sleep(50);
  }
  return false;
}

/** Ready once GET `url` answers 200; false if the process exits first or 120 s pass. */
export async function readyOnHttp(child: ChildProcess, url: string): Promise<boolean> {
  const end = Date.now() + 120_000;
  while (Date.now() < end) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return true;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  return false;
}
