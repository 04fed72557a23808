import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { QueueName } from '../shared/jobs/queue-catalogue.js';
import { crawlHandler, type CrawlHandlerDeps } from './crawl/crawl-worker.js';
import { generationHandler, type GenerationHandlerDeps } from './generation/generation-worker.js';
import { pipelineHandler } from './jobs/pipeline-handler.js';
import type { WorkerContext } from './jobs/worker-context.js';
import { workerSettings, type QueueHandler, type WorkerOptions } from './queue-handler.js';

export { MAX_STALLS, workerSettings, type WorkerOptions } from './queue-handler.js';

/** What the handlers need; a process passes the parts its queues use (checked when it starts them). */
export interface WorkerDeps {
  log: Logger;
  /** The pipeline queues (index, embed). */
  pipeline?: WorkerContext;
  crawl?: CrawlHandlerDeps;
  generation?: GenerationHandlerDeps;
}

type Factory<K extends QueueName> = (deps: WorkerDeps, o: WorkerOptions) => QueueHandler<K> | Promise<QueueHandler<K>>;

function needs<T>(part: T | undefined, queue: QueueName, what: keyof WorkerDeps): T {
  if (!part) throw new Error(`the ${queue} queue's handler needs the ${what} dependencies`);
  return part;
}

/** Exactly one handler per queue of the catalogue; the record type makes a missing one a compile error. */
const REGISTRY: { [K in QueueName]: Factory<K> } = {
  index: (d, o) => pipelineHandler('index', needs(d.pipeline, 'index', 'pipeline'), o),
  embed: (d, o) => pipelineHandler('embed', needs(d.pipeline, 'embed', 'pipeline'), o),
  crawl: (d, o) => crawlHandler(needs(d.crawl, 'crawl', 'crawl'), o),
  generate: (d) => generationHandler(needs(d.generation, 'generate', 'generation')),
};

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs, lets the running ones finish (a crawl pauses), then releases what the handlers hold. */
  close(): Promise<void>;
}

/** A BullMQ worker for each named queue, running the handler the registry has for it. */
export async function startWorkers(queues: readonly QueueName[], deps: WorkerDeps, o: WorkerOptions): Promise<RunningWorkers> {
  const started = await Promise.all([...new Set(queues)].map(async (name) => {
    const handler = (await REGISTRY[name](deps, o)) as QueueHandler<QueueName>;
    const worker = new Worker(name, (job: Job, token?: string) => handler.process(job, token), { ...workerSettings(o), ...handler.settings });
    if (handler.completed) worker.on('completed', (job) => handler.completed!(job));
    if (handler.failed) worker.on('failed', (job, err) => handler.failed!(job, err));
    worker.on('error', (err) => deps.log.error({ queue: name, err }, 'worker error'));
    return { worker, handler };
  }));
  return {
    workers: started.map((s) => s.worker),
    async close() {
      for (const { handler } of started) handler.stopping?.();
      await Promise.all(started.map(({ worker }) => worker.close())); // waits for active jobs to finish
      await Promise.all(started.map(({ handler }) => handler.close?.()));
    },
  };
}
