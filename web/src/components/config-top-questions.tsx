import { useState } from 'preact/hooks';
import { api } from '../api';
import { messageOf } from './async';
import { configPath, type Configuration } from './config-common';
import { OneLineForm } from './one-line-form';

/**
 * Top questions, saved as a whole list on every change (PATCH top_questions), so the order shown is always the
 * order stored. After a move, focus follows the moved question, so the keyboard can keep moving it.
 */
export function ConfigTopQuestions({ config, onChange }: { config: Configuration; onChange: () => void }) {
  const [questions, setQuestions] = useState(config.top_questions);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const save = async (next: string[], done: string, focusId?: string) => {
    const from = document.activeElement;
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      const saved = await api.patch<Configuration>(configPath(config.uid), { top_questions: next });
      setQuestions(saved.top_questions);
      setStatus(done);
      onChange();
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
      // Only where focus still is where the user left it (or was dropped when the button was disabled).
      const still = () => document.activeElement === from || document.activeElement === document.body;
      if (focusId) requestAnimationFrame(() => still() && document.getElementById(focusId)?.focus());
    }
  };
  const move = (i: number, by: -1 | 1) => {
    const next = [...questions];
    const [q] = next.splice(i, 1);
    next.splice(i + by, 0, q);
    const to = i + by;
    // At either end the button just pressed is disabled: focus its sibling instead.
    const direction = to === 0 ? 'down' : to === next.length - 1 ? 'up' : by < 0 ? 'up' : 'down';
    void save(next, `Moved “${q}” to position ${to + 1}.`, `tq-${direction}-${to}`);
  };

  return (
    <>
      <h2>Top questions</h2>
      <p class="muted">Shown by the widget before anyone types, in this order (at most 50).</p>
      <div role="status" class="success">{status}</div>
      {error && <p class="error" role="alert">{error}</p>}
      {questions.length === 0 ? (
        <div class="empty">No top questions yet. Add the questions your visitors ask most.</div>
      ) : (
        <ol class="ordered-list" aria-label="Top questions">
          {questions.map((q, i) => (
            <li key={`${i}-${q}`}>
              <span class="grow">{q}</span>
              <span class="item-actions">
                <button type="button" class="small" id={`tq-up-${i}`} aria-label={`Move up: ${q}`} disabled={busy || i === 0} onClick={() => move(i, -1)}>
                  Move up
                </button>
                <button type="button" class="small" id={`tq-down-${i}`} aria-label={`Move down: ${q}`} disabled={busy || i === questions.length - 1} onClick={() => move(i, 1)}>
                  Move down
                </button>
                <button type="button" class="small" aria-label={`Remove: ${q}`} disabled={busy} onClick={() => void save(questions.filter((_, j) => j !== i), `Removed “${q}”.`, 'tq-new')}>
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
      <OneLineForm label="New question" id="tq-new" submitLabel="Add question" busy={busy}
        onSubmit={(q) => save([...questions, q], `Added “${q}”.`, 'tq-new')} />
    </>
  );
}
