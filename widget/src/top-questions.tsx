import { useEffect, useState } from 'preact/hooks';
import { isAbort, type Client } from './client';
import { useWidget } from './context';
import { Problem } from './problem';

// Asked once per widget: the list shows again each time the box is emptied.
const loaded = new WeakMap<Client, string[]>();

/**
 * The configuration's top questions, shown while nothing is typed; picking one asks it. Also the first request
 * a widget makes, so a refused origin is reported before the visitor types anything.
 */
export function TopQuestions({ onAsk }: { onAsk: (q: string) => void }) {
  const { client } = useWidget();
  const [state, setState] = useState<{ questions: string[]; error?: unknown }>({ questions: loaded.get(client) ?? [] });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (loaded.has(client)) return;
    const ctrl = new AbortController();
    client.json<{ questions: { question: string }[] }>('top-questions', {}, ctrl.signal).then((d) => {
      const questions = d.questions.map((q) => q.question);
      loaded.set(client, questions);
      setState({ questions });
    },
      (error: unknown) => isAbort(error) || setState({ questions: [], error }),
    );
    return () => ctrl.abort();
  }, [attempt]);
  if (state.error) return <Problem error={state.error} onRetry={() => setAttempt((n) => n + 1)} />;
  if (state.questions.length === 0) return null;
  return (
    <section class="top" aria-label="Top questions">
      <h2>Top questions</h2>
      <ul>
        {state.questions.map((q) => <li><button type="button" class="question-button" onClick={() => onAsk(q)}>{q}</button></li>)}
      </ul>
    </section>
  );
}
