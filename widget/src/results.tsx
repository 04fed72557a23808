import { useEffect, useState } from 'preact/hooks';
import { SupportLink } from './cited';
import { isAbort, type Client, type SearchResult } from './client';
import { useWidget } from './context';
import { cleanHtml } from './html';
import { safeUrl } from './options';
import { Problem } from './problem';

const DEBOUNCE_MS = 150;

// The last results per widget: the same query shown again (back from chat) is not searched (and counted) twice.
const last = new WeakMap<Client, { query: string; results: SearchResult[] }>();

/**
 * Results as the visitor types: each keystroke (after a short pause) cancels the search in flight and starts
 * its own; the last results stay, under a moving bar, until the new ones arrive.
 */
export function Results({ query }: { query: string }) {
  const { client, announce, options } = useWidget();
  const kept = () => (last.get(client)?.query === query ? last.get(client) : undefined);
  const [state, setState] = useState<{ query: string; results?: SearchResult[]; error?: unknown }>(() => kept() ?? { query: '' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const known = kept();
    if (known) {
      setState(known);
      return;
    }
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      client.json<{ results: SearchResult[] }>('search', { query, ...client.tracking() }, ctrl.signal).then((d) => {
        last.set(client, { query, results: d.results });
        setState({ query, results: d.results });
        announce(d.results.length ? `${d.results.length} results` : `No results for ${query}`);
      }, (error: unknown) => isAbort(error) || setState({ query, error }));
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [query, attempt]);

  const results = state.results;
  return (
    <section class="panel results" aria-label="Search results" aria-busy={state.query !== query ? 'true' : 'false'}>
      {state.error ? <Problem error={state.error} onRetry={() => setAttempt((n) => n + 1)} />
        : results?.length === 0 ? (
          <div class="empty">
            <p>No results for “{state.query}”. Try other words{options.supportUrl ? ' or contact support' : ''}.</p>
            <SupportLink href={options.supportUrl} />
          </div>
        ) : results && <ol>{results.map((r) => <Result r={r} />)}</ol>}
    </section>
  );
}

function Result({ r }: { r: SearchResult }) {
  const href = safeUrl(r.url);
  const content = <div class="content" dangerouslySetInnerHTML={{ __html: cleanHtml(r.content) }} />;
  if (r.type === 'instant_answer') {
    const cta = callToAction(r);
    return (
      <li class="result instant" data-feedback={r.feedback_data}>
        <span class="badge">Instant answer</span>
        {content}
        {cta ? <a class="cta" href={cta.href}>{cta.label}</a> : href && <a href={href}>Read more</a>}
      </li>
    );
  }
  return (
    <li class="result" data-feedback={r.feedback_data}>
      {href ? <a class="title" href={href}>{r.title}</a> : <span class="title">{r.title}</span>}
      {content}
    </li>
  );
}

/**
 * An instant answer's `configuration` is free-form; the widget understands a call-to-action as
 * `cta: "Label"` (leading to the answer's url) or `cta: {label, url}`.
 */
function callToAction(r: SearchResult): { label: string; href: string } | null {
  const cta = r.configuration?.cta;
  const spec = (typeof cta === 'object' && cta ? cta : { label: cta }) as { label?: unknown; url?: unknown };
  const href = safeUrl(typeof spec.url === 'string' ? spec.url : r.url);
  return typeof spec.label === 'string' && spec.label && href ? { label: spec.label, href } : null;
}
