import { api, seg } from '../api';
import { AsyncView, useAsync } from '../components/async';
import { PageHeader } from '../components/controls';
import { StatusBadge } from '../components/index-documents';
import { isPushIndex, type IndexView } from '../components/index-types';
import { href } from '../router';

interface PushDocument {
  uid: string;
  status: { state: string; version: number; error: string | null };
  [field: string]: unknown;
}

interface Section {
  ord: number;
  field: string;
  title: string;
  anchor: string | null;
  text: string;
}

interface Sections {
  index_uid: string;
  document_uid: string;
  /** The live (searched) version; null while the first one is pending. */
  version: number | null;
  sections: Section[];
}

/** Any value as text: documents hold HTML and user data, which the page shows and never renders. */
const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

export default function DocumentPage({ uid, doc }: { uid: string; doc: string }) {
  const indexUrl = href(`/indexes/${seg(uid)}`);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={`Document ${doc}`}>
        <a class="button small" href={indexUrl}>Back to index {uid}</a>
      </PageHeader>
      <Fields uid={uid} doc={doc} />
      <SectionsView uid={uid} doc={doc} />
    </section>
  );
}

function Fields({ uid, doc }: { uid: string; doc: string }) {
  const state = useAsync(async (signal) => {
    const index = await api.get<IndexView>(`/v1/admin/indexes/${seg(uid)}`, signal);
    if (!isPushIndex(index)) return null;
    return api.get<PushDocument>(`/v2/indexes/${seg(uid)}/documents/${seg(doc)}`, signal);
  }, [uid, doc]);
  return (
    <section aria-labelledby="fields-title">
      <h2 id="fields-title">Fields</h2>
      <AsyncView state={state} label="the document">
        {(d) =>
          d === null ? (
            <p class="empty">This is a content index: Quarry reads its documents' fields back only as the sections below.</p>
          ) : (
            <>
              <p>
                Status <StatusBadge status={d.status.state} /> · version {d.status.version}
              </p>
              {d.status.error && <p class="error">Indexing failed: {d.status.error}</p>}
              <dl class="document-fields card">
                {Object.entries(d)
                  .filter(([k]) => k !== 'status' && k !== 'uid')
                  .map(([k, v]) => (
                    <div>
                      <dt>{k}</dt>
                      <dd>{k === 'source_url' && typeof v === 'string' && /^https?:\/\//.test(v) ? <a href={v} rel="noopener noreferrer" target="_blank">{v}</a> : <div class="document-value">{asText(v)}</div>}</dd>
                    </div>
                  ))}
              </dl>
            </>
          )
        }
      </AsyncView>
    </section>
  );
}

function SectionsView({ uid, doc }: { uid: string; doc: string }) {
  const state = useAsync((signal) => api.get<Sections>(`/v1/admin/indexes/${seg(uid)}/documents/${seg(doc)}/sections`, signal), [uid, doc]);
  return (
    <section aria-labelledby="sections-title">
      <h2 id="sections-title">Sections as they are searched</h2>
      <AsyncView state={state} label="sections">
        {(d) =>
          d.version === null ? (
            <div class="empty">
              <p>This document is not searchable yet: its first version is still being indexed.</p>
              <button type="button" class="small" onClick={state.reload}>Check again</button>
            </div>
          ) : d.sections.length === 0 ? (
            <p class="empty">Version {d.version} of this document has no searchable sections (it has no text).</p>
          ) : (
            <>
              <p class="muted">Version {d.version}, {d.sections.length} section{d.sections.length === 1 ? '' : 's'}.</p>
              <ol class="document-sections">
                {d.sections.map((s) => (
                  <li key={s.ord} class="card">
                    <h3>
                      <span class="muted">#{s.ord}</span> {s.title || <span class="muted">(untitled)</span>}
                    </h3>
                    <p class="muted">
                      From field <code>{s.field}</code>
                      {s.anchor && <> · anchor <code>#{s.anchor}</code></>}
                    </p>
                    <div class="document-value">{s.text}</div>
                  </li>
                ))}
              </ol>
            </>
          )
        }
      </AsyncView>
    </section>
  );
}
