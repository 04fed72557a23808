import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobOptions } from './pipeline-queues.js';

/** Crawls run on a queue of their own, so a long crawl never holds up the section -> embed -> index pipeline. */
export const CRAWL_QUEUE = 'crawl';

export interface CrawlPayload {
  sourceUid: string;
  /** The source's crawl number this job runs; a job for an older crawl finds it superseded and stops. */
  crawl: number;
}

export type CrawlQueue = Queue<CrawlPayload>;

export function createCrawlQueue(connection: Redis, prefix: string, attempts: number): CrawlQueue {
  return new Queue<CrawlPayload>(CRAWL_QUEUE, { connection, prefix, defaultJobOptions: jobOptions(attempts) });
}

/** One job per crawl: asking twice for the same crawl adds nothing. */
export const crawlJobId = (p: CrawlPayload) => `crawl-${p.sourceUid}-${p.crawl}`;

export function enqueueCrawl(queue: CrawlQueue, payload: CrawlPayload) {
  return queue.add('crawl', payload, { jobId: crawlJobId(payload) });
}
