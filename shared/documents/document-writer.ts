import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import { newJobId } from '../jobs/job-id.js';
import { storageFailure } from '../storage/storage-errors.js';
import { enqueueIndexJobs, type PipelineQueues } from '../jobs/pipeline-queues.js';
import type { DocumentWrite, WriteOutcome } from '../storage/ports/document-store.js';

export interface DocumentWriterOptions {
  /** Most documents one pipeline job is enqueued for (a job may take more, or fewer, when it runs). */
  batchSize: number;
  /** Most writes committed in one transaction. */
  maxFlush?: number;
  /** How long a flush waits for Redis before leaving the documents to the reconciler. */
  enqueueTimeoutMs?: number;
  /** How long committed writes wait for company before their jobs are enqueued (default 10 ms). */
  enqueueDelayMs?: number;
}

interface Pending {
  write: Omit<DocumentWrite, 'job'>;
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

/** A pipeline job not yet enqueued: writes of its index join it until it is full or sent. */
interface UnsentJob {
  id: string;
  indexId: number;
  writes: number;
  /** Commits under way that carry this job's id: it is not sent before they end. */
  committing: number;
  /** Some write carrying it changed a document (the others need no job). */
  hasDocuments: boolean;
}

/**
 * Group commit: the writes that arrive while the previous commit is running share the next durable
 * transaction (one fsync). A write is acknowledged once its commit is durable. Its pipeline job is
 * only a trigger (a job takes the pending documents there are when it runs), so the writes of an
 * index committed within `enqueueDelayMs` share one job and one Redis round trip: a job id is fixed
 * before the commit and enqueued only after every commit carrying it has ended, so the job never
 * runs before its documents exist. If Redis is down the documents stay pending for the reconciler.
 */
export class DocumentWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private committing = false;
  /** The job each index's next writes join. */
  private readonly open = new Map<number, UnsentJob>();
  private readonly unsent = new Set<UnsentJob>();
  private sendTimer: NodeJS.Timeout | null = null;
  private sending = false;

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

  writeMany(writes: Omit<DocumentWrite, 'job'>[]): Promise<WriteOutcome[]> {
    return Promise.all(writes.map((w) => this.write(w)));
  }

  private schedule() {
    if (this.scheduled || this.committing || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.committing = true;
    const batch = this.queue.splice(0, this.options.maxFlush ?? 2000);
    const jobs = batch.map(({ write }) => this.jobFor(write.indexId));
    const used = new Set(jobs);
    for (const j of used) j.committing++;
    const writes: DocumentWrite[] = batch.map(({ write }, i) => ({ ...write, job: jobs[i].id }));

    let outcomes: WriteOutcome[];
    try {
      outcomes = await this.commit(writes);
    } catch (err) {
      this.log.error({ err, writes: batch.length }, 'document store commit failed');
      // The store's own 503 says more (a restarting commit thread); a database that timed out (504)
      // or went away (503) may have committed, and says so; anything else is the generic one.
      const failure = err instanceof AppError ? err : (storageFailure(err) ?? new AppError('dependency_unavailable', 'The document store could not save the write; nothing was stored, retry the request'));
      for (const p of batch) p.reject(failure);
      return;
    } finally {
      for (const j of used) j.committing--;
      this.committing = false;
      this.schedule();
      this.scheduleSend();
    }
    // Writes that changed nothing need no job.
    outcomes.forEach((o, i) => {
      if (o.version !== null) jobs[i].hasDocuments = true;
    });
    // The commit is the promise a 204 makes; the job follows.
    batch.forEach((p, i) => p.resolve(outcomes[i]));
  }

  /** Enqueues the jobs still waiting for company now, for a process that stops: no document waits for the reconciler. */
  async flushJobs(): Promise<void> {
    if (this.sendTimer) clearTimeout(this.sendTimer);
    this.sendTimer = null;
    while (this.sending) await new Promise((r) => setTimeout(r, 5));
    await this.send();
  }

  private jobFor(indexId: number): UnsentJob {
    let job = this.open.get(indexId);
    if (!job || job.writes >= this.options.batchSize) {
      job = { id: newJobId('w', indexId), indexId, writes: 0, committing: 0, hasDocuments: false };
      this.open.set(indexId, job);
      this.unsent.add(job);
    }
    job.writes++;
    return job;
  }

  private scheduleSend() {
    if (this.sendTimer || this.sending) return;
    this.sendTimer = setTimeout(() => void this.send(), this.options.enqueueDelayMs ?? 10);
  }

  /** Enqueues every job whose commits have all ended, in one Redis round trip; one send at a time. */
  private async send(): Promise<void> {
    this.sendTimer = null;
    const ready = [...this.unsent].filter((j) => j.committing === 0);
    for (const j of ready) {
      this.unsent.delete(j);
      if (this.open.get(j.indexId) === j) this.open.delete(j.indexId);
    }
    const jobs = ready.filter((j) => j.hasDocuments).map((j) => ({ jobId: j.id, indexId: j.indexId }));
    if (jobs.length === 0) return;
    this.sending = true;
    const timeout = this.options.enqueueTimeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        enqueueIndexJobs(this.queues, jobs),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeout} ms`)), timeout);
        }),
      ]);
    } catch (err) {
      // While Redis is down the writes go on: their documents are left to the reconciler.
      this.log.warn({ err, jobs: jobs.length }, 'enqueue failed; documents stay pending for the reconciler');
    } finally {
      clearTimeout(timer);
      this.sending = false;
      if (this.unsent.size > 0) this.scheduleSend();
    }
  }
}
