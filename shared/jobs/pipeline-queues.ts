import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { PIPELINE_QUEUES, type PayloadOf, type PipelineQueueName } from './pipeline-jobs.js';

export type PipelineQueues = { [K in PipelineQueueName]: Queue<PayloadOf[K]> };

export interface QueueOptions {
  connection: Redis;
  prefix: string;
  attempts: number;
}

/** Job options in one place: retries with exponential backoff, failures kept a week to inspect. */
export function jobOptions(attempts: number): JobsOptions {
  return {
    attempts,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 3600, count: 2000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  };
}

export function createPipelineQueues(o: QueueOptions): PipelineQueues {
  const make = <K extends PipelineQueueName>(name: K) =>
    new Queue<PayloadOf[K]>(name, {
      connection: o.connection,
      prefix: o.prefix,
      defaultJobOptions: jobOptions(o.attempts),
    });
  return Object.fromEntries(PIPELINE_QUEUES.map((n) => [n, make(n)])) as unknown as PipelineQueues;
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
