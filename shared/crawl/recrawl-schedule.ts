import type { SourceRecord } from '../storage/ports/source-store.js';

/**
 * When the crawl workers' schedule (queueDueRecrawls, checked every minute) queues the source's next crawl:
 * recrawl_hours after the last crawl finished; a scheduled source that never crawled is due since its settings
 * were saved. Null without recrawl_hours or while a crawl is queued or running. The API shows it as next_crawl_at.
 */
export function nextCrawlDue({ settings, crawl, updatedAt }: SourceRecord): number | null {
  if (settings.recrawlHours === null || crawl.state === 'queued' || crawl.state === 'running') return null;
  return crawl.finishedAt === null ? updatedAt : crawl.finishedAt + settings.recrawlHours * 3_600_000;
}
