import { DelayedError } from 'bullmq';
import type { Logger } from 'pino';
import { DocumentWriter } from '../../shared/documents/document-writer.js';
import { crawlerUserAgent } from '../../shared/crawl/fetch-page.js';
import { nextCrawlDue } from '../../shared/crawl/recrawl-schedule.js';
import { CRAWL_QUEUE, createCrawlQueue, queueCrawl } from '../../shared/jobs/crawl-queue.js';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { QueueHandler, WorkerOptions } from '../queue-handler.js';
import { CrawlPaused, runCrawl, type CrawlRunnerOptions } from './crawl-runner.js';
import { SourcePages } from './source-pages.js';

export interface CrawlHandlerDeps {
  storage: Storage;
  /** The pipeline's queues: crawled pages are written like pushes and indexed by its jobs. */
  queues: PipelineQueues;
  log: Logger;
  /** Documents per pipeline job, as the API writes them. */
  batchSize: number;
  allowPrivate: boolean;
  contactUrl: string;
  /** How often sources are checked for a due recrawl; 0: never (tests drive crawls by hand). */
  scheduleMs: number;
  /** Politeness and parallelism overrides: the per-host delay (QUARRY_CRAWL_HOST_DELAY_MS), tests. */
  runner?: Partial<CrawlRunnerOptions>;
}

/**
 * The crawl queue's handler (`concurrency`: crawls a process runs at once). Pages go through the
 * same write path as pushes (SourcePages), so the pipeline indexes them like any pushed page. A
 * failed attempt retries with backoff and resumes from the stored frontier; when the last attempt
 * fails the crawl is `failed` with the reason. Every crawl worker also queues the recrawls that are due.
 */
export function crawlHandler(deps: CrawlHandlerDeps, o: WorkerOptions): QueueHandler<'crawl'> {
  const { storage, log } = deps;
  const writer = new DocumentWriter((w) => storage.documents.applyWrites(w), deps.queues, log, { batchSize: deps.batchSize });
  const pages = new SourcePages(writer);
  // A crawl can run for hours: a shutdown pauses it instead of waiting for it to finish.
  const shutdown = new AbortController();
  const runner: CrawlRunnerOptions = { userAgent: crawlerUserAgent(deps.contactUrl), allowPrivate: deps.allowPrivate, ...deps.runner };
  const queue = createCrawlQueue(o.connection, o.prefix, 8);
  const timer = deps.scheduleMs > 0
    ? setInterval(() => void queueDueRecrawls(storage, queue).catch((err) => log.warn({ err }, 'recrawl check failed')), deps.scheduleMs)
    : null;
  return {
    async process(job, token) {
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
    failed: (job, err) => log.warn({ queue: CRAWL_QUEUE, job: job?.id, attempt: job?.attemptsMade, err }, 'crawl attempt failed'),
    stopping() {
      if (timer) clearInterval(timer);
      shutdown.abort();
    },
    close: async () => {
      await writer.flushJobs();
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
