import { useEffect } from 'preact/hooks';
import { WidgetError } from './client';
import { useWidget } from './context';

const logged = new Set<string>();

/**
 * A failure shown inside the widget, with what the visitor (or, for a refused origin, the site owner: also on
 * the console, once) can do about it. The host page is never affected.
 */
export function Problem({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { refused } = useWidget();
  const e = error instanceof WidgetError ? error : new WidgetError('server', 'Something went wrong. Try again.');
  useEffect(() => {
    if (e.kind === 'origin') refused(e);
    const line = e.kind === 'origin' ? e.message : error instanceof WidgetError ? null : String(error);
    if (line && !logged.has(line)) {
      logged.add(line);
      console.error(`quarry-search: ${line}`);
    }
  }, [e.message]);
  return (
    <div class="problem" role="alert" data-kind={e.kind}>
      <span>{e.message}</span>
      {onRetry && e.kind !== 'origin' && <button type="button" onClick={onRetry}>Try again</button>}
    </div>
  );
}
