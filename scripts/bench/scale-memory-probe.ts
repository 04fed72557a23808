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

/** The value of the child's `--import` flag. */
export const probeImport = `data:text/javascript,${encodeURIComponent(SOURCE)}`;
