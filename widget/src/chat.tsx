import { useRef, useState } from 'preact/hooks';
import { AnswerBody, useAnswer } from './answer';
import { SupportLink } from './cited';
import type { Answer } from './client';
import { useWidget } from './context';
import { TopQuestions } from './top-questions';

interface Turn {
  question: string;
  conversationId?: string;
  answer?: Answer;
}

/**
 * The chat view: questions and streamed replies in one conversation (the server's `conversation_id` carried
 * into every later question), follow-up questions as buttons asking in the same conversation.
 */
export function Chat({ first, onBack }: { first: string | null; onBack?: () => void }) {
  const { options } = useWidget();
  const [turns, setTurns] = useState<Turn[]>(first ? [{ question: first }] : []);
  const [draft, setDraft] = useState('');
  const conversation = useRef<string>();
  const input = useRef<HTMLInputElement>(null);
  const busy = turns.length > 0 && !turns[turns.length - 1].answer;
  const last = turns[turns.length - 1]?.answer;

  const ask = (question: string) => {
    const q = question.trim();
    if (!q || busy) return;
    setTurns((ts) => [...ts, { question: q, conversationId: conversation.current }]);
    setDraft('');
  };
  const finished = (i: number) => (answer: Answer) => {
    conversation.current = answer.conversation_id ?? conversation.current;
    setTurns((ts) => ts.map((t, j) => (j === i ? { ...t, answer } : t)));
  };

  return (
    <section class="panel chat" aria-label="Chat">
      {onBack && <button type="button" class="back" onClick={onBack}>Back to results</button>}
      {turns.length === 0 && <TopQuestions onAsk={ask} />}
      <ol class="turns" aria-label="Conversation">
        {turns.map((t, i) => (
          <li class="turn">
            <p class="question"><span class="sr">You asked: </span>{t.question}</p>
            <Reply question={t.question} conversationId={t.conversationId} onDone={finished(i)} />
          </li>
        ))}
      </ol>
      {last && (last.follow_up_questions?.length ?? 0) > 0 && (
        <div class="follow-ups" role="group" aria-label="Follow-up questions">
          {last.follow_up_questions!.map((f) => <button type="button" onClick={() => ask(f.question)}>{f.question}</button>)}
        </div>
      )}
      <form class="ask" onSubmit={(e) => {
        e.preventDefault();
        ask(draft);
        input.current?.focus();
      }}>
        <input ref={input} type="text" aria-label="Ask a question" placeholder={turns.length ? 'Ask a follow-up…' : 'Ask a question…'} maxLength={500}
          autocomplete="off" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>Send</button>
      </form>
      {turns.length > 0 && <div class="actions"><SupportLink href={options.supportUrl} /></div>}
    </section>
  );
}

function Reply({ question, conversationId, onDone }: { question: string; conversationId?: string; onDone: (a: Answer) => void }) {
  const [state, retry] = useAnswer('chat', { query: question, 'conversation-id': conversationId }, onDone);
  return <AnswerBody state={state} onRetry={retry} />;
}
