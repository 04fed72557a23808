import { useRef, useState } from 'preact/hooks';
import { qs } from '../api';
import { ErrorMessage, messageOf } from './async';
import type { Configuration } from './config-common';
import { Field } from './controls';

interface Reference {
  index: number;
  title: string;
  url?: string;
}
interface SearchResult {
  type: 'paragraph' | 'instant_answer';
  title?: string;
  url?: string;
  content: string;
}
interface Summary {
  status: 'success' | 'no-relevant-results';
  summary: string;
  references: Reference[];
}
interface ChatReply {
  status: 'success' | 'no-relevant-results';
  reply: string;
  conversation_id: string;
  follow_up_questions: { question: string }[];
  references: Reference[];
}

/** What a widget shows while a generated answer is on its way (SPEC: clients show a placeholder until it arrives). */
export const ANSWER_PLACEHOLDER = 'Thinking about your question…';

/**
 * The text of server HTML (escaped paragraphs, summaries) without rendering it: a parsed, inert document runs
 * nothing and loads nothing; the line-break placeholders become line breaks.
 */
function htmlText(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('span.line-break').forEach((s) => s.replaceWith('\n'));
  doc.querySelectorAll('p').forEach((p) => p.append('\n\n'));
  return (doc.body.textContent ?? '').trim();
}

async function publicError(res: Response): Promise<Error> {
  const body = (await res.json().catch(() => null)) as { message?: string } | null;
  return new Error(body?.message ?? `The server answered ${res.status}`);
}

/**
 * Calls a summary or chat route asking for server-sent events: `delta` text as it is generated, then `done` with
 * the whole response (or `error`). Same-origin, no cookie needed: the public routes take no credentials.
 */
async function streamAnswer<T>(url: string, init: RequestInit, onDelta: (text: string) => void, signal: AbortSignal): Promise<T> {
  const res = await fetch(url, { ...init, signal, credentials: 'omit', headers: { ...(init.headers as Record<string, string>), accept: 'text/event-stream' } });
  if (!res.ok) throw await publicError(res);
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return (await res.json()) as T;
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      if (!event || !data) continue;
      const payload = JSON.parse(data) as unknown;
      if (event === 'delta') onDelta((payload as { text: string }).text);
      if (event === 'error') throw new Error((payload as { message: string }).message);
      if (event === 'done') return payload as T;
    }
  }
  throw new Error('The answer stream ended before the answer was complete.');
}

function References({ refs }: { refs: Reference[] }) {
  if (refs.length === 0) return null;
  return (
    <ol class="refs" aria-label="References">
      {refs.map((r) => (
        <li value={r.index}>{r.url ? <a href={r.url} target="_blank" rel="noopener noreferrer">{r.title}</a> : r.title}</li>
      ))}
    </ol>
  );
}

/**
 * Try it: search, summary and chat as a widget would call them, all with preview=true (nothing recorded in
 * insights, no statistics, no stored conversation).
 */
export function ConfigTry({ config }: { config: Configuration }) {
  const base = `/v1/${config.variant}`;
  // One session per visit of the tab, as a widget would keep one per visitor.
  const session = useRef(`try-${crypto.randomUUID()}`).current;
  const [query, setQuery] = useState('');
  const [asked, setAsked] = useState('');
  const [search, setSearch] = useState<{ results?: SearchResult[]; error?: string; loading?: boolean }>({});
  const [summary, setSummary] = useState<{ partial: string; result?: Summary; error?: string; loading?: boolean }>({ partial: '' });
  const running = useRef<AbortController | null>(null);

  const run = async (q: string) => {
    running.current?.abort();
    const ctrl = new AbortController();
    running.current = ctrl;
    setAsked(q);
    setSearch({ loading: true });
    setSummary({ partial: '', loading: true });
    const searchUrl = `${base}/search${qs({ uid: config.uid, query: q, 'session-id': session, preview: true })}`;
    fetch(searchUrl, { signal: ctrl.signal, credentials: 'omit', headers: { accept: 'application/json' } })
      .then(async (res) => (res.ok ? ((await res.json()) as { results: SearchResult[] }) : Promise.reject(await publicError(res))))
      .then((d) => !ctrl.signal.aborted && setSearch({ results: d.results }), (err) => !ctrl.signal.aborted && setSearch({ error: messageOf(err) }));
    // GET: a same-origin GET carries no Origin header, so the configuration's allowed origins do not apply.
    const summaryUrl = `${base}/summary${qs({ uid: config.uid, query: q, 'session-id': session, preview: true })}`;
    try {
      const result = await streamAnswer<Summary>(summaryUrl, {}, (t) => !ctrl.signal.aborted && setSummary((s) => ({ ...s, partial: s.partial + t })), ctrl.signal);
      if (!ctrl.signal.aborted) setSummary({ partial: '', result });
    } catch (err) {
      if (!ctrl.signal.aborted) setSummary({ partial: '', error: messageOf(err) });
    }
  };

  return (
    <>
      <h2>Try it</h2>
      <p class="muted">Runs as a preview: nothing you try here is recorded in insights, autocomplete or click statistics.</p>
      <form
        class="card"
        role="search"
        aria-label="Try a search"
        onSubmit={(e) => {
          e.preventDefault();
          if (query.trim()) void run(query.trim());
        }}
      >
        <div class="row wide">
          <Field label="Query" id="try-query">
            <input id="try-query" type="search" maxLength={500} required value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
          </Field>
          <button type="submit" class="primary">Search</button>
        </div>
      </form>
      {asked && (
        <div class="grid2">
          <section aria-labelledby="try-summary-title" aria-busy={summary.loading ? 'true' : 'false'}>
            <h3 id="try-summary-title">Summary</h3>
            <div class="card" role="status" aria-live="polite">
              {summary.loading && !summary.partial && <p class="placeholder">{ANSWER_PLACEHOLDER}</p>}
              {summary.loading && summary.partial && <p class="pre-line">{summary.partial}</p>}
              {summary.error && <ErrorMessage message={summary.error} />}
              {summary.result && (
                <>
                  {summary.result.status === 'no-relevant-results' && <span class="badge warn">No relevant results</span>}
                  <p class="pre-line">{htmlText(summary.result.summary)}</p>
                  <References refs={summary.result.references} />
                </>
              )}
            </div>
          </section>
          <section aria-labelledby="try-results-title" aria-busy={search.loading ? 'true' : 'false'}>
            <h3 id="try-results-title">Results for “{asked}”</h3>
            {search.loading && <p class="muted" role="status">Searching…</p>}
            {search.error && <ErrorMessage message={search.error} />}
            {search.results?.length === 0 && <div class="empty">No results.</div>}
            {search.results && search.results.length > 0 && (
              <ol class="results">
                {search.results.map((r) => (
                  <li class="card">
                    {r.type === 'instant_answer' && <span class="badge ok">Instant answer</span>}{' '}
                    {r.title && (r.url ? <a href={r.url} target="_blank" rel="noopener noreferrer">{r.title}</a> : <strong>{r.title}</strong>)}
                    {r.url && <div class="muted small-text break">{r.url}</div>}
                    <p class="pre-line clamp">{htmlText(r.content)}</p>
                  </li>
                ))}
              </ol>
            )}
          </section>
        </div>
      )}
      <TryChat config={config} session={session} />
    </>
  );
}

interface Turn {
  question: string;
  reply?: ChatReply;
  partial: string;
  error?: string;
}

function TryChat({ config, session }: { config: Configuration; session: string }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const conversation = [...turns].reverse().find((t) => t.reply)?.reply?.conversation_id;
  const update = (i: number, f: (t: Turn) => Turn) => setTurns((ts) => ts.map((t, j) => (j === i ? f(t) : t)));

  const ask = async (question: string) => {
    const i = turns.length;
    setTurns([...turns, { question, partial: '' }]);
    setBusy(true);
    try {
      const reply = await streamAnswer<ChatReply>(
        `/v1/${config.variant}/chat`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ uid: config.uid, query: question, 'session-id': session, preview: true, ...(conversation ? { 'conversation-id': conversation } : {}) }),
        },
        (text) => update(i, (t) => ({ ...t, partial: t.partial + text })),
        new AbortController().signal,
      );
      update(i, (t) => ({ ...t, reply, partial: '' }));
    } catch (err) {
      update(i, (t) => ({ ...t, error: messageOf(err), partial: '' }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="try-chat-title">
      <div class="section-head">
        <h3 id="try-chat-title">Chat</h3>
        {turns.length > 0 && <button type="button" class="small" disabled={busy} onClick={() => setTurns([])}>New conversation</button>}
      </div>
      <p class="muted">
        Follow-up questions continue the conversation by its id. Preview conversations are kept only in the server's memory
        for 30 minutes and never stored or counted in insights.
      </p>
      <div class="chat" role="log" aria-label="Chat conversation" aria-live="polite">
        {turns.map((t) => (
          <div class="turn">
            <p class="question"><span class="visually-hidden">You asked: </span>{t.question}</p>
            <div class="reply">
              {!t.reply && !t.error && !t.partial && <p class="placeholder">{ANSWER_PLACEHOLDER}</p>}
              {t.partial && <p class="pre-line">{t.partial}</p>}
              {t.error && <ErrorMessage message={t.error} />}
              {t.reply && (
                <>
                  {t.reply.status === 'no-relevant-results' && <span class="badge warn">No relevant results</span>}
                  <p class="pre-line">{htmlText(t.reply.reply)}</p>
                  <References refs={t.reply.references} />
                  {t.reply.follow_up_questions.length > 0 && (
                    <div class="follow-ups">
                      <span class="muted">Follow-up questions:</span>
                      {t.reply.follow_up_questions.map((f) => (
                        <button type="button" class="small" disabled={busy} onClick={() => void ask(f.question)}>{f.question}</button>
                      ))}
                    </div>
                  )}
                </>
              )}
            </div>
          </div>
        ))}
      </div>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          const q = draft.trim();
          if (!q || busy) return;
          setDraft('');
          void ask(q);
        }}
      >
        <div class="row wide">
          <Field label="Message" id="try-chat-message">
            <input id="try-chat-message" maxLength={500} required value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
          </Field>
          <button type="submit" class="primary" disabled={busy}>Send</button>
        </div>
        {conversation && <p class="muted small-text">Conversation id <span class="mono">{conversation}</span></p>}
      </form>
    </section>
  );
}
