import { useEffect, useRef, useState } from 'preact/hooks';
import { api, seg } from '../api';
import { AsyncView, ErrorMessage, messageOf, useAsync } from './async';
import { configPath, type Configuration } from './config-common';
import { ConfirmDialog, Field, formatDate } from './controls';
import { DataTable } from './table';
import { useLocation } from '../router';

interface InstantAnswer {
  id: string;
  title: string;
  /** Sanitized by the server when saved (shared/configurations/sanitize-answer-html.ts). */
  content: string;
  url: string | null;
  keywords: string[];
  configuration: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

interface Draft {
  title: string;
  content: string;
  url: string;
  keywords: string;
  configuration: string;
}

const toDraft = (a: InstantAnswer): Draft => ({
  title: a.title, content: a.content, url: a.url ?? '', keywords: a.keywords.join('\n'),
  configuration: a.configuration ? JSON.stringify(a.configuration, null, 2) : '',
});

/** The configuration object must be a JSON object (or nothing); the message says where parsing failed. */
function parseConfiguration(text: string): { value: Record<string, unknown> | null; error: string | null } {
  if (!text.trim()) return { value: null, error: null };
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { value: null, error: 'Must be a JSON object, like {"cta": "Contact us"}.' };
    return { value: value as Record<string, unknown>, error: null };
  } catch (err) {
    return { value: null, error: `Not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * Instant answers: list, add, edit, delete. The preview shows the answer's content as the server sanitized it
 * when saved: there is no route that sanitizes unsaved input, and a second sanitizer in the browser could
 * disagree with the server's, so unsaved edits are not rendered as HTML.
 */
export function ConfigInstantAnswers({ config }: { config: Configuration }) {
  const base = `${configPath(config.uid)}/instant-answers`;
  const list = useAsync((signal) => api.all<{ instant_answers: InstantAnswer[] }>(base, 'instant_answers', signal), [config.uid]);
  const { query } = useLocation();
  const prefill = query.get('query')?.trim() ?? '';
  // The open editor: a new answer (null) or a saved one; `n` makes each opening a fresh editor.
  const [editor, setEditor] = useState<{ answer: InstantAnswer | null; n: number } | null>(prefill ? { answer: null, n: 0 } : null);
  const open = (answer: InstantAnswer | null) => {
    setStatus(null);
    setEditor((e) => ({ answer, n: (e?.n ?? 0) + 1 }));
  };
  const [deleting, setDeleting] = useState<InstantAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  useEffect(() => {
    if (prefill && editor?.answer !== null) open(null);
  }, [prefill]);

  return (
    <>
      <div class="section-head">
        <h2>Instant answers</h2>
        <button type="button" class="primary" onClick={() => open(null)}>New instant answer</button>
      </div>
      <p class="muted">Shown first when a query contains all the words of one of its keywords or of its title.</p>
      <div role="status" class="success">{status}</div>
      {error && <ErrorMessage message={error} />}
      {editor && (
        <AnswerEditor
          key={editor.n}
          base={base}
          answer={editor.answer}
          prefill={prefill}
          onSaved={(a, created) => {
            setStatus(created ? `Created “${a.title}”.` : `Saved “${a.title}”.`);
            list.reload();
          }}
          onClose={() => setEditor(null)}
        />
      )}
      <AsyncView state={list} label="instant answers" isEmpty={(d) => d.instant_answers.length === 0} empty="No instant answers yet.">
        {(d) => (
          <DataTable
            caption="Instant answers"
            rowKey={(a) => a.id}
            rows={d.instant_answers}
            csvName={`instant-answers-${config.uid}.csv`}
            columns={[
              { label: 'Title', csv: (a) => a.title },
              { label: 'Keywords', csv: (a) => a.keywords.join('; ') },
              { label: 'URL', render: (a) => (a.url ? <span class="break">{a.url}</span> : '—'), csv: (a) => a.url },
              { label: 'Updated', render: (a) => formatDate(a.updated_at), csv: (a) => a.updated_at },
              {
                label: 'Actions',
                render: (a) => (
                  <span class="item-actions">
                    <button type="button" class="small" aria-label={`Edit ${a.title}`} onClick={() => open(a)}>Edit</button>
                    <button type="button" class="small" aria-label={`Delete ${a.title}`} onClick={() => setDeleting(a)}>Delete</button>
                  </span>
                ),
              },
            ]}
          />
        )}
      </AsyncView>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete instant answer"
        confirmLabel="Delete"
        onCancel={() => setDeleting(null)}
        onConfirm={async () => {
          const a = deleting!;
          setDeleting(null);
          setError(null);
          try {
            await api.delete(`${base}/${seg(a.id)}`);
            if (editor?.answer?.id === a.id) setEditor(null);
            setStatus(`Deleted “${a.title}”.`);
            list.reload();
          } catch (err) {
            setError(messageOf(err));
          }
        }}
      >
        <p>Delete the instant answer “{deleting?.title}”?</p>
      </ConfirmDialog>
    </>
  );
}

function AnswerEditor(props: { base: string; answer: InstantAnswer | null; prefill: string; onSaved: (a: InstantAnswer, created: boolean) => void; onClose: () => void }) {
  const [saved, setSaved] = useState(props.answer);
  const [d, setD] = useState<Draft>(() => (saved ? toDraft(saved) : { title: props.prefill, content: '', url: '', keywords: props.prefill, configuration: '' }));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const parsed = parseConfiguration(d.configuration);
  const set = (k: keyof Draft) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => setD({ ...d, [k]: e.currentTarget.value });
  const unsaved = !saved || JSON.stringify(toDraft(saved)) !== JSON.stringify(d);

  return (
    <div class="card answer-editor">
      <h3 tabIndex={-1} ref={heading}>{saved ? `Edit “${saved.title}”` : 'New instant answer'}</h3>
      <div class="grid2">
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (parsed.error) return;
            setBusy(true);
            setError(null);
            const body = {
              title: d.title, content: d.content, url: d.url.trim() || null,
              keywords: d.keywords.split('\n').map((k) => k.trim()).filter(Boolean), configuration: parsed.value,
            };
            try {
              const a = saved ? await api.patch<InstantAnswer>(`${props.base}/${seg(saved.id)}`, body) : await api.post<InstantAnswer>(props.base, body);
              // The draft becomes what was stored, so the author sees what the sanitizer removed.
              setSaved(a);
              setD(toDraft(a));
              props.onSaved(a, !saved);
            } catch (err) {
              setError(messageOf(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          <Field label="Title" id="ia-title">
            <input id="ia-title" required maxLength={500} value={d.title} onInput={set('title')} />
          </Field>
          <Field label="Content (HTML)" id="ia-content" hint="Scripts, event handlers, styles, iframes and unsafe links are removed when saved.">
            <textarea id="ia-content" rows={8} required spellcheck={false} aria-describedby="ia-content-hint" value={d.content} onInput={set('content')} />
          </Field>
          <Field label="Keywords" id="ia-keywords" hint="One per line; the answer shows when a query contains all the words of one of them.">
            <textarea id="ia-keywords" rows={3} aria-describedby="ia-keywords-hint" value={d.keywords} onInput={set('keywords')} />
          </Field>
          <Field label="URL" id="ia-url" hint="Optional absolute http(s) link for “read more”.">
            <input id="ia-url" type="url" aria-describedby="ia-url-hint" value={d.url} onInput={set('url')} />
          </Field>
          <Field label="Configuration object (JSON)" id="ia-config" hint="Optional; returned with the result, e.g. call-to-action settings." error={parsed.error}>
            <textarea
              id="ia-config"
              rows={4}
              spellcheck={false}
              class="mono"
              aria-invalid={parsed.error ? 'true' : undefined}
              aria-describedby={parsed.error ? 'ia-config-hint ia-config-error' : 'ia-config-hint'}
              value={d.configuration}
              onInput={set('configuration')}
            />
          </Field>
          {error && <p class="error" role="alert">{error}</p>}
          <div class="actions">
            <button type="button" onClick={props.onClose}>Close editor</button>
            <button type="submit" class="primary" disabled={busy || parsed.error !== null}>{busy ? 'Saving…' : saved ? 'Save instant answer' : 'Create instant answer'}</button>
          </div>
        </form>
        <section aria-labelledby="ia-preview-title">
          <h4 id="ia-preview-title">Preview (sanitized, as saved)</h4>
          {unsaved && <p class="notice" role="status">{saved ? 'You have unsaved changes: the preview updates when saved.' : 'The preview appears when saved.'}</p>}
          {saved && (
            <div class="preview" data-testid="instant-answer-preview">
              <strong>{saved.title}</strong>
              {/* The only HTML from data the app renders: the content the server sanitized when it was saved. */}
              <div class="preview-body" dangerouslySetInnerHTML={{ __html: saved.content }} />
              {saved.url && <p class="muted break">{saved.url}</p>}
            </div>
          )}
        </section>
      </div>
    </div>
  );
}
