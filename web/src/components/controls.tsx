import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/** A labelled form field; the hint and the error are tied to the control for screen readers. */
export function Field(props: { label: string; id: string; hint?: string; error?: string | null; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && <small id={`${props.id}-hint`} class="muted">{props.hint}</small>}
      {props.error && <small id={`${props.id}-error`} class="field-error" role="alert">{props.error}</small>}
    </div>
  );
}

/** The end of a settings form: the error the server gave that no field owns, what the last submit did, the submit button. */
export function FormFooter(props: { errorId: string; error: string | null; saved: string | false; busy: boolean; submitLabel: string }) {
  return (
    <>
      {props.error && <p id={props.errorId} class="error" role="alert">{props.error}</p>}
      <div class="actions">
        {props.saved && <span class="success" role="status">{props.saved}</span>}
        <button type="submit" class="primary" disabled={props.busy}>{props.busy ? 'Saving…' : props.submitLabel}</button>
      </div>
    </>
  );
}

/** Copies text and says so, for keys and install snippets. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="small"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // Without clipboard permission (plain http, old browsers) select the text the user can copy by hand.
          const area = document.createElement('textarea');
          area.value = text;
          document.body.append(area);
          area.select();
          document.execCommand('copy');
          area.remove();
        }
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      {done ? 'Copied' : label}
      <span class="visually-hidden" aria-live="polite">{done ? ' to the clipboard' : ''}</span>
    </button>
  );
}

/** A modal confirmation built on <dialog>, which gives focus trapping and Escape for free. */
export function ConfirmDialog(props: { open: boolean; title: string; children: ComponentChildren; confirmLabel: string; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={(e) => { e.preventDefault(); props.onCancel(); }}>
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <div class="actions">
        <button type="button" onClick={props.onCancel}>Cancel</button>
        <button type="button" class="danger" onClick={props.onConfirm}>{props.confirmLabel}</button>
      </div>
    </dialog>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Quarry`;
  }, [title]);
  return (
    <header class="page-header">
      <h1 tabIndex={-1} id="page-title">{title}</h1>
      {children && <div class="page-actions">{children}</div>}
    </header>
  );
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
