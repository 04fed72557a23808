import { api, seg } from '../api';
import { AsyncView } from '../components/async';
import { PageHeader, formatDate } from '../components/controls';
import { DocumentsBrowser } from '../components/index-documents';
import { ProgressFigures, useLiveAsync } from '../components/index-progress';
import { isBusy, isPushIndex, textFields, type IndexView } from '../components/index-types';
import { SearchForm } from '../components/search-form';
import { DataTable } from '../components/table';
import { href } from '../router';

export default function IndexDetailPage({ uid }: { uid: string }) {
  const state = useLiveAsync((signal) => api.get<IndexView>(`/v1/admin/indexes/${seg(uid)}`, signal), [uid], (i) => isBusy(i.progress));
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={`Index ${uid}`}>
        <a class="button small" href={href('/indexes')}>All indexes</a>
      </PageHeader>
      <AsyncView state={state} label="the index">
        {(index) => (
          <>
            <Definition index={index} />
            <section aria-labelledby="progress-title">
              <h2 id="progress-title">Pipeline progress</h2>
              <ProgressFigures progress={index.progress} />
            </section>
            <DocumentsBrowser index={index.uid} changes={progressKey(index)} />
            <SearchForm index={index.uid} textFields={textFields(index)} />
          </>
        )}
      </AsyncView>
    </section>
  );
}

const progressKey = ({ progress: p }: IndexView) => [p.documents, p.indexed, p.pending, p.pending_deletes, p.failed].join('/');

function Definition({ index }: { index: IndexView }) {
  const fields = Object.entries(index.schema.fields);
  return (
    <section aria-labelledby="definition-title">
      <h2 id="definition-title">Definition</h2>
      <dl class="index-definition card">
        <div><dt>Kind</dt><dd>{isPushIndex(index) ? 'Push index (/v2 documents)' : 'Content index (/v1/content documents)'}</dd></div>
        <div><dt>Language</dt><dd>{index.language_code}</dd></div>
        <div><dt>Embedder</dt><dd>{index.embedder ?? 'none yet (set when the first document is embedded)'}</dd></div>
        <div><dt>Created</dt><dd>{formatDate(index.created_at)}</dd></div>
        <div><dt>Updated</dt><dd>{formatDate(index.updated_at)}</dd></div>
      </dl>
      <details class="index-fields">
        <summary>Fields ({fields.length})</summary>
        <DataTable
          caption="Fields"
          rowKey={([name]) => name}
          rows={fields}
          columns={[
            { label: 'Field', render: ([name]) => <code>{name}</code> },
            { label: 'Type', render: ([, spec]) => spec.type },
            { label: 'Multi-valued', render: ([, spec]) => (spec.multi_valued ? 'yes' : 'no') },
          ]}
        />
      </details>
    </section>
  );
}
