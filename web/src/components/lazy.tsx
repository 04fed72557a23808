import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage, messageOf } from './async';

/** A page loaded on first visit, so the first download holds only the shell (charts come with insights). */
export function lazyPage<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function LazyPage(props: P) {
    const [Page, setPage] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (loaded) return;
      load().then((m) => setPage(() => (loaded = m.default)), (err) => setError(`This page failed to load: ${messageOf(err)}. Reload to try again.`));
    }, []);
    if (error) return <ErrorMessage message={error} onRetry={() => location.reload()} />;
    if (!Page) return <p class="muted" role="status">Loading…</p>;
    return <Page {...props} />;
  };
}
