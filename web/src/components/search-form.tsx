import { useState } from 'preact/hooks';
import { api, ApiError, seg } from '../api';
import { href } from '../router';
import { messageOf } from './async';
import { Field } from './controls';

interface Hit {
  uid: string;
  section: string;
  fields: Record<string, unknown>;
  score: number;
}

type FieldName = 'query' | 'boosting' | 'filter' | 'fields' | 'limit';

interface FieldError {
  field: FieldName;
  message: string;
  /** 0-based character position the server points at, when it names one. */
  position: number | null;
}

/**
 * The server's 400 reads "Invalid request: <field>: ..."; filter and boosting errors add "at position N"
 * (0-based). The first such mention is the error's own; later ones point back at an opening bracket.
 */
export function fieldErrorOf(message: string): FieldError | null {
  const m = /^Invalid request: (query|boosting|filter|fields|limit)\b[^:]*: (.*)$/s.exec(message);
  if (!m) return null;
  const at = /\bat position (\d+)/.exec(m[2]);
  return { field: m[1] as FieldName, message: m[2], position: at ? Number(at[1]) : null };
}

/** The value on one line with a caret under the position: what a reader's eye needs to find the mistake. */
function Caret({ value, position }: { value: string; position: number }) {
  const line = value.replace(/[\r\n\t]/g, ' ');
  return (
    <pre class="search-caret" aria-hidden="true">
      {line || ' '}
      {'\n'}
      {' '.repeat(Math.min(position, line.length))}^
    </pre>
  );
}

/** "Try content search": the same request a site would send, answered with its hits or its positioned error. */
export function SearchForm({ index, textFields }: { index: string; textFields: string[] }) {
  const [query, setQuery] = useState('');
  const [boosting, setBoosting] = useState(() => textFields.join(' '));
  const [filter, setFilter] = useState('');
  const [fields, setFields] = useState('');
  const [limit, setLimit] = useState('10');
  const [busy, setBusy] = useState(false);
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [fieldError, setFieldError] = useState<(FieldError & { value: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);

  const values: Record<FieldName, string> = { query, boosting, filter, fields, limit };

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setFieldError(null);
    try {
      const body = {
        index_uid: index,
        query,
        boosting,
        filter,
        fields: fields.split(',').map((f) => f.trim()).filter(Boolean),
        limit: Number(limit),
      };
      const res = await api.post<{ results: Hit[] }>('/v1/content/search', body);
      setHits(res.results);
    } catch (err) {
      setHits(null);
      const fe = err instanceof ApiError && err.status === 400 ? fieldErrorOf(err.message) : null;
      if (fe) {
        setFieldError({ ...fe, value: values[fe.field] });
        document.getElementById(`search-${fe.field}`)?.focus();
      } else setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  /** Props tying a control to its error for screen readers. */
  const invalid = (name: FieldName, hint = false) => {
    const bad = fieldError?.field === name;
    const described = [hint ? `search-${name}-hint` : '', bad ? `search-${name}-error` : ''].filter(Boolean).join(' ');
    return { 'aria-invalid': bad ? ('true' as const) : undefined, 'aria-describedby': described || undefined };
  };
  const errorFor = (name: FieldName) => (fieldError?.field === name ? fieldError.message : null);
  const caretFor = (name: FieldName) =>
    fieldError?.field === name && fieldError.position !== null ? <Caret value={fieldError.value} position={fieldError.position} /> : null;

  return (
    <section aria-labelledby="search-title">
      <form class="card" onSubmit={submit} aria-labelledby="search-title" noValidate>
        <h2 id="search-title">Try content search</h2>
        <Field label="Query" id="search-query" error={errorFor('query')}>
          <input id="search-query" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} {...invalid('query')} />
        </Field>
        <Field label="Boosting" id="search-boosting" hint="Fields searched, with weights: title^2 content" error={errorFor('boosting')}>
          <input id="search-boosting" class="mono" value={boosting} spellcheck={false} onInput={(e) => setBoosting(e.currentTarget.value)} {...invalid('boosting', true)} />
          {caretFor('boosting')}
        </Field>
        <Field label="Filter (fq)" id="search-filter" hint={'Solr syntax, e.g. category:"news" AND last_modified:[NOW-7DAYS TO *]'} error={errorFor('filter')}>
          <input id="search-filter" class="mono" value={filter} spellcheck={false} onInput={(e) => setFilter(e.currentTarget.value)} {...invalid('filter', true)} />
          {caretFor('filter')}
        </Field>
        <div class="row search-row">
          <Field label="Fields returned" id="search-fields" hint="Comma-separated field names" error={errorFor('fields')}>
            <input id="search-fields" value={fields} spellcheck={false} onInput={(e) => setFields(e.currentTarget.value)} {...invalid('fields', true)} />
          </Field>
          <Field label="Limit" id="search-limit" error={errorFor('limit')}>
            <input id="search-limit" type="number" min={1} max={1000} size={5} value={limit} onInput={(e) => setLimit(e.currentTarget.value)} {...invalid('limit')} />
          </Field>
        </div>
        {error && <p class="error" role="alert">{error}</p>}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>{busy ? 'Searching…' : 'Search'}</button>
        </div>
      </form>
      <div role="status" class="visually-hidden">{hits ? `${hits.length} hit${hits.length === 1 ? '' : 's'}` : ''}</div>
      {hits && <Hits index={index} hits={hits} />}
    </section>
  );
}

function Hits({ index, hits }: { index: string; hits: Hit[] }) {
  if (hits.length === 0) return <div class="empty">No document matches this search.</div>;
  return (
    <>
      <h3 id="search-hits-title">{hits.length} hit{hits.length === 1 ? '' : 's'}</h3>
      <ol class="search-hits" aria-labelledby="search-hits-title">
        {hits.map((h) => (
          <li key={h.uid} class="card">
            <div class="search-hit-head">
              <a href={href(`/indexes/${seg(index)}/documents/${seg(h.uid)}`)}>{h.uid}</a>
              <span class="muted">score {h.score.toFixed(3)}</span>
            </div>
            <p class="search-hit-section">{h.section}</p>
            {Object.keys(h.fields).length > 0 && (
              <dl class="search-hit-fields">
                {Object.entries(h.fields).map(([k, v]) => (
                  <>
                    <dt>{k}</dt>
                    <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
                  </>
                ))}
              </dl>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}
