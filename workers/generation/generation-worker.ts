import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { checkCitations } from '../../shared/generation/citation-check.js';
import { extractiveAnswer } from '../../shared/generation/extractive-generator.js';
import {
  cancelChannel, jobChannel, type GenerationJob, type GenerationMessage, type GenerationResult,
} from '../../shared/generation/generation-queue.js';
import { buildMessages } from '../../shared/generation/prompt.js';
import { ChatModelError, type ChatModel } from '../../shared/llm/ports/chat-model.js';
import type { QueueHandler } from '../queue-handler.js';

export interface GenerationHandlerDeps {
  /** Publishes each job's answer on its channel. */
  connection: Redis;
  /** A connection of its own: a subscribed Redis client can do nothing else. */
  subscriber: Redis;
  prefix: string;
  /** Generations this process runs at once (QUARRY_GENERATION_CONCURRENCY). */
  concurrency: number;
  /** null: the offline extractive generator. */
  model: ChatModel | null;
  log: Logger;
}

/**
 * The generate queue's handler: the model (or the extractive generator) writes the answer,
 * streamed to the waiting API through the job's Redis channel; then the citations are checked and
 * repaired. A cancel message (client gone, timeout) aborts the model call at once.
 */
export async function generationHandler(o: GenerationHandlerDeps): Promise<QueueHandler<'generate'>> {
  const running = new Map<string, AbortController>();
  o.subscriber.on('message', (_channel: string, jobId: string) => running.get(jobId)?.abort(new Error('generation cancelled')));
  await o.subscriber.subscribe(cancelChannel(o.prefix));
  return {
    async process(job) {
      const id = job.id!;
      const publish = (m: GenerationMessage) => o.connection.publish(jobChannel(o.prefix, id), JSON.stringify(m));
      // The API stopped waiting: no one would read the answer.
      if (Date.now() > job.data.deadline) return null;
      const abort = new AbortController();
      running.set(id, abort);
      try {
        const result = await generate(job.data, o.model, abort.signal, (text) => void publish({ type: 'delta', text }));
        await publish({ type: 'done', result });
        return result;
      } catch (err) {
        if (abort.signal.aborted) return null;
        const retryable = err instanceof ChatModelError ? err.retryable : false;
        const message = err instanceof ChatModelError ? `The language model failed: ${err.message}` : 'Generating the answer failed; the error is in the generation worker\'s log';
        if (!(err instanceof ChatModelError)) o.log.error({ err, job: id }, 'generation failed');
        await publish({ type: 'error', status: retryable ? 503 : 502, message });
        throw err;
      } finally {
        running.delete(id);
      }
    },
    // An answer is of use only while the API waits for it: no retries after a stall, BullMQ's lock defaults.
    settings: { concurrency: o.concurrency, lockDuration: 30_000, stalledInterval: 30_000, maxStalledCount: 1 },
  };
}

async function generate(job: GenerationJob, model: ChatModel | null, signal: AbortSignal, onDelta: (text: string) => void): Promise<GenerationResult> {
  const t0 = performance.now();
  // The checker also renumbers citations 1..k in order of first use, so references can be exactly the cited passages.
  const checked = (text: string, mode: 'extractive' | 'model') => checkCitations(text, job.input.passages, mode, { language: job.language });
  // Without a model the selection of sentences is the "model" time; after a rejected model answer, the model's.
  const extractive = (generator: string, modelMs?: number, repairs: string[] = []): GenerationResult => {
    const report = checked(extractiveAnswer(job.input, { language: job.language }).text, 'extractive');
    return { text: report.repaired, cited: report.cited, generator, modelMs: modelMs ?? performance.now() - t0, repairs: [...repairs, ...report.problems] };
  };
  if (!model) {
    const result = extractive('extractive');
    if (result.text && job.stream) onDelta(result.text);
    return result;
  }
  const text = await model.complete(buildMessages(job.input), { signal, ...(job.stream ? { onDelta } : {}) });
  const modelMs = performance.now() - t0;
  const report = checked(text, 'model');
  // Nothing the model said could be traced to a source: answer from the sources themselves instead.
  if (report.cited.length === 0) return extractive('extractive (model answer rejected: no supported citation)', modelMs, report.problems);
  return { text: report.repaired, cited: report.cited, generator: model.id, modelMs, repairs: report.problems };
}
