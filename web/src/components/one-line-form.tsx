import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Field } from './controls';

/**
 * A card with one text input and its button (add a question, block a suggestion, send a message). The text is
 * trimmed; empty text is not submitted; the input clears when `onSubmit` says the text was taken.
 */
export function OneLineForm(props: {
  label: string;
  id: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: (text: string) => boolean | Promise<boolean>;
  children?: ComponentChildren;
}) {
  const [draft, setDraft] = useState('');
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        const text = draft.trim();
        if (text && (await props.onSubmit(text))) setDraft('');
      }}
    >
      <div class="row wide">
        <Field label={props.label} id={props.id}>
          <input id={props.id} maxLength={500} required value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary" disabled={props.busy}>{props.submitLabel}</button>
      </div>
      {props.children}
    </form>
  );
}
