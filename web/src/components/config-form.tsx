import { useState } from 'preact/hooks';
import { api } from '../api';
import { AsyncView, messageOf, useAsync } from './async';
import { Field, FormFooter } from './controls';
import { href } from '../router';
import type { Configuration } from './config-common';

interface IndexRow {
  uid: string;
  progress?: { indexed?: number };
}

/** What the form edits: every setting of a configuration, as the create and update routes take them. */
export type ConfigSettings = Pick<Configuration,
  'name' | 'indexes' | 'result_count' | 'allowed_origins' | 'autocomplete_min_queries' | 'autocomplete_min_sessions' | 'fusion' | 'keyword_weight'> & { variant: Configuration['variant'] };

export const NEW_CONFIG: ConfigSettings = {
  variant: 'ui', name: '', indexes: [], result_count: 10, allowed_origins: ['*'],
  autocomplete_min_queries: 20, autocomplete_min_sessions: 3, fusion: 'weighted', keyword_weight: 0.85,
};

const lines = (s: string) => s.split('\n').map((l) => l.trim()).filter(Boolean);

/**
 * The settings of a configuration, for creating one (variant can be chosen) and editing one (variant is fixed:
 * the uid is addressed under its variant's routes). The server validates; its 400 message is shown here.
 */
export function ConfigForm(props: { initial: ConfigSettings; mode: 'create' | 'edit'; submitLabel: string; onSubmit: (body: Record<string, unknown>) => Promise<void> }) {
  const [v, setV] = useState(props.initial);
  const [origins, setOrigins] = useState(props.initial.allowed_origins.join('\n'));
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const indexes = useAsync((signal) => api.all<{ indexes: IndexRow[] }>('/v1/admin/indexes', 'indexes', signal), []);
  const set = <K extends keyof ConfigSettings>(k: K, value: ConfigSettings[K]) => {
    setSaved(false);
    setV((old) => ({ ...old, [k]: value }));
  };
  const id = (name: string) => `config-${props.mode}-${name}`;
  const num = (s: string) => (s.trim() === '' ? Number.NaN : Number(s));

  return (
    <form
      class="card"
      aria-describedby={error ? id('error') : undefined}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setSaved(false);
        const { variant, ...settings } = v;
        try {
          await props.onSubmit({ ...(props.mode === 'create' ? { variant } : {}), ...settings, allowed_origins: lines(origins) });
          setSaved(true);
        } catch (err) {
          setError(messageOf(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.mode === 'create' && (
        <fieldset>
          <legend>Variant</legend>
          <label class="choice"><input type="radio" name={id('variant')} checked={v.variant === 'ui'} onChange={() => set('variant', 'ui')} /> API UI <span class="muted">(a search box and answers for a website)</span></label>
          <label class="choice"><input type="radio" name={id('variant')} checked={v.variant === 'tool'} onChange={() => set('variant', 'tool')} /> API Tool <span class="muted">(search over sources, for tools and agents)</span></label>
        </fieldset>
      )}
      <Field label="Name" id={id('name')}>
        <input id={id('name')} required maxLength={200} value={v.name} onInput={(e) => set('name', e.currentTarget.value)} />
      </Field>
      <fieldset>
        <legend>Indexes to search</legend>
        <AsyncView state={indexes} label="indexes" isEmpty={(d) => d.indexes.length === 0} empty={<span>No indexes yet. <a href={href('/indexes')}>Create an index</a> first.</span>}>
          {(d) => (
            <div class="checks">
              {d.indexes.map((i) => (
                <label class="choice">
                  <input
                    type="checkbox"
                    checked={v.indexes.includes(i.uid)}
                    onChange={(e) => set('indexes', e.currentTarget.checked ? [...v.indexes, i.uid] : v.indexes.filter((x) => x !== i.uid))}
                  />{' '}
                  <span class="mono">{i.uid}</span>
                  {i.progress?.indexed !== undefined && <span class="muted"> ({i.progress.indexed} indexed)</span>}
                </label>
              ))}
            </div>
          )}
        </AsyncView>
      </fieldset>
      <div class="row spaced">
        <Field label="Number of results" id={id('result-count')} hint="1 to 50">
          <input id={id('result-count')} aria-describedby={`${id('result-count')}-hint`} type="number" min={1} max={50} step={1} required value={Number.isNaN(v.result_count) ? '' : v.result_count} onInput={(e) => set('result_count', num(e.currentTarget.value))} />
        </Field>
        <Field label="Autocomplete minimum searches" id={id('ac-queries')} hint="Searches recorded before autocomplete answers">
          <input id={id('ac-queries')} aria-describedby={`${id('ac-queries')}-hint`} type="number" min={0} step={1} required value={Number.isNaN(v.autocomplete_min_queries) ? '' : v.autocomplete_min_queries} onInput={(e) => set('autocomplete_min_queries', num(e.currentTarget.value))} />
        </Field>
        <Field label="Autocomplete minimum sessions" id={id('ac-sessions')} hint="Distinct sessions that asked a query before it is suggested">
          <input id={id('ac-sessions')} aria-describedby={`${id('ac-sessions')}-hint`} type="number" min={1} max={1000} step={1} required value={Number.isNaN(v.autocomplete_min_sessions) ? '' : v.autocomplete_min_sessions} onInput={(e) => set('autocomplete_min_sessions', num(e.currentTarget.value))} />
        </Field>
      </div>
      <Field label="Allowed origins" id={id('origins')} hint="One per line: * allows any site; https://example.com or https://*.example.com (scheme and host, no path)">
        <textarea id={id('origins')} rows={3} spellcheck={false} aria-describedby={id('origins-hint')} value={origins} onInput={(e) => { setSaved(false); setOrigins(e.currentTarget.value); }} />
      </Field>
      <fieldset>
        <legend>Fusion of keyword and vector rankings</legend>
        <div class="row">
          <Field label="Fusion" id={id('fusion')}>
            <select id={id('fusion')} value={v.fusion} onChange={(e) => set('fusion', e.currentTarget.value as ConfigSettings['fusion'])}>
              <option value="weighted">Weighted (normalised scores)</option>
              <option value="rrf">Reciprocal rank fusion</option>
            </select>
          </Field>
          <Field label="Keyword weight" id={id('keyword-weight')} hint="0 to 1; the vector ranking gets the rest (default 0.85)">
            <input id={id('keyword-weight')} aria-describedby={`${id('keyword-weight')}-hint`} type="number" min={0} max={1} step={0.01} required value={Number.isNaN(v.keyword_weight) ? '' : v.keyword_weight} onInput={(e) => set('keyword_weight', num(e.currentTarget.value))} />
          </Field>
        </div>
      </fieldset>
      <FormFooter errorId={id('error')} error={error} saved={saved && (props.mode === 'create' ? 'Created.' : 'Saved.')} busy={busy} submitLabel={props.submitLabel} />
    </form>
  );
}
