import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useWidget } from './context';

const DEBOUNCE_MS = 100;

/** Both variants' autocomplete shapes: Tool strings or null, UI {suggestion} objects. */
function suggestionsOf(body: { suggestions?: unknown }): string[] {
  const list = Array.isArray(body?.suggestions) ? (body.suggestions as unknown[]) : [];
  return list.map((s) => (typeof s === 'string' ? s : (s as { suggestion?: unknown })?.suggestion)).filter((s): s is string => typeof s === 'string');
}

/**
 * The search box: a WAI-ARIA 1.2 combobox with a listbox of autocomplete suggestions. Focus stays in the input;
 * the highlighted option is aria-activedescendant. Autocomplete failures (the Tool variant's 409 before enough
 * queries exist, anything else) just mean no suggestions.
 */
export function SearchBox(props: { query: string; onInput: (q: string) => void; onSubmit: (q: string) => void; input: RefObject<HTMLInputElement> }) {
  const { client, options } = useWidget();
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const { query } = props;
  useEffect(() => {
    setActive(-1);
    if (!query.trim()) return setSuggestions([]);
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      client.json<{ suggestions?: unknown }>('autocomplete', { query, limit: 6 }, ctrl.signal)
        .then((d) => setSuggestions(suggestionsOf(d)), () => ctrl.signal.aborted || setSuggestions([]));
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [query]);

  const expanded = open && suggestions.length > 0;
  const pick = (q: string) => {
    setOpen(false);
    props.onSubmit(q);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const n = suggestions.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!n) return;
      setOpen(true);
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive(expanded ? ((active + 1 + step + n + 1) % (n + 1)) - 1 : step > 0 ? 0 : n - 1);
    } else if (e.key === 'Enter' && expanded && active >= 0) {
      e.preventDefault();
      pick(suggestions[active]);
    } else if (e.key === 'Escape' && (expanded || (query && options.mode === 'inline'))) {
      // Escape closes the list first; only then (modal) the dialog.
      e.preventDefault();
      if (expanded) setOpen(false);
      else props.onInput('');
    }
  };

  return (
    <form class="box" role="search" aria-label="Site search" onSubmit={(e) => {
      e.preventDefault();
      pick(query);
    }}>
      <input ref={props.input} type="search" role="combobox" aria-label="Search" aria-autocomplete="list" aria-controls="quarry-suggestions"
        aria-expanded={expanded ? 'true' : 'false'} aria-activedescendant={expanded && active >= 0 ? `quarry-suggestion-${active}` : undefined}
        placeholder={options.placeholder} maxLength={500} autocomplete="off" spellcheck={false} enterKeyHint="search" value={query}
        onInput={(e) => {
          props.onInput(e.currentTarget.value);
          setOpen(true);
        }}
        onKeyDown={onKeyDown} onBlur={() => setOpen(false)} />
      <ul id="quarry-suggestions" role="listbox" aria-label="Suggestions" hidden={!expanded}>
        {suggestions.map((s, i) => (
          <li id={`quarry-suggestion-${i}`} role="option" aria-selected={i === active ? 'true' : 'false'}
            onMouseDown={(e) => e.preventDefault()} onClick={() => pick(s)}>{s}</li>
        ))}
      </ul>
    </form>
  );
}
