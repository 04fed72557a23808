import { useEffect, useState } from 'preact/hooks';
import { sentenceAnnouncer } from './announce';
import { CitedText, References } from './cited';
import { isAbort, type Answer } from './client';
import { useWidget } from './context';
import { htmlText } from './html';
import { Problem } from './problem';

export type Phase = 'loading' | 'streaming' | 'done' | 'error';
export interface AnswerState {
  phase: Phase;
  /** Streamed text so far, then the final text. */
  text: string;
  answer?: Answer;
  error?: unknown;
}

const finalText = (path: 'summary' | 'chat', answer: Answer) => htmlText((path === 'summary' ? answer.summary : answer.reply) ?? '');

/**
 * Streams one summary or chat answer into state; leaving (unmount, another question) cancels the request,
 * which cancels the generation on the server too. A `kept` answer (the same question answered before) is shown
 * as it is, without asking again.
 */
export function useAnswer(path: 'summary' | 'chat', params: Record<string, string | undefined>, onDone?: (a: Answer) => void, kept?: Answer): [AnswerState, () => void] {
  const { client, announce } = useWidget();
  const [state, setState] = useState<AnswerState>(() => (kept ? { phase: 'done', text: finalText(path, kept), answer: kept } : { phase: 'loading', text: '' }));
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (kept && attempt === 0) return;
    const ctrl = new AbortController();
    const speech = sentenceAnnouncer(announce);
    let text = '';
    setState({ phase: 'loading', text: '' });
    client.answer(path, { ...params, ...client.tracking() }, ctrl.signal, (delta) => {
      text += delta;
      speech.streamed(text);
      setState({ phase: 'streaming', text });
    }).then((answer) => {
      const final = finalText(path, answer);
      speech.done(final, text);
      setState({ phase: 'done', text: final, answer });
      onDone?.(answer);
    }, (error: unknown) => {
      if (!isAbort(error)) setState({ phase: 'error', text: '', error });
    });
    return () => ctrl.abort();
  }, [attempt]);
  return [state, () => setAttempt((n) => n + 1)];
}

/** A placeholder at once (SPEC rule 6), then the text as it streams, then the cited answer with its references. */
export function AnswerBody({ state, onRetry }: { state: AnswerState; onRetry: () => void }) {
  return (
    <div class="answer" data-state={state.phase} aria-busy={state.phase === 'loading' || state.phase === 'streaming' ? 'true' : 'false'}>
      {state.phase === 'loading' && (
        <div class="skeleton">
          <span class="sr">Writing an answer…</span>
          <i /><i /><i />
        </div>
      )}
      {state.phase === 'streaming' && <div class="answer-text">{state.text}</div>}
      {state.phase === 'done' && state.answer && (
        <>
          <CitedText text={state.text} refs={state.answer.references} />
          <References refs={state.answer.references} />
        </>
      )}
      {state.phase === 'error' && <Problem error={state.error} onRetry={onRetry} />}
    </div>
  );
}
