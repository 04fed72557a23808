import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { CRAWL_QUEUE } from '../shared/jobs/crawl-queue.js';
import type { PipelineQueueName } from '../shared/jobs/pipeline-jobs.js';
import type { PayloadOf } from '../shared/jobs/queue-catalogue.js';
import { EmbedderError } from '../shared/llm/ports/embedder.js';
import { JobMetrics } from '../shared/metrics/job-metrics.js';
import { embedJob } from './jobs/embed-job.js';
import { failPendingOfJob, failureMessage } from './jobs/failed-for-good.js';
import { indexJob } from './jobs/index-job.js';
import type { WorkerContext } from './jobs/worker-context.js';

/** Exactly one handler per queue; the record type makes a missing one a compile error. */
const HANDLERS: { [K in PipelineQueueName]: (job: Job<PayloadOf[K]>, ctx: WorkerContext) => Promise<unknown> } = {
  index: (job, ctx) => indexJob(job.id!, job.data, ctx),
  embed: (job, ctx) => embedJob(job.data, ctx),
};

export interface WorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency: number;
  /** A crashed worker's job goes back to the queue this long after the crash at most. */
  lockMs: number;
}

/** Crashes (or event-loop blocks past the lock) a job survives; BullMQ fails it at the next one. */
export const MAX_STALLS = 5;

/** BullMQ worker settings every queue of ours uses. */
export function workerSettings(o: WorkerOptions) {
  return {
    connection: o.connection,
    prefix: o.prefix,
    concurrency: o.concurrency,
    // A killed worker's job returns to the queue after the lock lapses; allow several such crashes.
    lockDuration: o.lockMs,
    stalledInterval: Math.max(1000, Math.floor(o.lockMs / 2)),
    maxStalledCount: MAX_STALLS,
  };
}

/**
 * Failures are classified: a misconfigured provider does not retry; anything else retries with
 * backoff, and when the last attempt fails the batch's documents are marked failed with the reason,
 * so a pusher sees it in the index progress instead of a document pending forever.
 */
export function startWorkers(queues: readonly (PipelineQueueName | typeof CRAWL_QUEUE)[], ctx: WorkerContext, o: WorkerOptions): Worker[] {
  const metrics = new JobMetrics(o.connection, o.prefix);
  // The crawl queue needs the crawl settings: startCrawlWorker (workers/crawl) runs it.
  const pipeline = queues.filter((q): q is PipelineQueueName => q !== CRAWL_QUEUE);
  return pipeline.map((name) => {
    const handler = HANDLERS[name] as (job: Job, ctx: WorkerContext) => Promise<unknown>;
    const worker = new Worker(
      name,
      async (job: Job) => {
        try {
          return await handler(job, ctx);
        } catch (err) {
          const permanent = err instanceof EmbedderError && !err.retryable;
          const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
          if (permanent || last) {
            // The documents the job claimed name it, whichever attempt claimed them.
            const message = err instanceof Error ? err.message : String(err);
            await failPendingOfJob(ctx.storage, job.data.indexId, job.id!, `${name} stage: ${message}`);
          }
          if (permanent) throw new UnrecoverableError((err as Error).message);
          throw err;
        }
      },
      workerSettings(o),
    );
    worker.on('completed', (job) => {
      metrics.record(name, ((job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1000, true);
    });
    worker.on('failed', (job, err) => {
      ctx.log.warn({ queue: name, job: job?.id, attempt: job?.attemptsMade, err }, 'job failed');
      metrics.record(name, 0, false);
      // Failed without the handler running (stalled past MAX_STALLS): its documents are still pending.
      // Should this process die first, the reconciler finds the failed job and does the same.
      if (job?.id && job.deferredFailure) {
        failPendingOfJob(ctx.storage, job.data.indexId, job.id, failureMessage(name, job.deferredFailure, MAX_STALLS))
          .then((n) => ctx.log.error({ queue: name, job: job.id, documents: n, reason: job.deferredFailure }, 'job failed for good; its documents marked failed'))
          .catch((e) => ctx.log.warn({ queue: name, job: job.id, err: e }, 'documents of a failed job not marked; the reconciler will'));
      }
    });
    worker.on('error', (err) => ctx.log.error({ queue: name, err }, 'worker error'));
    return worker;
  });
}
