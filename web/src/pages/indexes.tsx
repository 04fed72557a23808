import { useState } from 'preact/hooks';
import { api, seg } from '../api';
import { AsyncView } from '../components/async';
import { PageHeader, formatDate } from '../components/controls';
import { CreateIndexForm } from '../components/index-create';
import { LastError, ProgressFigures, useLiveAsync } from '../components/index-progress';
import { isBusy, isPushIndex, type IndexView } from '../components/index-types';
import { DataTable } from '../components/table';
import { href } from '../router';

export default function IndexesPage() {
  const state = useLiveAsync((signal) => api.all<{ indexes: IndexView[] }>('/v1/admin/indexes', 'indexes', signal), [], (d) => d.indexes.some((i) => isBusy(i.progress)));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Indexes">
        <button type="button" class="primary" aria-expanded={creating} aria-controls="create-index" onClick={() => setCreating(!creating)}>
          {creating ? 'Close the form' : 'New index'}
        </button>
      </PageHeader>
      <div role="status">
        {created && <p class="notice">Index <a href={href(`/indexes/${seg(created)}`)}>{created}</a> created.</p>}
      </div>
      {creating && (
        <div id="create-index">
          <CreateIndexForm
            existing={state.data?.indexes.map((i) => i.uid) ?? []}
            onCreated={(uid) => {
              setCreated(uid);
              setCreating(false);
              state.reload();
            }}
          />
        </div>
      )}
      <AsyncView state={state} label="indexes" isEmpty={(d) => d.indexes.length === 0} empty={<p>No indexes yet. Create one with <strong>New index</strong>, then push documents to it.</p>}>
        {(d) => (
          <DataTable
            caption="Indexes"
            csvName="indexes.csv"
            rowKey={(i) => i.uid}
            rows={d.indexes}
            columns={[
              { label: 'Index', render: (i) => <a href={href(`/indexes/${seg(i.uid)}`)}>{i.uid}</a>, csv: (i) => i.uid },
              { label: 'Kind', csv: (i) => (isPushIndex(i) ? 'push' : 'content') },
              { label: 'Language', csv: (i) => i.language_code },
              { label: 'Documents', numeric: true, render: (i) => i.progress.documents.toLocaleString(), csv: (i) => i.progress.documents },
              { label: 'Indexed', numeric: true, render: (i) => i.progress.indexed.toLocaleString(), csv: (i) => i.progress.indexed },
              { label: 'Pending', numeric: true, render: (i) => (i.progress.pending + i.progress.pending_deletes).toLocaleString(), csv: (i) => i.progress.pending + i.progress.pending_deletes },
              { label: 'Failed', numeric: true, render: (i) => i.progress.failed.toLocaleString(), csv: (i) => i.progress.failed },
              {
                label: 'Status',
                render: (i) => (
                  <>
                    <ProgressFigures progress={i.progress} compact />
                    <LastError progress={i.progress} />
                  </>
                ),
                csv: (i) => (i.progress.last_error ? `last error on ${i.progress.last_error.uid}: ${i.progress.last_error.message}` : ''),
              },
              { label: 'Updated', render: (i) => formatDate(i.updated_at), csv: (i) => i.updated_at },
            ]}
          />
        )}
      </AsyncView>
    </section>
  );
}
