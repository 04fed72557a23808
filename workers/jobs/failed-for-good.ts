import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import { PIPELINE_QUEUES, type PipelineQueueName } from '../../shared/jobs/pipeline-jobs.js';
import type { Storage } from '../../shared/storage/create-storage.js';

/**
 * Jobs that end without their handler's last attempt: BullMQ fails a job that stalled more often than
 * maxStalledCount (its worker killed, or its event loop blocked past the lock, each time) when a
 * worker next takes it, without running the handler, so the documents it carries stay pending. They
 * are marked failed here, with a reason a pusher can act on, instead of being re-enqueued forever.
 */

/** What a document marked failed by a job's failure says. */
export function failureMessage(queue: string, reason: string, maxStalls: number): string {
  if (/stalled more than allowable limit/.test(reason)) {
    return `${queue} stage: the job stalled more than ${maxStalls} times (its worker was killed, or busy past the job lock, ` +
      'QUARRY_JOB_LOCK_SECONDS, each time); the document may be too costly to index: push it again once that is fixed';
  }
  return `${queue} stage: ${reason}`;
}

/** Marks the documents still pending under `jobId` failed; returns how many. */
export async function failPendingOfJob(storage: Storage, indexId: number, jobId: string, message: string): Promise<number> {
  let n = 0;
  for (;;) {
    // markFailed clears the documents' job: each round takes the next ones.
    const refs = await storage.documents.pendingOfJob(indexId, jobId, 1000);
    if (refs.length === 0) return n;
    await storage.documents.markFailed(indexId, refs, message);
    n += refs.length;
  }
}

/** The queue and reason of a job that is in the failed state for good, or null. */
export async function failedJob(queues: PipelineQueues, jobId: string): Promise<{ queue: PipelineQueueName; reason: string } | null> {
  for (const name of PIPELINE_QUEUES) {
    const job = await queues[name].getJob(jobId);
    if (job && (await job.getState()) === 'failed') return { queue: name, reason: job.failedReason || 'failed' };
  }
  return null;
}
