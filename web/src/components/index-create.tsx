import { useState } from 'preact/hooks';
import { api } from '../api';
import { messageOf } from './async';
import { Field } from './controls';

// The server validates both (and its 400 lists the supported languages); these only help filling the form.
const FIELD_TYPES = ['text', 'html', 'string', 'int', 'float', 'boolean', 'date'] as const;
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'no', 'nb', 'nn', 'fi', 'ru', 'zh', 'ja', 'ko', 'th'];

interface FieldRow {
  key: number;
  name: string;
  type: string;
  multi: boolean;
}

let nextKey = 0;
const row = (name = '', type = 'text'): FieldRow => ({ key: nextKey++, name, type, multi: false });

/** Creates a push index (the /v2 page fields) or a content index with a schema of its own. */
export function CreateIndexForm({ existing, onCreated }: { existing: string[]; onCreated: (uid: string) => void }) {
  const [kind, setKind] = useState<'push' | 'content'>('push');
  const [uid, setUid] = useState('');
  const [language, setLanguage] = useState('en');
  const [fields, setFields] = useState<FieldRow[]>(() => [row('title', 'text'), row('body', 'html')]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const update = (key: number, patch: Partial<FieldRow>) => setFields((fs) => fs.map((f) => (f.key === key ? { ...f, ...patch } : f)));

  /** What the server cannot see once the rows become an object: duplicate and empty names. */
  function localProblem(): string | null {
    const id = uid.trim();
    // Both create routes also update: an existing uid here would silently change that index.
    if (existing.includes(id)) return `An index named '${id}' already exists: open it from the list instead.`;
    if (kind === 'push') return null;
    const seen = new Set<string>();
    for (const [i, f] of fields.entries()) {
      const name = f.name.trim();
      if (!name) return `Field ${i + 1} needs a name.`;
      if (seen.has(name)) return `Field '${name}' is declared twice.`;
      seen.add(name);
    }
    return null;
  }

  async function submit(e: Event) {
    e.preventDefault();
    const problem = localProblem();
    setError(problem);
    if (problem) return;
    setBusy(true);
    const id = uid.trim();
    try {
      if (kind === 'push') {
        await api.post('/v1/admin/indexes', { uid: id, language_code: language.trim() });
      } else {
        const schema = Object.fromEntries(fields.map((f) => [f.name.trim(), f.multi ? { type: f.type, multi_valued: true } : { type: f.type }]));
        await api.post('/v1/content/indexes', { uid: id, language_code: language.trim(), schema: { fields: schema } });
      }
      setUid('');
      onCreated(id);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card" aria-labelledby="create-index-title" onSubmit={submit} noValidate>
      <h2 id="create-index-title">Create an index</h2>
      <fieldset>
        <legend>Kind</legend>
        <label class="index-choice">
          <input type="radio" name="index-kind" value="push" checked={kind === 'push'} onChange={() => setKind('push')} />
          Push index <span class="muted">(pages pushed through /v2: title, content, source_url, last_modified)</span>
        </label>
        <label class="index-choice">
          <input type="radio" name="index-kind" value="content" checked={kind === 'content'} onChange={() => setKind('content')} />
          Content index <span class="muted">(fields of your own, through /v1/content)</span>
        </label>
      </fieldset>
      <div class="row">
        <Field label="Index uid" id="index-uid" hint="1-64 letters, digits, hyphens or underscores">
          <input id="index-uid" required value={uid} autoComplete="off" spellcheck={false} aria-describedby="index-uid-hint" onInput={(e) => setUid(e.currentTarget.value)} />
        </Field>
        <Field label="Language" id="index-language" hint="ISO 639-1 code of the documents' language">
          <input id="index-language" list="index-languages" required value={language} size={6} aria-describedby="index-language-hint" onInput={(e) => setLanguage(e.currentTarget.value)} />
          <datalist id="index-languages">{LANGUAGES.map((l) => <option value={l} />)}</datalist>
        </Field>
      </div>
      {kind === 'content' && (
        <fieldset>
          <legend>Schema</legend>
          {fields.map((f, i) => (
            <fieldset class="index-field-row" key={f.key}>
              <legend>Field {i + 1}</legend>
              <div class="row">
                <div class="field">
                  <label for={`field-name-${f.key}`}>Name</label>
                  <input id={`field-name-${f.key}`} value={f.name} autoComplete="off" spellcheck={false} onInput={(e) => update(f.key, { name: e.currentTarget.value })} />
                </div>
                <div class="field">
                  <label for={`field-type-${f.key}`}>Type</label>
                  <select id={`field-type-${f.key}`} value={f.type} onChange={(e) => update(f.key, { type: e.currentTarget.value })}>
                    {FIELD_TYPES.map((t) => <option value={t}>{t}</option>)}
                  </select>
                </div>
                <label class="index-choice">
                  <input type="checkbox" checked={f.multi} onChange={(e) => update(f.key, { multi: e.currentTarget.checked })} />
                  Multi-valued
                </label>
                <button type="button" class="small" disabled={fields.length === 1} onClick={() => setFields((fs) => fs.filter((x) => x.key !== f.key))}>
                  Remove<span class="visually-hidden"> field {i + 1}</span>
                </button>
              </div>
            </fieldset>
          ))}
          <button type="button" class="small" onClick={() => setFields((fs) => [...fs, row()])}>Add field</button>
          <p class="muted">text and html fields are searched (html is stripped to text); string is matched exactly in filters; int, float, date and boolean are filtered by value.</p>
        </fieldset>
      )}
      {error && <p class="error" role="alert" id="create-index-error">{error}</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Creating…' : 'Create index'}</button>
      </div>
    </form>
  );
}
