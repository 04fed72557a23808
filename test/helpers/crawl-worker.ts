import type { Logger } from 'pino';
import type { CrawlRunnerOptions } from '../../workers/crawl/crawl-runner.js';
import { startWorkers, type RunningWorkers } from '../../workers/registry.js';
import type { TestService } from './test-service.js';

/** The crawl queue's worker for a test service, through the registry as a worker process runs it: one crawl at a time, private hosts allowed. */
export function startCrawlWorker(svc: TestService, log: Logger, runner: Partial<CrawlRunnerOptions>): Promise<RunningWorkers> {
  return startWorkers(['crawl'], {
    log,
    crawl: {
      storage: svc.storage, queues: svc.queues, log, batchSize: 64, allowPrivate: true,
      contactUrl: 'https://search.example.com', scheduleMs: 0, runner,
    },
  }, { connection: svc.redis, prefix: svc.prefix, concurrency: 1, lockMs: 30_000 });
}
