import { UnrecoverableError, type Job } from 'bullmq';
import type { PipelineQueueName } from '../../shared/jobs/pipeline-jobs.js';
import type { PayloadOf } from '../../shared/jobs/queue-catalogue.js';
import { EmbedderError } from '../../shared/llm/ports/embedder.js';
import { JobMetrics } from '../../shared/metrics/job-metrics.js';
import { MAX_STALLS, type QueueHandler, type WorkerOptions } from '../queue-handler.js';
import { embedJob } from './embed-job.js';
import { failPendingOfJob, failureMessage } from './failed-for-good.js';
import { indexJob } from './index-job.js';
import type { WorkerContext } from './worker-context.js';

const STAGES: { [K in PipelineQueueName]: (job: Job<PayloadOf[K]>, ctx: WorkerContext) => Promise<unknown> } = {
  index: (job, ctx) => indexJob(job.id!, job.data, ctx),
  embed: (job, ctx) => embedJob(job.data, ctx),
};

/**
 * A pipeline queue's handler. Failures are classified: a misconfigured provider does not retry;
 * anything else retries with backoff, and when the last attempt fails the documents the job claimed
 * are marked failed with the reason, so a pusher sees it in the index progress instead of a
 * document pending forever. Outcomes and durations go to JobMetrics (summed over every worker).
 */
export function pipelineHandler<K extends PipelineQueueName>(name: K, ctx: WorkerContext, o: WorkerOptions): QueueHandler<K> {
  const metrics = new JobMetrics(o.connection, o.prefix);
  const stage = STAGES[name] as (job: Job<PayloadOf[K]>, ctx: WorkerContext) => Promise<unknown>;
  return {
    async process(job) {
      try {
        return await stage(job, ctx);
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
    completed(job) {
      metrics.record(name, ((job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1000, true);
    },
    failed(job, err) {
      ctx.log.warn({ queue: name, job: job?.id, attempt: job?.attemptsMade, err }, 'job failed');
      metrics.record(name, 0, false);
      // Failed without the handler running (stalled past MAX_STALLS): its documents are still pending.
      // Should this process die first, the reconciler finds the failed job and does the same.
      if (job?.id && job.deferredFailure) {
        failPendingOfJob(ctx.storage, job.data.indexId, job.id, failureMessage(name, job.deferredFailure, MAX_STALLS))
          .then((n) => ctx.log.error({ queue: name, job: job.id, documents: n, reason: job.deferredFailure }, 'job failed for good; its documents marked failed'))
          .catch((e) => ctx.log.warn({ queue: name, job: job.id, err: e }, 'documents of a failed job not marked; the reconciler will'));
      }
    },
    close: () => metrics.flush().catch(() => {}),
  };
}
