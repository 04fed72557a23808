import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The memory probe `npm run bench:scale` preloads into the processes it starts (`--expose-gc
 * --import <probeImport>`): on SIGUSR2 it collects garbage (twice, so weak and finalised objects go
 * too) and writes the process's memory to `<BENCH_MEMORY_PROBE_DIR>/<pid>.json`, which the bench then
 * reads. Nothing else changes in the process; without the variable the probe does nothing.
 *
 * It is plain JavaScript in a data: URL, not a TypeScript file: worker threads inherit the
 * `--import` flags, and a .ts module imported there before the thread registers its own loader
 * hangs the thread (the API's SQLite commit thread never answered).
 */
export interface MemorySnapshot {
  pid: number;
  /** Whether a full GC ran first (the process was started with --expose-gc). */
  gc: boolean;
  /** Resident set, from /proc/self/status (kB -> bytes); VmHWM is the peak so far. */
  vmRss: number;
  vmHwm: number;
  /** process.memoryUsage() after the GC. */
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** V8's limit on the heap (--max-old-space-size or its default for this machine's memory). */
  heapLimit: number;
  at: number;
}

const SOURCE = `
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { isMainThread } from 'node:worker_threads';
const dir = process.env.BENCH_MEMORY_PROBE_DIR;
const statusBytes = (field) => {
  try {
    const m = new RegExp('^' + field + ':\\\\s+(\\\\d+) kB', 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
};
if (dir && isMainThread) {
  process.on('SIGUSR2', () => {
    const gc = globalThis.gc;
    gc?.();
    gc?.();
    const u = process.memoryUsage();
    const snap = {
      pid: process.pid, gc: Boolean(gc), vmRss: statusBytes('VmRSS'), vmHwm: statusBytes('VmHWM'),
      rss: u.rss, heapUsed: u.heapUsed, heapTotal: u.heapTotal, external: u.external, arrayBuffers: u.arrayBuffers,
      heapLimit: getHeapStatistics().heap_size_limit, at: Date.now(),
    };
    const file = dir + '/' + process.pid + '.json';
    writeFileSync(file + '.tmp', JSON.stringify(snap));
    renameSync(file + '.tmp', file);
  });
}
`;

/**
 * Asks process `pid` (started with the probe) for a snapshot: SIGUSR2, then waits for its file.
 * `died` names why the process is gone, if it is.
 */
export async function memorySnapshot(
  pid: number, probeDir: string, opts: { name: string; died?: () => string | null; timeoutMs?: number },
): Promise<MemorySnapshot> {
  const file = join(probeDir, `${pid}.json`);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    if (existsSync(file) && statSync(file).mtimeMs >= asked - 5) {
      const snap = JSON.parse(readFileSync(file, 'utf8')) as MemorySnapshot;
      if (snap.at >= asked) return snap;
    }
    const died = opts.died?.();
    if (died) throw new Error(died);
    if (Date.now() - asked > timeoutMs) throw new Error(`${opts.name}: no memory snapshot within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The value of the child's `--import` flag. */
export const probeImport = `data:text/javascript,${encodeURIComponent(SOURCE)}`;
