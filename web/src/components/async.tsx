import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';

export interface Async<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `deps` change (and on `reload`), keeping the last data while reloading so a live
 * view does not flicker. `intervalMs` polls: how progress updates while a push runs.
 */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[], intervalMs?: number): Async<T> {
  const [state, setState] = useState<{ data?: T; error: string | null; loading: boolean }>({ error: null, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const ctrl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(ctrl.signal).then(
      (data) => !ctrl.signal.aborted && setState({ data, error: null, loading: false }),
      (err) => !ctrl.signal.aborted && (err as Error).name !== 'AbortError' && setState((s) => ({ ...s, error: messageOf(err), loading: false })),
    );
    return () => ctrl.abort();
  }, [...deps, tick]);
  useEffect(() => {
    if (!intervalMs) return;
    const t = setInterval(() => setTick((n) => n + 1), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs, ...deps]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return (err as Error)?.message || 'Something went wrong.';
}

/** Loading, error and empty states in one place, so no page is ever blank. */
export function AsyncView<T>(props: {
  state: Async<T>;
  label: string;
  isEmpty?: (data: T) => boolean;
  empty?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  const { data, error, loading } = props.state;
  return (
    <div aria-busy={loading ? 'true' : 'false'}>
      {error && <ErrorMessage message={error} onRetry={props.state.reload} />}
      {data === undefined && !error && <p class="muted" role="status">Loading {props.label}…</p>}
      {data !== undefined && (props.isEmpty?.(data) ? <div class="empty">{props.empty ?? `No ${props.label} yet.`}</div> : props.children(data))}
    </div>
  );
}

export function ErrorMessage({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div class="error" role="alert">
      <span>{message}</span>
      {onRetry && <button type="button" class="link" onClick={onRetry}>Try again</button>}
    </div>
  );
}
