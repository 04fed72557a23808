import { useState } from 'preact/hooks';
import { api, qs, seg } from '../api';
import { href } from '../router';
import { AsyncView, useAsync } from './async';
import { DataTable } from './table';

interface DocumentRow {
  uid: string;
  title?: string;
  version: number;
  status: string;
}

interface Page {
  documents: DocumentRow[];
  next_cursor: string | null;
}

/**
 * Pages forward with the server's cursor; the cursors already seen make the way back. `changes` (the index's
 * progress figures) reloads the page shown when they move, so statuses follow a running push.
 */
export function DocumentsBrowser({ index, changes }: { index: string; changes: string }) {
  const [limit, setLimit] = useState(20);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];
  const state = useAsync(
    (signal) => api.get<Page>(`/v1/admin/indexes/${seg(index)}/documents${qs({ cursor, limit })}`, signal),
    [index, cursor, limit, changes],
  );
  const page = cursors.length;
  return (
    <section aria-labelledby="documents-title">
      <div class="index-section-head">
        <h2 id="documents-title">Documents</h2>
        <div class="row">
          <div class="field">
            <label for="documents-limit">Per page</label>
            <select id="documents-limit" value={limit} onChange={(e) => { setLimit(Number(e.currentTarget.value)); setCursors([null]); }}>
              {[20, 50, 100].map((n) => <option value={n}>{n}</option>)}
            </select>
          </div>
          <button type="button" class="small" onClick={state.reload}>Refresh documents</button>
        </div>
      </div>
      <AsyncView state={state} label="documents" isEmpty={(d) => d.documents.length === 0 && page === 1} empty="No documents in this index yet.">
        {(d) => (
          <>
            <DataTable
              caption={`Documents, page ${page}`}
              rowKey={(r) => r.uid}
              rows={d.documents}
              empty="No more documents."
              columns={[
                { label: 'Document', render: (r) => <a href={href(`/indexes/${seg(index)}/documents/${seg(r.uid)}`)}>{r.uid}</a> },
                { label: 'Title', render: (r) => r.title ?? '—' },
                { label: 'Version', numeric: true, render: (r) => r.version },
                { label: 'Status', render: (r) => <StatusBadge status={r.status} /> },
              ]}
            />
            <nav class="row index-pager" aria-label="Document pages">
              <button type="button" disabled={page === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>Previous page</button>
              <span class="muted">Page {page}</span>
              <button type="button" disabled={!d.next_cursor} onClick={() => setCursors((c) => [...c, d.next_cursor])}>Next page</button>
            </nav>
          </>
        )}
      </AsyncView>
    </section>
  );
}

export function StatusBadge({ status }: { status?: string | null }) {
  if (!status) return <>—</>;
  const tone = status === 'indexed' ? 'ok' : status === 'failed' ? 'bad' : 'warn';
  return <span class={`badge ${tone}`}>{status}</span>;
}
