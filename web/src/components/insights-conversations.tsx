import { useEffect, useRef, useState } from 'preact/hooks';
import { api, qs, seg } from '../api';
import { AsyncView, useAsync } from './async';
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
interface Transcript {
  id: string;
  turns: { question: string; reply: string; references: { title: string; url?: string | null }[]; at: string }[];
}

/** Conversations with a turn in the range; opening one shows its transcript (plain text: JSX escapes it). */
export function InsightsConversations({ uid, range, csvSuffix }: { uid: string; range: DayRange; csvSuffix: string }) {
  const list = useAsync(
    (signal) => {
      const { from, to } = rangeParams(range);
      return api.get<{ conversations: ConversationRow[] }>(`${configPath(uid)}/conversations${qs({ from, to })}`, signal);
    },
    [uid, range.from, range.to],
  );
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => setOpen(null), [uid, range.from, range.to]);
  return (
    <section aria-labelledby="insights-conversations">
      <h2 id="insights-conversations">Conversations</h2>
      <AsyncView state={list} label="conversations">
        {(d) => (
          <DataTable
            caption="Conversations"
            rowKey={(c) => c.id}
            rows={d.conversations}
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
        )}
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
