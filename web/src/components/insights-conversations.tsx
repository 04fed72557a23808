import { useEffect, useRef, useState } from 'preact/hooks';
import { api, qs, seg } from '../api';
import { AsyncView, ErrorMessage, messageOf, useAsync } from './async';
import { configPath } from './config-common';
import { formatDate } from './controls';
import { rangeParams, type DayRange } from './insights-range';
import { DataTable } from './table';

interface ConversationRow {
  id: string;
  url: string | null;
  updated_at: string;
  turns: number;
}
interface ConversationPage {
  conversations: ConversationRow[];
  next_cursor: string | null;
}
/** Pages after the first that "Show more" added, and where the next one starts. */
interface More {
  rows: ConversationRow[];
  cursor: string | null;
}
interface Transcript {
  id: string;
  turns: { question: string; reply: string; references: { title: string; url?: string | null }[]; at: string }[];
}

/**
 * Conversations with a turn in the range, a page of 1000 at a time ("Show more" adds the next: a range can hold
 * many more than a browser wants at once); opening one shows its transcript (plain text: JSX escapes it).
 */
export function InsightsConversations({ uid, range, csvSuffix }: { uid: string; range: DayRange; csvSuffix: string }) {
  const page = (cursor: string | null, signal?: AbortSignal) => {
    const { from, to } = rangeParams(range);
    return api.get<ConversationPage>(`${configPath(uid)}/conversations${qs({ from, to, cursor })}`, signal);
  };
  const list = useAsync((signal) => page(null, signal), [uid, range.from, range.to]);
  const [open, setOpen] = useState<string | null>(null);
  const [more, setMore] = useState<More | null>(null);
  const [loading, setLoading] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  useEffect(() => {
    setOpen(null);
    setMore(null);
    setMoreError(null);
  }, [uid, range.from, range.to]);

  async function showMore(cursor: string) {
    setLoading(true);
    setMoreError(null);
    try {
      const next = await page(cursor);
      setMore((m) => ({ rows: [...(m?.rows ?? []), ...next.conversations], cursor: next.next_cursor }));
    } catch (err) {
      setMoreError(messageOf(err));
    } finally {
      setLoading(false);
    }
  }
  return (
    <section aria-labelledby="insights-conversations">
      <h2 id="insights-conversations">Conversations</h2>
      <AsyncView state={list} label="conversations">
        {(d) => {
          const cursor = more ? more.cursor : d.next_cursor;
          return (
            <>
              <DataTable
                caption="Conversations"
                rowKey={(c) => c.id}
                rows={more ? [...d.conversations, ...more.rows] : d.conversations}
                csvName={`conversations-${csvSuffix}.csv`}
                empty="No conversations in this range."
                columns={[
                  { label: 'Last turn', render: (c) => formatDate(c.updated_at), csv: (c) => c.updated_at },
                  { label: 'Turns', numeric: true, csv: (c) => c.turns },
                  { label: 'Top reference', render: (c) => (c.url ? <span class="break">{c.url}</span> : '—'), csv: (c) => c.url },
                  { label: 'Id', render: (c) => <span class="mono small-text">{c.id}</span>, csv: (c) => c.id },
                  {
                    label: 'Transcript',
                    render: (c) => (
                      <button type="button" class="small" aria-label={`Open transcript of conversation ${c.id}`} aria-expanded={open === c.id} onClick={() => setOpen(open === c.id ? null : c.id)}>
                        {open === c.id ? 'Close' : 'Open'}
                      </button>
                    ),
                  },
                ]}
              />
              {moreError && <ErrorMessage message={moreError} onRetry={cursor ? () => void showMore(cursor) : undefined} />}
              {cursor && (
                <button type="button" disabled={loading} aria-busy={loading} onClick={() => void showMore(cursor)}>
                  {loading ? 'Loading more conversations…' : 'Show more conversations'}
                </button>
              )}
            </>
          );
        }}
      </AsyncView>
      {open && <TranscriptView uid={uid} id={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

function TranscriptView({ uid, id, onClose }: { uid: string; id: string; onClose: () => void }) {
  const t = useAsync((signal) => api.get<Transcript>(`${configPath(uid)}/conversations/${seg(id)}`, signal), [uid, id]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [id]);
  return (
    <div class="card transcript">
      <div class="section-head">
        <h3 tabIndex={-1} ref={heading}>Transcript <span class="mono small-text">{id}</span></h3>
        <button type="button" class="small" onClick={onClose}>Close transcript</button>
      </div>
      <AsyncView state={t} label="the transcript" isEmpty={(d) => d.turns.length === 0} empty="This conversation has no turns.">
        {(d) => (
          <ol class="chat plain">
            {d.turns.map((turn) => (
              <li class="turn">
                <p class="question"><span class="visually-hidden">Question: </span>{turn.question}</p>
                <div class="reply">
                  <p class="muted small-text">{formatDate(turn.at)}</p>
                  <p class="pre-line">{turn.reply}</p>
                  {turn.references.length > 0 && (
                    <ol class="refs" aria-label="References">
                      {turn.references.map((r) => <li>{r.url ? <a href={r.url} target="_blank" rel="noopener noreferrer">{r.title}</a> : r.title}</li>)}
                    </ol>
                  )}
                </div>
              </li>
            ))}
          </ol>
        )}
      </AsyncView>
    </div>
  );
}
