import { useState } from 'preact/hooks';
import { api, ApiError, qs, seg } from '../api';
import { href } from '../router';
import { AsyncView, useAsync } from './async';
import { formatDate } from './controls';
import { DataTable } from './table';

interface DocumentRow {
  uid: string;
  title?: string;
  version?: number;
  status?: string;
  updated_at?: string;
}

interface Page {
  documents: DocumentRow[];
  next_cursor: string | null;
}

/**
 * One page of documents. The admin listing serves both index kinds; a server without it (older than the
 * web app's API) answers "No route", and then push indexes are listed through /v2, whose cursor is the last uid.
 */
async function loadPage(index: string, cursor: string | null, limit: number, signal: AbortSignal): Promise<Page> {
  try {
    return await api.get<Page>(`/v1/admin/indexes/${seg(index)}/documents${qs({ cursor, limit })}`, signal);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404 && err.message.startsWith('No route'))) throw err;
  }
  const { documents } = await api.get<{ documents: { uid: string; title: string }[] }>(`/v2/indexes/${seg(index)}/documents${qs({ 'after-uid': cursor, limit })}`, signal);
  return {
    documents: documents.map((d) => ({ uid: d.uid, title: d.title })),
    next_cursor: documents.length === limit ? documents[documents.length - 1].uid : null,
  };
}

/** Pages forward with the server's cursor; the cursors already seen make the way back. */
export function DocumentsBrowser({ index }: { index: string }) {
  const [limit, setLimit] = useState(20);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];
  const state = useAsync((signal) => loadPage(index, cursor, limit, signal), [index, cursor, limit]);
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
                ...(d.documents.some((r) => r.version !== undefined)
                  ? [
                      { label: 'Version', numeric: true, render: (r: DocumentRow) => r.version ?? '—' },
                      { label: 'Status', render: (r: DocumentRow) => <StatusBadge status={r.status} /> },
                      { label: 'Updated', render: (r: DocumentRow) => formatDate(r.updated_at) },
                    ]
                  : []),
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
