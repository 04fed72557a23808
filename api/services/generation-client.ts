import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { AppError } from '../../shared/errors/app-error.js';
import {
  cancelChannel, jobChannel, type GenerationJob, type GenerationMessage, type GenerationResult,
} from '../../shared/generation/generation-queue.js';
import type { GenerationInput } from '../../shared/generation/generation-types.js';
import { withTimeout } from '../../shared/jobs/queue-status.js';

const ENQUEUE_TIMEOUT_MS = 2000;

export interface RunOptions {
  /** Pieces of the answer as they are generated (streaming clients). */
  onDelta?: (text: string) => void;
  /** The client went away: the job is cancelled. */
  signal?: AbortSignal;
  /** Told the result as it arrives, before the caller turns it into a response (timings). */
  onResult?: (result: GenerationResult) => void;
}

/**
 * Hands summaries and chat replies to the generation workers and awaits them with a timeout. The
 * jobs' channels are subscribed before a job is added, so no delta or result can be missed; on
 * timeout or a departed client the workers are told to stop, and a job still queued is removed.
 */
export class GenerationClient {
  private readonly listeners = new Map<string, (m: GenerationMessage) => void>();
  private subscribed: Promise<unknown> | null = null;

  constructor(
    private readonly queue: Queue<GenerationJob>,
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly timeoutMs: number,
    /** How long Redis may take to accept a job before the request gets 503 (at most the answer timeout). */
    private readonly enqueueTimeoutMs = Math.min(ENQUEUE_TIMEOUT_MS, timeoutMs),
  ) {
    subscriber.on('pmessage', (_pattern: string, channel: string, raw: string) => {
      const jobId = channel.slice(channel.lastIndexOf(':') + 1);
      this.listeners.get(jobId)?.(JSON.parse(raw) as GenerationMessage);
    });
  }

  /**
   * One pattern subscription for every job of this process, made on first use: no SUBSCRIBE and
   * UNSUBSCRIBE round trips per answer. Other API processes' messages arrive too and are ignored.
   */
  private subscribe(): Promise<unknown> {
    this.subscribed ??= this.subscriber.psubscribe(jobChannel(this.prefix, '*')).catch((err) => {
      this.subscribed = null;
      throw err;
    });
    return this.subscribed;
  }

  async run(input: GenerationInput, language: string, options: RunOptions = {}): Promise<GenerationResult> {
    const jobId = randomUUID();
    let settle!: { resolve: (r: GenerationResult) => void; reject: (e: Error) => void };
    const outcome = new Promise<GenerationResult>((resolve, reject) => (settle = { resolve, reject }));
    // The timer or the client may reject the outcome while the enqueue is still waiting on Redis; an
    // unhandled rejection there would end the process, so the outcome is always observed.
    outcome.catch(() => {});
    this.listeners.set(jobId, (m) => {
      if (m.type === 'delta') options.onDelta?.(m.text);
      else if (m.type === 'done') {
        options.onResult?.(m.result);
        settle.resolve(m.result);
      }
      else settle.reject(publicFailure(m.status, m.message));
    });
    const timer = setTimeout(() => settle.reject(
      new AppError('timeout', `The answer took longer than ${this.timeoutMs / 1000} s and was cancelled; try again`)
        .withInternal('raise QUARRY_GENERATION_TIMEOUT_SECONDS if answers need longer'),
    ), this.timeoutMs);
    const onAbort = () => settle.reject(new AppError('timeout', 'The client went away; the generation was cancelled'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // The outcome takes part in the race so a timeout or a departed client ends the wait for Redis too.
      await Promise.race([this.enqueue(jobId, { input, language, deadline: Date.now() + this.timeoutMs, stream: options.onDelta !== undefined }), outcome]);
      return await outcome;
    } catch (err) {
      // Not awaited: when Redis is what stalls, the cancel waits for it too, and the caller must not.
      this.cancel(jobId);
      throw err;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      this.listeners.delete(jobId);
    }
  }

  /** Subscribes and adds the job, or fails with 503 when Redis does not take it within the enqueue bound. */
  private async enqueue(jobId: string, job: GenerationJob): Promise<void> {
    try {
      await withTimeout(this.subscribe().then(() => this.queue.add('generate', job, { jobId })), this.enqueueTimeoutMs);
    } catch {
      // Anonymous callers read this: it names no component (docs/security.md), /readyz tells the operator.
      throw new AppError('dependency_unavailable', `Answers are unavailable right now (the request was not queued within ${this.enqueueTimeoutMs / 1000} s); search still works, try again shortly`);
    }
  }

  private cancel(jobId: string): void {
    this.publisher.publish(cancelChannel(this.prefix), jobId).catch(() => {});
    // Still waiting in the queue: take it out so no worker spends time on it.
    this.queue.remove(jobId).catch(() => {});
  }
}

/**
 * The search interface is anonymous: a model failure's reason (its URL, model name, which variable to
 * set) goes to the API log with the request id, the caller gets what to do.
 */
function publicFailure(status: number, reason: string): AppError {
  const e = status === 503
    ? new AppError('dependency_unavailable', 'The language model is unavailable or overloaded right now; try again shortly')
    : new AppError('bad_gateway', 'The language model could not answer; the operator finds the reason in the API log');
  return e.withInternal(reason);
}
