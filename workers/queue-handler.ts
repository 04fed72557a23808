import type { Job, WorkerOptions as BullWorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { PayloadOf, QueueName } from '../shared/jobs/queue-catalogue.js';

/** Settings every worker of a process shares. */
export interface WorkerOptions {
  connection: Redis;
  prefix: string;
  /** Jobs of one queue this process runs at once (a handler may set its own). */
  concurrency: number;
  /** A crashed worker's job goes back to the queue this long after the crash at most. */
  lockMs: number;
}

/** Crashes (or event-loop blocks past the lock) a job survives; BullMQ fails it at the next one. */
export const MAX_STALLS = 5;

/** BullMQ worker settings every queue of ours uses. */
export function workerSettings(o: WorkerOptions): BullWorkerOptions {
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

/** What a queue's worker runs: one handler per queue, found in workers/registry.ts. */
export interface QueueHandler<K extends QueueName> {
  process(job: Job<PayloadOf[K]>, token?: string): Promise<unknown>;
  completed?(job: Job<PayloadOf[K]>): void;
  /** After a failed attempt, or a job failed without running (stalled too often). */
  failed?(job: Job<PayloadOf[K]> | undefined, err: Error): void;
  /** BullMQ settings of its own, over the shared ones. */
  settings?: Partial<BullWorkerOptions>;
  /** Before the worker stops taking jobs (a long crawl pauses instead of being waited for). */
  stopping?(): void;
  /** After its running jobs have ended. */
  close?(): Promise<void>;
}
