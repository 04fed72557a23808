import { AnswerBody, useAnswer } from './answer';
import { SupportLink } from './cited';
import { useWidget } from './context';

/** The generated summary over the results for the question the visitor submitted. Keyed by query by its parent. */
export function Summary({ query, onChat }: { query: string; onChat?: () => void }) {
  const { options } = useWidget();
  const [state, retry] = useAnswer('summary', { query });
  return (
    <section class="panel summary" aria-label="Summary">
      <AnswerBody state={state} onRetry={retry} />
      {state.phase === 'done' && (
        <div class="actions">
          {onChat && <button type="button" onClick={onChat}>Ask a follow-up in chat</button>}
          <SupportLink href={options.supportUrl} />
        </div>
      )}
    </section>
  );
}
