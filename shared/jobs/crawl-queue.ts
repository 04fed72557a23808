import type { Redis } from 'ioredis';
import { IDLE_CRAWL, type SourceRecord, type SourceStore } from '../storage/ports/source-store.js';
import { AppError } from '../errors/app-error.js';
import { createQueue, type CrawlPayload, type QueueOf } from './queue-catalogue.js';
import { withTimeout } from './queue-status.js';

export type { CrawlPayload } from './queue-catalogue.js';

/** Crawls run on a queue of their own, so a long crawl never holds up the indexing pipeline. */
export const CRAWL_QUEUE = 'crawl';

export type CrawlQueue = QueueOf<'crawl'>;

export function createCrawlQueue(connection: Redis, prefix: string, attempts: number): CrawlQueue {
  return createQueue(CRAWL_QUEUE, { connection, prefix, attempts });
}

/** One job per crawl: asking twice for the same crawl adds nothing. */
export const crawlJobId = (p: CrawlPayload) => `crawl-${p.sourceUid}-${p.crawl}`;

export function enqueueCrawl(queue: CrawlQueue, payload: CrawlPayload) {
  return queue.add('crawl', payload, { jobId: crawlJobId(payload) });
}

/** How long Redis may take to accept a crawl job before the caller is told (a stalled Redis answers nothing). */
const ENQUEUE_TIMEOUT_MS = 2000;

/**
 * Starts the source's next crawl: progress reset to `queued` under a new crawl number, then its job.
 * A running crawl is left alone. A queued one gets its job added again under the same id (nothing
 * happens while that job exists), so a job Redis lost or never took is not waited for forever.
 * Null when the source is gone; 503 when Redis does not take the job (the crawl stays queued: asking
 * again adds it).
 */
export async function queueCrawl(sources: SourceStore, queue: CrawlQueue, source: SourceRecord): Promise<SourceRecord | null> {
  if (source.crawl.state === 'running') return source;
  if (source.crawl.state === 'queued') {
    await addCrawlJob(queue, { sourceUid: source.uid, crawl: source.crawl.crawl });
    return source;
  }
  const crawl = { ...IDLE_CRAWL, state: 'queued' as const, crawl: source.crawl.crawl + 1 };
  if (!(await sources.setCrawl(source.uid, crawl))) return null;
  await addCrawlJob(queue, { sourceUid: source.uid, crawl: crawl.crawl });
  return { ...source, crawl };
}

async function addCrawlJob(queue: CrawlQueue, payload: CrawlPayload): Promise<void> {
  try {
    await withTimeout(enqueueCrawl(queue, payload), ENQUEUE_TIMEOUT_MS);
  } catch {
    throw new AppError('dependency_unavailable', `Crawl ${payload.crawl} of source '${payload.sourceUid}' is recorded as queued, but the job queue did not take it within ${ENQUEUE_TIMEOUT_MS / 1000} s; ask for the crawl again once GET /readyz is green`);
  }
}
