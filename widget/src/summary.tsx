import { AnswerBody, useAnswer } from './answer';
import { SupportLink } from './cited';
import type { Answer, Client } from './client';
import { useWidget } from './context';

// The last summary per widget: shown again (back from chat) it is not generated (and counted) twice.
const last = new WeakMap<Client, { query: string; answer: Answer }>();

/** The generated summary over the results for the question the visitor submitted. Keyed by query by its parent. */
export function Summary({ query, onChat }: { query: string; onChat?: () => void }) {
  const { client, options } = useWidget();
  const kept = last.get(client);
  const [state, retry] = useAnswer('summary', { query }, (answer) => last.set(client, { query, answer }), kept?.query === query ? kept.answer : undefined);
  // Nothing found is nothing to follow up on.
  const followUp = onChat && state.answer?.status === 'success';
  return (
    <section class="panel summary" aria-label="Summary">
      <AnswerBody state={state} onRetry={retry} />
      {state.phase === 'done' && (followUp || options.supportUrl) && (
        <div class="actions">
          {followUp && <button type="button" onClick={onChat}>Ask a follow-up in chat</button>}
          <SupportLink href={options.supportUrl} />
        </div>
      )}
    </section>
  );
}
