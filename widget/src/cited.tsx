import type { Reference } from './client';
import { safeUrl } from './options';

/**
 * Answer text with its `[n]` markers as links to the references they name (a marker naming no reference, or one
 * without a url, stays text). Clicks on links carrying data-feedback are reported by the widget root.
 */
export function CitedText({ text, refs }: { text: string; refs: Reference[] }) {
  return (
    <div class="answer-text">
      {text.split(/\[(\d+)\]/).map((part, i) => {
        if (i % 2 === 0) return part;
        const ref = refs.find((r) => r.index === Number(part));
        const href = safeUrl(ref?.url);
        if (!ref || !href) return `[${part}]`;
        return <a class="cite" href={href} data-feedback={ref.feedback_data} aria-label={`Source ${part}: ${ref.title}`}>{part}</a>;
      })}
    </div>
  );
}

export function References({ refs }: { refs: Reference[] }) {
  if (refs.length === 0) return null;
  return (
    <ol class="refs" aria-label="References">
      {refs.map((r) => {
        const href = safeUrl(r.url);
        return <li value={r.index}>{href ? <a href={href} data-feedback={r.feedback_data}>{r.title}</a> : r.title}</li>;
      })}
    </ol>
  );
}

/** The site's own support link; following it sends the support-forward notice first (see widget.tsx). */
export function SupportLink({ href }: { href: string | null }) {
  return href ? <a class="support" href={href} data-support="">Contact support</a> : null;
}
