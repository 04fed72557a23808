import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import { newJobId } from '../jobs/job-id.js';
import { enqueueIndexJobs, type PipelineQueues } from '../jobs/pipeline-queues.js';
import type { DocumentWrite, WriteOutcome } from '../storage/ports/document-store.js';

export interface DocumentWriterOptions {
  /** Most documents one pipeline job is enqueued for (a job may take more, or fewer, when it runs). */
  batchSize: number;
  /** Most writes committed in one transaction. */
  maxFlush?: number;
  /** How long a flush waits for Redis before leaving the documents to the reconciler. */
  enqueueTimeoutMs?: number;
}

const MAX_ENQUEUE_BACKLOG = 20;

interface Pending {
  write: Omit<DocumentWrite, 'job'>;
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: the writes that arrive while the previous commit is running share the next durable
 * transaction (one fsync) and their pipeline jobs share one Redis round trip. A write is acknowledged
 * once its commit is durable; if Redis is down the document stays pending and the reconciler enqueues it.
 */
export class DocumentWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private committing = false;
  private enqueued: Promise<void> = Promise.resolve();
  private backlog = 0;

  constructor(
    private readonly commit: (writes: DocumentWrite[]) => Promise<WriteOutcome[]>,
    private readonly queues: PipelineQueues,
    private readonly log: Logger,
    private readonly options: DocumentWriterOptions,
  ) {}

  write(write: Omit<DocumentWrite, 'job'>): Promise<WriteOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled || this.committing || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  writeMany(writes: Omit<DocumentWrite, 'job'>[]): Promise<WriteOutcome[]> {
    return Promise.all(writes.map((w) => this.write(w)));
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.committing = true;
    const batch = this.queue.splice(0, this.options.maxFlush ?? 2000);

    const perIndexCount = new Map<number, number>();
    const jobFor = new Map<string, string>();
    const writes: DocumentWrite[] = batch.map(({ write }) => {
      const n = perIndexCount.get(write.indexId) ?? 0;
      perIndexCount.set(write.indexId, n + 1);
      const slot = `${write.indexId}/${Math.floor(n / this.options.batchSize)}`;
      let job = jobFor.get(slot);
      if (!job) jobFor.set(slot, (job = newJobId('w', write.indexId)));
      return { ...write, job };
    });

    let outcomes: WriteOutcome[];
    try {
      outcomes = await this.commit(writes);
    } catch (err) {
      this.log.error({ err, writes: batch.length }, 'document store commit failed');
      // The store's own 503 says more (a restarting commit thread); anything else is the generic one.
      const failure = err instanceof AppError ? err : new AppError('dependency_unavailable', 'The document store could not save the write; nothing was stored, retry the request');
      for (const p of batch) p.reject(failure);
      return;
    } finally {
      this.committing = false;
      this.schedule();
    }
    // Jobs of writes that changed nothing have no documents: they are not enqueued.
    const jobs = new Map<string, number>();
    outcomes.forEach((o, i) => {
      if (o.version !== null) jobs.set(writes[i].job, writes[i].indexId);
    });

    // The commit is the promise a 204 makes; the job is only a trigger (the reconciler re-creates a
    // lost one), so callers are answered now and enqueues follow in commit order.
    batch.forEach((p, i) => p.resolve(outcomes[i]));
    // While Redis is down every enqueue waits out its timeout; past a short backlog the documents
    // are left to the reconciler instead of piling up in memory here.
    if (this.backlog >= MAX_ENQUEUE_BACKLOG) return;
    this.backlog++;
    this.enqueued = this.enqueued.then(() => this.enqueue(jobs)).finally(() => this.backlog--);
  }

  private async enqueue(jobs: Map<string, number>): Promise<void> {
    if (jobs.size === 0) return;
    const bulk = [...jobs].map(([jobId, indexId]) => ({ jobId, indexId }));
    const timeout = this.options.enqueueTimeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        enqueueIndexJobs(this.queues, bulk),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeout} ms`)), timeout);
        }),
      ]);
    } catch (err) {
      this.log.warn({ err, jobs: bulk.length }, 'enqueue failed; documents stay pending for the reconciler');
    } finally {
      clearTimeout(timer);
    }
  }
}
