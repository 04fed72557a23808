import { useState } from 'preact/hooks';
import { api, seg } from '../api';
import { AsyncView } from '../components/async';
import { PageHeader, formatDate } from '../components/controls';
import { useLiveAsync } from '../components/index-progress';
import { SourceForm } from '../components/source-form';
import { COUNTERS, NEW_SOURCE, isCrawling, type SourceSummary, type SourceView } from '../components/source-types';
import { CrawlBadge, NextCrawl } from '../components/source-crawl';
import { DataTable, type Column } from '../components/table';
import { href, navigate } from '../router';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Website sources: the list with each one's latest crawl, live while any crawl runs, and the create form. */
export default function SourcesPage() {
  const list = useLiveAsync((signal) => api.all<{ sources: SourceSummary[] }>('/v1/admin/sources', 'sources', signal), [], (d) => d.sources.some((s) => isCrawling(s.crawl)));
  const [creating, setCreating] = useState(false);
  const counters: Column<SourceSummary>[] = COUNTERS.map((c) => ({
    label: c.label, numeric: true, render: (s) => s.crawl[c.key].toLocaleString(), csv: (s) => s.crawl[c.key],
  }));
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Website sources">
        <button type="button" class="primary" aria-expanded={creating} aria-controls="create-source" onClick={() => setCreating(!creating)}>
          {creating ? 'Close the form' : 'New source'}
        </button>
      </PageHeader>
      <p class="muted">
        A website source crawls a site into an index of its own (<span class="mono">source-&lt;uid&gt;</span>), again on a schedule if
        you like. Name that index in a configuration to search the site.
      </p>
      {creating && (
        <div id="create-source">
          <h2>Create a website source</h2>
          <SourceForm
            initial={NEW_SOURCE}
            mode="create"
            submitLabel="Create source"
            onSubmit={async (body) => {
              const s = await api.post<SourceView>('/v1/admin/sources', body);
              navigate(`/sources/${seg(s.uid)}`);
            }}
          />
        </div>
      )}
      <AsyncView state={list} label="sources" isEmpty={(d) => d.sources.length === 0} empty={<p>No website sources yet. Create one with <strong>New source</strong>.</p>}>
        {(d) => (
          <div class="source-list">
            <DataTable
              caption="Sources"
              csvName="sources.csv"
              rowKey={(s) => s.uid}
              rows={d.sources}
              columns={[
                { label: 'Source', render: (s) => <a href={href(`/sources/${seg(s.uid)}`)}>{s.uid}</a>, csv: (s) => s.uid },
                {
                  label: 'Crawls',
                  render: (s) => (
                    <>
                      <span class="mono source-seed">{s.start_urls[0] ?? s.sitemaps[0]}</span>
                      <br />
                      <span class="muted small-text">{plural(s.start_urls.length, 'start url')} · {plural(s.sitemaps.length, 'sitemap')}</span>
                    </>
                  ),
                  csv: (s) => [...s.start_urls, ...s.sitemaps].join(' '),
                },
                { label: 'Crawl', render: (s) => <CrawlBadge crawl={s.crawl} />, csv: (s) => s.crawl.state },
                ...counters,
                { label: 'Last finished', render: (s) => formatDate(s.crawl.finished_at), csv: (s) => s.crawl.finished_at },
                { label: 'Next recrawl', render: (s) => <NextCrawl source={s} />, csv: (s) => s.next_crawl_at },
              ]}
            />
            <p class="muted" role="status">{d.sources.some((s) => isCrawling(s.crawl)) ? 'Crawling: figures refresh every 2 seconds.' : ''}</p>
          </div>
        )}
      </AsyncView>
    </section>
  );
}
