import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { GenerationInput } from './generation-types.js';

export const GENERATION_QUEUE = 'generate';

export interface GenerationJob {
  input: GenerationInput;
  /** The analyzer language for sentence scoring and citation checks. */
  language: string;
  /** When the API gives up on the job (ms since epoch): a job picked up later is skipped. */
  deadline: number;
  /** The client takes the answer as it is produced: ask the model to stream. */
  stream: boolean;
}

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

export function createGenerationQueue(connection: Redis, prefix: string): Queue<GenerationJob> {
  return new Queue<GenerationJob>(GENERATION_QUEUE, {
    connection,
    prefix,
    // No BullMQ retries: the model client retries within the API's timeout; a second run would be too late.
    defaultJobOptions: { attempts: 1, removeOnComplete: { age: 600, count: 1000 }, removeOnFail: { age: 24 * 3600 } },
  });
}
