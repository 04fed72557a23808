import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { GenerationJob } from '../generation/generation-types.js';
import type { EmbedPayload, IndexPayload } from './pipeline-jobs.js';

/**
 * Every queue of Quarry, declared once: its name, the payload its jobs carry and their options.
 * Producers create queues here (createQueue); workers find each queue's handler in one registry
 * (workers/registry.ts), whose type makes a queue without a handler a compile error.
 */
export interface PayloadOf {
  /** Pipeline entry: claim the index's pending documents, section, embed locally, publish. */
  index: IndexPayload;
  /** Pipeline, remote embedders only: embed a sectioned batch, then publish it. */
  embed: EmbedPayload;
  /** One crawl of a website source. */
  crawl: CrawlPayload;
  /** One summary or chat reply, streamed back to the waiting API. */
  generate: GenerationJob;
}

export type QueueName = keyof PayloadOf;
export type QueueOf<K extends QueueName> = Queue<PayloadOf[K]>;

export interface CrawlPayload {
  sourceUid: string;
  /** The source's crawl number this job runs; a job for an older crawl finds it superseded and stops. */
  crawl: number;
}

export interface QueueOptions {
  connection: Redis;
  prefix: string;
  /** Attempts of a pipeline or crawl job (QUARRY_JOB_ATTEMPTS). */
  attempts: number;
}

/** Retries with exponential backoff, failures kept a week to inspect. */
const retried = (attempts: number): JobsOptions => ({
  attempts,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 2000 },
  removeOnFail: { age: 7 * 24 * 3600 },
});

const JOB_OPTIONS: { [K in QueueName]: (attempts: number) => JobsOptions } = {
  index: retried,
  embed: retried,
  crawl: retried,
  // No BullMQ retries: the model client retries within the API's timeout; a second run would be too late.
  generate: () => ({ attempts: 1, removeOnComplete: { age: 600, count: 1000 }, removeOnFail: { age: 24 * 3600 } }),
};

export const QUEUE_NAMES = Object.keys(JOB_OPTIONS) as QueueName[];

export function createQueue<K extends QueueName>(name: K, o: QueueOptions): QueueOf<K> {
  return new Queue<PayloadOf[K]>(name, { connection: o.connection, prefix: o.prefix, defaultJobOptions: JOB_OPTIONS[name](o.attempts) });
}
