import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../../config/project-root.js';
import { AppError } from '../../errors/app-error.js';
import type { DocumentWrite, WriteOutcome } from '../ports/document-store.js';

/** First restart after a crash; doubled while the thread keeps dying soon after starting, up to the maximum. */
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A thread that ran this long before dying was healthy: the next restart starts from the first delay again. */
const STABLE_AFTER_MS = 60_000;

/**
 * Commits document writes on a thread of their own. A durable commit waits for fsync; on the
 * event loop that wait would stall every request of the API, here it stalls nobody, and the
 * writes arriving meanwhile form the next, larger group commit.
 *
 * The thread can die (out of memory on a huge group, a native crash). Then every commit waiting
 * on it, and every one sent until a new thread is ready, fails at once with 503 (a commit
 * interrupted by the death is rolled back by SQLite, or was complete: either way the caller got
 * no 204 and may retry), `ping()` reports why for /readyz, and a new thread is started.
 */
export class CommitThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve: (o: WriteOutcome[]) => void; reject: (e: Error) => void }>();
  private next = 0;
  /** Why no thread is taking commits now; null while one is. */
  private down: string | null = 'starting';
  private restartDelay = RESTART_DELAY_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly dataDir: string,
    private readonly synchronous: 'full' | 'normal',
    private readonly heapMb: number | null = null,
  ) {
    this.start();
  }

  commit(writes: DocumentWrite[]): Promise<WriteOutcome[]> {
    if (this.down !== null && this.down !== 'starting') return Promise.reject(this.unavailable());
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.waiting.set(id, { resolve, reject });
      // Before the first thread is up, messages wait in the port; after a crash they are refused above.
      this.worker!.postMessage({ id, writes });
    });
  }

  /** Rejects with the reason while no thread takes commits (for /readyz). */
  async ping(): Promise<void> {
    if (this.down !== null && this.down !== 'starting') throw new Error(`commit thread down: ${this.down}; restarting`);
  }

  /** Lets commits already sent finish (their callers were promised durability), then stops. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    for (let i = 0; i < 200 && this.waiting.size > 0; i++) await new Promise((r) => setTimeout(r, 25));
    await this.worker?.terminate();
  }

  private start(): void {
    const startedAt = Date.now();
    // Compiled (dist/), the worker's module is JavaScript and needs no loader: the build makes it an entry
    // of its own at its source path, while this code sits in whichever bundle chunk took it. From the
    // sources the boot script registers tsx first (worker threads do not inherit it).
    const compiled = import.meta.url.endsWith('.js');
    const entry = compiled
      ? pathToFileURL(join(projectRoot(), 'dist', 'shared', 'storage', 'sqlite', 'commit-thread-worker.js'))
      : new URL('./commit-thread-worker.ts', import.meta.url);
    const worker = new Worker(compiled ? entry : new URL('./commit-thread-boot.mjs', import.meta.url), {
      workerData: { entry: entry.href, dataDir: this.dataDir, synchronous: this.synchronous },
      resourceLimits: this.heapMb === null ? undefined : { maxOldGenerationSizeMb: this.heapMb },
    });
    this.worker = worker;
    let reason: string | null = null;
    worker.on('message', (m: { ready: true } | { id: number; outcomes?: WriteOutcome[]; error?: string; code?: string }) => {
      if ('ready' in m) {
        this.down = null;
        return;
      }
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.code === 'SQLITE_FULL') w?.reject(diskFull());
      else if (m.error !== undefined) w?.reject(new Error(`document store: ${m.error}`));
      else w?.resolve(m.outcomes!);
    });
    worker.on('error', (err: Error & { code?: string }) => {
      reason = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out of memory (a group of writes too large for QUARRY_COMMIT_THREAD_HEAP_MB)' : err.message;
    });
    worker.on('exit', (code) => {
      if (this.closed) return this.failAll(new Error('document store closed'));
      this.down = reason ?? `exited with code ${code}`;
      this.failAll(this.unavailable());
      if (Date.now() - startedAt > STABLE_AFTER_MS) this.restartDelay = RESTART_DELAY_MS;
      const delay = this.restartDelay;
      this.restartDelay = Math.min(this.restartDelay * 2, MAX_RESTART_DELAY_MS);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.closed) this.start();
      }, delay);
      this.restartTimer.unref();
    });
    worker.unref();
  }

  private unavailable(): AppError {
    return new AppError(
      'dependency_unavailable',
      `The document store's commit thread stopped (${this.down}) and is being restarted; the write was not acknowledged: retry it in a few seconds`,
    );
  }

  private failAll(err: Error) {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

/** SQLite rolled the commit back: nothing of it is stored, and nothing stored before is harmed. */
const diskFull = () => new AppError(
  'insufficient_storage',
  "The data folder's disk is full; nothing was stored and what was stored before is intact. Retry once space is freed (QUARRY_MIN_FREE_DISK_MB keeps writes from getting this far)",
);
