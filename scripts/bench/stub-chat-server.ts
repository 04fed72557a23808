import { listenStub } from './stub-http.js';

export type StubMode = 'reply' | 'stall' | 'error500' | 'error401' | 'slow-stream';

/**
 * A local stand-in for a paid model API speaking the OpenAI chat-completions protocol (streamed and
 * not). `reply(messages)` decides the answer; `mode` makes it stall, fail, or stream slowly; it keeps
 * the requests it got and counts connections the client closed before the answer was complete.
 */
export async function startStubChat() {
  const state = {
    mode: 'reply' as StubMode,
    requests: [] as { messages: { role: string; content: string }[]; stream: boolean }[],
    closedEarly: 0,
    reply: (_messages: { role: string; content: string }[]): string => 'Pip installs packages from the Python Package Index [1].',
    delayMs: 200,
  };
  const stub = await listenStub((_req, res, body) => {
    const parsed = JSON.parse(body) as { messages: { role: string; content: string }[]; stream?: boolean };
    state.requests.push({ messages: parsed.messages, stream: parsed.stream === true });
    let finished = false;
    res.on('close', () => {
      if (!finished) state.closedEarly++;
    });
    const done = () => {
      finished = true;
    };
    if (state.mode === 'stall') return; // never answers
    if (state.mode === 'error500') {
      done();
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
      return;
    }
    if (state.mode === 'error401') {
      done();
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid api key"}}');
      return;
    }
    const text = state.reply(parsed.messages);
    if (!parsed.stream) {
      setTimeout(() => {
        done();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: text } }] }));
      }, state.delayMs);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const words = text.split(/(?<= )/);
    let i = 0;
    const step = state.mode === 'slow-stream' ? 300 : 5;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      if (i < words.length) {
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: words[i++] } }] })}\n\n`);
        return;
      }
      clearInterval(timer);
      done();
      res.end('data: [DONE]\n\n');
    }, step);
  });
  return { state, url: stub.url, close: stub.close };
}
