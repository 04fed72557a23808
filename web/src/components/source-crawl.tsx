import { formatDate } from './controls';
import { COUNTERS, STATE_TONE, isCrawling, type CrawlView, type SourceSummary } from './source-types';

export function CrawlBadge({ crawl }: { crawl: CrawlView }) {
  const tone = STATE_TONE[crawl.state];
  return <span class={`badge${tone ? ` ${tone}` : ''}`}>{crawl.state === 'idle' ? 'never crawled' : crawl.state}</span>;
}

/** When the schedule queues the next crawl; the workers check every minute, so a time gone by is due now. */
export function NextCrawl({ source }: { source: SourceSummary }) {
  if (source.recrawl_hours === null) return <span class="muted">only when asked</span>;
  if (isCrawling(source.crawl)) return <span class="muted">after this crawl</span>;
  if (!source.next_crawl_at) return <span>—</span>;
  return <span>{Date.parse(source.next_crawl_at) <= Date.now() ? 'due now' : formatDate(source.next_crawl_at)}</span>;
}

/** The crawl's counters as figures, its times and its error: the source page's progress. */
export function CrawlFigures({ crawl }: { crawl: CrawlView }) {
  return (
    <div>
      <dl class="kpis index-kpis source-kpis">
        {COUNTERS.map((c) => {
          const bad = (c.key === 'failed' && crawl.failed > 0) || (c.key === 'skipped' && crawl.skipped > 0);
          return (
            <div class={`kpi${bad ? (c.key === 'failed' ? ' bad' : ' warn') : ''}`} title={c.hint}>
              <dt class="label">{c.label}</dt>
              <dd class="value">{crawl[c.key].toLocaleString()}</dd>
            </div>
          );
        })}
      </dl>
      <p>
        <CrawlBadge crawl={crawl} /> <span class="muted">Started {formatDate(crawl.started_at)} · finished {formatDate(crawl.finished_at)}</span>
      </p>
      {crawl.last_error && <p class="index-last-error"><strong>Last error</strong>: {crawl.last_error}</p>}
      <p class="muted" role="status">
        {crawl.state === 'queued' ? 'Crawl queued: waiting for a crawl worker. Figures refresh every 2 seconds.'
          : crawl.state === 'running' ? 'Crawling: figures refresh every 2 seconds.'
          : crawl.state === 'done' ? 'Crawl done.'
          : crawl.state === 'failed' ? 'The crawl failed; the pages indexed before stay.'
          : 'Not crawled yet.'}
      </p>
    </div>
  );
}
