import { DelayedError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { DocumentWriter } from '../../shared/documents/document-writer.js';
import { crawlerUserAgent } from '../../shared/crawl/fetch-page.js';
import { nextCrawlDue } from '../../shared/crawl/recrawl-schedule.js';
import { CRAWL_QUEUE, createCrawlQueue, queueCrawl, type CrawlPayload } from '../../shared/jobs/crawl-queue.js';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { workerSettings, type WorkerOptions } from '../registry.js';
import { CrawlPaused, runCrawl, type CrawlRunnerOptions } from './crawl-runner.js';
import { SourcePages } from './source-pages.js';

/** `concurrency`: crawls this process runs at once. */
export interface CrawlWorkerOptions extends WorkerOptions {
  /** Documents per pipeline job, as the API writes them. */
  batchSize: number;
  allowPrivate: boolean;
  contactUrl: string;
  /** How often sources are checked for a due recrawl; 0: never (tests drive crawls by hand). */
  scheduleMs: number;
  /** Politeness and parallelism overrides: the per-host delay (QUARRY_CRAWL_HOST_DELAY_MS), tests. */
  runner?: Partial<CrawlRunnerOptions>;
}

export interface CrawlWorker {
  close(): Promise<void>;
}

/**
 * Runs crawl jobs. Pages go through the same write path as pushes (SourcePages), so
 * the section -> embed -> index workers index them like any pushed page. A failed attempt retries with
 * backoff and resumes from the stored frontier; when the last attempt fails the crawl is `failed`
 * with the reason.
 */
export function startCrawlWorker(deps: { storage: Storage; queues: PipelineQueues; log: Logger }, o: CrawlWorkerOptions): CrawlWorker {
  const { storage, log } = deps;
  const writer = new DocumentWriter((w) => storage.documents.applyWrites(w), deps.queues, log, { batchSize: o.batchSize });
  const pages = new SourcePages(writer);
  // A crawl can run for hours: a shutdown pauses it instead of waiting for it to finish.
  const shutdown = new AbortController();
  const runner: CrawlRunnerOptions = { userAgent: crawlerUserAgent(o.contactUrl), allowPrivate: o.allowPrivate, ...o.runner };
  const worker = new Worker<CrawlPayload>(
    CRAWL_QUEUE,
    async (job: Job<CrawlPayload>, token?: string) => {
      try {
        await runCrawl(job.data, { storage, pages, log, signal: shutdown.signal }, runner);
      } catch (err) {
        if (err instanceof CrawlPaused) {
          // Back to the queue without spending an attempt: the next worker resumes from the frontier.
          await job.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        }
        if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
          const source = await storage.sources.get(job.data.sourceUid);
          if (source && source.crawl.crawl === job.data.crawl) {
            await storage.sources.setCrawl(source.uid, { ...source.crawl, state: 'failed', finishedAt: Date.now(), lastError: (err as Error).message });
          }
        }
        throw err;
      }
    },
    workerSettings(o),
  );
  worker.on('failed', (job, err) => log.warn({ queue: CRAWL_QUEUE, job: job?.id, attempt: job?.attemptsMade, err }, 'crawl attempt failed'));
  worker.on('error', (err) => log.error({ queue: CRAWL_QUEUE, err }, 'crawl worker error'));

  const queue = createCrawlQueue(o.connection, o.prefix, 8);
  const timer = o.scheduleMs > 0 ? setInterval(() => void queueDueRecrawls(storage, queue).catch((err) => log.warn({ err }, 'recrawl check failed')), o.scheduleMs) : null;
  return {
    close: async () => {
      if (timer) clearInterval(timer);
      shutdown.abort();
      await worker.close();
      await queue.close();
    },
  };
}

/**
 * Queues the crawls that are due: a source with `recrawl_hours` whose last crawl finished that long
 * ago, or that never crawled. Every crawl worker checks; the crawl number in the job id makes the first one win.
 */
export async function queueDueRecrawls(storage: Storage, queue: ReturnType<typeof createCrawlQueue>, now = Date.now()): Promise<void> {
  for (const source of await storage.sources.list()) {
    const due = nextCrawlDue(source);
    if (due !== null && due <= now) await queueCrawl(storage.sources, queue, source);
  }
}
