import { Worker } from 'node:worker_threads';
import type { DocumentWrite, WriteOutcome } from '../ports/document-store.js';

/**
 * Commits document writes on a thread of their own. A durable commit waits for fsync; on the
 * event loop that wait would stall every request of the API, here it stalls nobody, and the
 * writes arriving meanwhile form the next, larger group commit.
 */
export class CommitThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (o: WriteOutcome[]) => void; reject: (e: Error) => void }>();
  private next = 0;

  constructor(dataDir: string, synchronous: 'full' | 'normal') {
    this.worker = new Worker(new URL('./commit-thread-boot.mjs', import.meta.url), {
      workerData: { entry: new URL('./commit-thread-worker.ts', import.meta.url).href, dataDir, synchronous },
    });
    this.worker.on('message', ({ id, outcomes, error }: { id: number; outcomes?: WriteOutcome[]; error?: string }) => {
      const w = this.waiting.get(id);
      this.waiting.delete(id);
      if (error !== undefined) w?.reject(new Error(`document store: ${error}`));
      else w?.resolve(outcomes!);
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => this.failAll(new Error(`commit thread exited (${code})`)));
    this.worker.unref();
  }

  commit(writes: DocumentWrite[]): Promise<WriteOutcome[]> {
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, writes });
    });
  }

  /** Lets commits already sent finish (their callers were promised durability), then stops. */
  async close(): Promise<void> {
    for (let i = 0; i < 200 && this.waiting.size > 0; i++) await new Promise((r) => setTimeout(r, 25));
    await this.worker.terminate();
  }

  private failAll(err: Error) {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
