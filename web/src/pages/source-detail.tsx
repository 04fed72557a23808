import { useState } from 'preact/hooks';
import { api, seg } from '../api';
import { AsyncView, ErrorMessage, messageOf } from '../components/async';
import { ConfirmDialog, PageHeader, formatDate } from '../components/controls';
import { useLiveAsync } from '../components/index-progress';
import { CrawlFigures, NextCrawl } from '../components/source-crawl';
import { SourceForm } from '../components/source-form';
import { isCrawling, sourcePath, type SourceView } from '../components/source-types';
import { DataTable } from '../components/table';
import { href, navigate } from '../router';

/** One website source: its crawl live, what went wrong with which url, where its pages are, its settings. */
export default function SourceDetailPage({ uid }: { uid: string }) {
  const state = useLiveAsync((signal) => api.get<SourceView>(sourcePath(uid), signal), [uid], (s) => isCrawling(s.crawl));
  const [crawlError, setCrawlError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const crawling = state.data ? isCrawling(state.data.crawl) : false;
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={`Source ${uid}`}>
        <a class="button small" href={href('/sources')}>All sources</a>
        <button
          type="button"
          class="primary"
          disabled={!state.data || starting || crawling}
          onClick={async () => {
            setStarting(true);
            setCrawlError(null);
            try {
              await api.post(`${sourcePath(uid)}/crawl`);
              state.reload();
            } catch (err) {
              setCrawlError(messageOf(err));
            } finally {
              setStarting(false);
            }
          }}
        >
          {crawling ? 'Crawling…' : 'Crawl now'}
        </button>
      </PageHeader>
      {crawlError && <ErrorMessage message={crawlError} />}
      <AsyncView state={state} label="the source">
        {(s) => (
          <>
            <Overview source={s} />
            <section aria-labelledby="crawl-title">
              <h2 id="crawl-title">Latest crawl</h2>
              <CrawlFigures crawl={s.crawl} />
            </section>
            <section aria-labelledby="problems-title">
              <h2 id="problems-title">Problems</h2>
              <ProblemTotals source={s} />
              <DataTable
                caption="Urls skipped or failed"
                csvName={`source-${s.uid}-problems.csv`}
                rowKey={(p) => p.url}
                rows={s.crawl.problems}
                empty="No url was skipped or failed."
                columns={[
                  { label: 'Url', render: (p) => <span class="mono break">{p.url}</span>, csv: (p) => p.url },
                  { label: 'Status', csv: (p) => p.status },
                  { label: 'Reason', render: (p) => <span class="break">{p.reason ?? '—'}</span>, csv: (p) => p.reason },
                ]}
              />
            </section>
            <section aria-labelledby="settings-title">
              <h2 id="settings-title">Settings</h2>
              <p class="muted">Changes apply from the next crawl.</p>
              <SourceForm
                key={s.uid}
                initial={s}
                mode="edit"
                submitLabel="Save settings"
                onSubmit={async (body) => {
                  await api.patch(sourcePath(s.uid), body);
                  state.reload();
                }}
              />
            </section>
            <DeleteSource uid={s.uid} indexUid={s.index_uid} />
          </>
        )}
      </AsyncView>
    </section>
  );
}

function Overview({ source: s }: { source: SourceView }) {
  const index = href(`/indexes/${seg(s.index_uid)}`);
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title" class="visually-hidden">Overview</h2>
      <dl class="index-definition card">
        <div><dt>Index</dt><dd><a href={index}>{s.index_uid}</a> <span class="muted">(its documents)</span></dd></div>
        <div><dt>Start urls</dt><dd class="mono">{s.start_urls.length ? s.start_urls.join(', ') : '—'}</dd></div>
        <div><dt>Sitemaps</dt><dd class="mono">{s.sitemaps.length ? s.sitemaps.join(', ') : '—'}</dd></div>
        <div><dt>Recrawl</dt><dd>{s.recrawl_hours === null ? 'only when asked' : `every ${s.recrawl_hours} h`}</dd></div>
        <div><dt>Next recrawl</dt><dd><NextCrawl source={s} /></dd></div>
        <div><dt>Created</dt><dd>{formatDate(s.created_at)}</dd></div>
        <div><dt>Updated</dt><dd>{formatDate(s.updated_at)}</dd></div>
      </dl>
      <p class="notice">
        To search this site, add the index <code>{s.index_uid}</code> (or the source uid <code>{s.uid}</code>) to a
        configuration's indexes: <a href={href('/configurations')}>Configurations</a>, then a configuration's Settings.
        The crawled pages are in <a href={index}>{s.index_uid}</a>'s documents.
      </p>
    </section>
  );
}

/** How many problem urls there are of each status; the table lists the latest 100 (the latest crawl's first). */
function ProblemTotals({ source: s }: { source: SourceView }) {
  const t = s.crawl.problem_totals;
  const all = t.skipped + t.failed + t.duplicate;
  const shown = s.crawl.problems.length < all ? `, the latest ${s.crawl.problems.length} listed` : '';
  return (
    <p class="muted" id="problem-totals">
      {all.toLocaleString()} url{all === 1 ? '' : 's'} not indexed: {t.skipped.toLocaleString()} skipped, {t.failed.toLocaleString()} failed,{' '}
      {t.duplicate.toLocaleString()} duplicate{t.duplicate === 1 ? '' : 's'}{shown}.
    </p>
  );
}

function DeleteSource({ uid, indexUid }: { uid: string; indexUid: string }) {
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="delete-title">
      <h2 id="delete-title">Delete</h2>
      <div class="card">
        <p>Deleting the source removes its crawl records and its pages from <code>{indexUid}</code>; the emptied index stays.</p>
        {error && <ErrorMessage message={error} />}
        <button type="button" class="danger" onClick={() => setConfirm(true)}>Delete source</button>
      </div>
      <ConfirmDialog
        open={confirm}
        title="Delete source"
        confirmLabel="Delete"
        onCancel={() => setConfirm(false)}
        onConfirm={async () => {
          setConfirm(false);
          try {
            await api.delete(sourcePath(uid));
            navigate('/sources');
          } catch (err) {
            setError(messageOf(err));
          }
        }}
      >
        <p>Delete the source “{uid}” and its pages in {indexUid}? This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
