import type { Redis } from 'ioredis';
import { createQueue, type QueueOf } from '../jobs/queue-catalogue.js';

export type { GenerationJob } from './generation-types.js';

export const GENERATION_QUEUE = 'generate';

export interface GenerationResult {
  text: string;
  /** Passage indexes cited, in order of first citation (original numbering). */
  cited: number[];
  /** What generated it: `extractive` or the model id. */
  generator: string;
  /** Time spent in the model (or extractive selection), for the overhead figure. */
  modelMs: number;
  /** Citation problems that were repaired. */
  repairs: string[];
}

/**
 * Messages on a job's channel, worker to API: text as it is produced, then the result or an error.
 * The API subscribes before it adds the job, so nothing is missed.
 */
export type GenerationMessage =
  | { type: 'delta'; text: string }
  | { type: 'done'; result: GenerationResult }
  | { type: 'error'; status: 502 | 503; message: string };

export const jobChannel = (prefix: string, jobId: string) => `${prefix}:generate:job:${jobId}`;
/** API to workers: stop a job (client gone, or timeout). */
export const cancelChannel = (prefix: string) => `${prefix}:generate:cancel`;

export function createGenerationQueue(connection: Redis, prefix: string): QueueOf<'generate'> {
  return createQueue(GENERATION_QUEUE, { connection, prefix, attempts: 1 });
}
