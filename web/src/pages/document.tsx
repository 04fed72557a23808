import { api, ApiError, seg } from '../api';
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
  title?: string | null;
  text: string;
  [extra: string]: unknown;
}

interface Sections {
  index_uid: string;
  document_uid: string;
  version: number;
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

/** A 404 (no sections route on this server, or the document not indexed yet) is a state to explain, not an error. */
async function loadSections(uid: string, doc: string, signal: AbortSignal): Promise<Sections | { missing: string }> {
  try {
    return await api.get<Sections>(`/v1/admin/indexes/${seg(uid)}/documents/${seg(doc)}/sections`, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { missing: err.message };
    throw err;
  }
}

function SectionsView({ uid, doc }: { uid: string; doc: string }) {
  const state = useAsync((signal) => loadSections(uid, doc, signal), [uid, doc]);
  return (
    <section aria-labelledby="sections-title">
      <h2 id="sections-title">Sections as they are searched</h2>
      <AsyncView state={state} label="sections">
        {(d) =>
          'missing' in d ? (
            <div class="empty" role="status">
              <p>No sections to show.</p>
              <p class="muted">
                {d.missing.startsWith('No route')
                  ? 'This server does not offer the sections view yet.'
                  : `${d.missing}. A document is split into sections once it is indexed; if it was just pushed, try again in a moment.`}
              </p>
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
                    <div class="document-value">{s.text}</div>
                    <SectionExtras section={s} />
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

function SectionExtras({ section }: { section: Section }) {
  const extras = Object.entries(section).filter(([k]) => k !== 'ord' && k !== 'title' && k !== 'text');
  if (extras.length === 0) return null;
  return (
    <dl class="document-fields">
      {extras.map(([k, v]) => (
        <div>
          <dt>{k}</dt>
          <dd class="document-value">{asText(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
