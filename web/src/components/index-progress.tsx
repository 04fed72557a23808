import { useEffect, useState } from 'preact/hooks';
import { useAsync, type Async } from './async';
import { formatDate } from './controls';
import { isBusy, type IndexProgress } from './index-types';

/** Pending, indexed and failed counts with the last error, as figures (index page) or one line (index list). */
export function ProgressFigures({ progress, compact = false }: { progress: IndexProgress; compact?: boolean }) {
  const pending = progress.pending + progress.pending_deletes;
  const figures: [string, number, string?][] = [
    ['Documents', progress.documents],
    ['Indexed', progress.indexed],
    ['Pending', pending, pending > 0 ? 'warn' : undefined],
    ['Failed', progress.failed, progress.failed > 0 ? 'bad' : undefined],
  ];
  if (compact) {
    return (
      <span class="index-progress-line">
        {pending > 0 && <span class="badge warn">{pending} pending</span>}
        {progress.failed > 0 && <span class="badge bad">{progress.failed} failed</span>}
        {pending === 0 && progress.failed === 0 && <span class="badge ok">up to date</span>}
      </span>
    );
  }
  return (
    <div>
      <dl class="kpis index-kpis">
        {figures.map(([label, value, tone]) => (
          <div class={`kpi${tone ? ` ${tone}` : ''}`}>
            <dt class="label">{label}</dt>
            <dd class="value">{value.toLocaleString()}</dd>
          </div>
        ))}
      </dl>
      {progress.pending_deletes > 0 && <p class="muted">{progress.pending_deletes.toLocaleString()} of the pending are deletes.</p>}
      <LastError progress={progress} />
      <p class="muted" role="status">{isBusy(progress) ? 'Indexing: figures refresh every 2 seconds.' : 'Nothing pending.'}</p>
    </div>
  );
}

export function LastError({ progress }: { progress: IndexProgress }) {
  const e = progress.last_error;
  if (!e) return null;
  return (
    <div class="index-last-error">
      <strong>Last error</strong> ({formatDate(e.at)}), document <code>{e.uid}</code>: <span>{e.message}</span>
    </div>
  );
}

/**
 * Loads and keeps polling: every 2 s while `busy(data)` (a push is being indexed), every 5 s otherwise so
 * a push that starts while the page is open shows up.
 */
export function useLiveAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[], busy: (data: T) => boolean): Async<T> {
  const [live, setLive] = useState(false);
  const state = useAsync(load, deps, live ? 2000 : 5000);
  useEffect(() => setLive(state.data !== undefined && busy(state.data)), [state.data]);
  return state;
}
