import { PIPELINE_QUEUES, type PipelineQueueName } from './pipeline-jobs.js';
import { createQueue, type QueueOf, type QueueOptions } from './queue-catalogue.js';

export type { QueueOptions } from './queue-catalogue.js';
export type PipelineQueues = { [K in PipelineQueueName]: QueueOf<K> };

export function createPipelineQueues(o: QueueOptions): PipelineQueues {
  return { index: createQueue('index', o), embed: createQueue('embed', o) };
}

/** Index jobs, one Redis round trip for all: each takes its index's pending documents when it runs. */
export async function enqueueIndexJobs(queues: PipelineQueues, jobs: { indexId: number; jobId: string }[]): Promise<void> {
  if (jobs.length === 0) return;
  await queues.index.addBulk(jobs.map(({ indexId, jobId }) => ({ name: 'index', data: { indexId }, opts: { jobId } })));
}

const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** True when the job id is still on its way somewhere in the pipeline. */
export async function isJobAlive(queues: PipelineQueues, jobId: string): Promise<boolean> {
  for (const name of PIPELINE_QUEUES) {
    const job = await queues[name].getJob(jobId);
    if (job && LIVE_STATES.has(await job.getState())) return true;
  }
  return false;
}

export async function closeQueues(queues: PipelineQueues): Promise<void> {
  await Promise.all(PIPELINE_QUEUES.map((n) => queues[n].close()));
}
