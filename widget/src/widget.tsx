import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Chat } from './chat';
import { Client } from './client';
import { WidgetCtx } from './context';
import type { WidgetOptions } from './options';
import { Problem } from './problem';
import { Results } from './results';
import { SearchBox } from './search-box';
import { device, sessionId } from './session';
import { Summary } from './summary';
import { TopQuestions } from './top-questions';

const FOCUSABLE = 'a[href],button:not([disabled]),input:not([disabled]),[tabindex]:not([tabindex="-1"])';

/** One widget: the search view (box, summary, results, top questions) or the chat view, inline or in a modal. */
export function Widget({ options }: { options: WidgetOptions }) {
  const client = useMemo(() => new Client(options), [options]);
  const [live, setLive] = useState('');
  const [refusal, setRefusal] = useState<Error | null>(null);
  const ctx = useMemo(() => ({ client, options, announce: setLive, refused: (e: Error) => setRefusal((r) => r ?? e) }), [client, options]);
  const [query, setQuery] = useState('');
  const [asked, setAsked] = useState('');
  const [chat, setChat] = useState<string | null>(null);
  /** The modal was opened once: its content stays mounted from then on, so reopening shows it as it was left. */
  const [opened, setOpened] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const launcher = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const { panels } = options;
  const chatOnly = !panels.has('search') && !panels.has('summary');

  const submit = (q: string) => {
    setQuery(q);
    if (q.trim() && panels.has('summary')) setAsked(q.trim());
  };
  const show = (from: Element | null) => {
    // Focus inside this widget shows as the host element: return it to the launcher then.
    opener.current = from instanceof HTMLElement && from !== document.body && !from.shadowRoot ? from : launcher.current;
    // The dialog's own flag, not state kept from its close event: that event comes a moment after the dialog has
    // closed (~15 ms in Chromium), and a shortcut pressed in between must open it again.
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    setOpened(true);
    input.current?.focus();
  };

  // On the first opening the content renders after show(): focus the box once it is there.
  useLayoutEffect(() => {
    if (opened) input.current?.focus();
  }, [opened]);

  // Layout effects run as soon as the widget is in the DOM: the shortcut works from the first moment.
  useLayoutEffect(() => {
    if (options.shortcut === 'none') return;
    const onKey = (e: KeyboardEvent) => {
      const target = e.composedPath()[0] as HTMLElement;
      const typing = target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
      const combo = (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === options.shortcut;
      const slash = e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey;
      if (e.defaultPrevented || !(combo || slash)) return;
      e.preventDefault();
      if (options.mode === 'modal') show(document.activeElement);
      else input.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [options]);

  // Result and reference links carry their feedback_data; support links send the forward notice. Both go out
  // as keepalive requests, so the navigation (same tab, new tab, middle click) is never held up.
  const onLink = (e: MouseEvent) => {
    if (e.type === 'auxclick' && e.button !== 1) return;
    try {
      const link = (e.target as Element).closest?.('a[href]');
      const feedback = link?.closest('[data-feedback]')?.getAttribute('data-feedback');
      if (feedback) client.beacon('feedback', { type: 'click', feedback_data: feedback });
      if (link?.hasAttribute('data-support')) {
        client.beacon('support-forward', { uid: options.uid, url: location.href, 'session-id': sessionId(), device: device() });
      }
    } catch (err) {
      console.error('quarry-search:', err);
    }
  };

  const box = <SearchBox query={query} onInput={setQuery} onSubmit={submit} input={input} />;
  // Said once, under the box, instead of by every panel whose request the service refused.
  const body = refusal ? (
    <>
      {!chatOnly && box}
      <Problem error={refusal} />
    </>
  ) : chatOnly || chat !== null ? (
    <Chat first={chat} onBack={chatOnly ? undefined : () => {
      setChat(null);
      requestAnimationFrame(() => input.current?.focus());
    }} />
  ) : (
    <>
      {box}
      {!query.trim() && <TopQuestions onAsk={submit} />}
      {query.trim() && panels.has('chat') && asked !== query.trim() && (
        <button type="button" class="to-chat" onClick={() => setChat(query.trim())}>Ask in chat</button>
      )}
      {asked && asked === query.trim() && <Summary key={asked} query={asked} onChat={panels.has('chat') ? () => setChat(asked) : undefined} />}
      {query.trim() && panels.has('search') && <Results query={query.trim()} />}
    </>
  );

  return (
    <WidgetCtx.Provider value={ctx}>
      <div class={`root ${options.mode}`} onClick={onLink} onAuxClick={onLink}>
        {options.mode === 'inline' ? body : (
          <>
            <button ref={launcher} type="button" class="launcher" aria-haspopup="dialog" aria-keyshortcuts={options.shortcut === 'none' ? undefined : `Control+${options.shortcut.toUpperCase()} Meta+${options.shortcut.toUpperCase()} /`}
              onClick={(e) => show(e.currentTarget)}>
              <span>Search</span>
              {options.shortcut !== 'none' && <kbd aria-hidden="true">Ctrl {options.shortcut.toUpperCase()}</kbd>}
            </button>
            <dialog ref={dialog} aria-label="Search" onKeyDown={trapFocus} onClose={() => {
              // A late close event of a dialog that a shortcut has opened again meanwhile.
              if (dialog.current?.open) return;
              (opener.current?.isConnected ? opener.current : launcher.current)?.focus();
            }}>
              <div class="dialog-head">
                <button type="button" class="close" onClick={() => dialog.current?.close()}>Close</button>
              </div>
              {opened && body}
            </dialog>
          </>
        )}
        <div class="sr" role="status" aria-live="polite" aria-atomic="true">{live}</div>
      </div>
    </WidgetCtx.Provider>
  );
}

/** Tab and Shift+Tab wrap around inside the modal, so focus cannot wander to the page behind it. */
function trapFocus(e: KeyboardEvent) {
  if (e.key !== 'Tab') return;
  const d = e.currentTarget as HTMLElement;
  const items = Array.from(d.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.offsetParent !== null);
  const current = (d.getRootNode() as ShadowRoot).activeElement;
  const [first, last] = [items[0], items[items.length - 1]];
  if (!first) return;
  if (e.shiftKey ? current === first || !d.contains(current) : current === last) {
    e.preventDefault();
    (e.shiftKey ? last : first).focus();
  }
}
