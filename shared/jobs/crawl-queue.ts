import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { IDLE_CRAWL, type SourceRecord, type SourceStore } from '../storage/ports/source-store.js';
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

/**
 * Starts the source's next crawl: progress reset to `queued` under a new crawl number, then its job.
 * A crawl already queued or running is left alone. Null when the source is gone.
 */
export async function queueCrawl(sources: SourceStore, queue: CrawlQueue, source: SourceRecord): Promise<SourceRecord | null> {
  if (source.crawl.state === 'queued' || source.crawl.state === 'running') return source;
  const crawl = { ...IDLE_CRAWL, state: 'queued' as const, crawl: source.crawl.crawl + 1 };
  if (!(await sources.setCrawl(source.uid, crawl))) return null;
  await enqueueCrawl(queue, { sourceUid: source.uid, crawl: crawl.crawl });
  return { ...source, crawl };
}
