import type { ServerResponse } from 'node:http';
import { listenStub } from '../bench/stub-http.js';

/** How a model endpoint behaves right now: well, slowly, failing with 5xx, or answering 200 with junk. */
export type ModelMode = 'ok' | 'slow' | 'failing' | 'garbage';

export const STUB_DIMENSIONS = 8;

/**
 * One local server standing in for both paid model APIs (OpenAI's `/v1/embeddings` and
 * `/v1/chat/completions`, streamed or not); the runner switches each one's mode at will.
 */
export async function startModelStub() {
  const state = {
    embeddings: 'ok' as ModelMode,
    chat: 'ok' as ModelMode,
    /** Added to every answer in `slow` mode. */
    slowMs: 4000,
    requests: { embeddings: 0, chat: 0 },
    garbageServed: 0,
  };
  const stub = await listenStub((req, res, body) => {
    const isChat = (req.url ?? '').endsWith('/chat/completions');
    const mode = isChat ? state.chat : state.embeddings;
    state.requests[isChat ? 'chat' : 'embeddings']++;
    if (mode === 'failing') {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded (chaos)"}}');
      return;
    }
    if (mode === 'garbage') {
      state.garbageServed++;
      garbage(res, state.garbageServed, isChat);
      return;
    }
    const delay = mode === 'slow' ? state.slowMs : isChat ? 50 : 0;
    setTimeout(() => (isChat ? chat(res, body) : embeddings(res, body)), delay);
  });
  return { state, url: stub.url, close: stub.close };
}

function embeddings(res: ServerResponse, body: string) {
  let input: string[] = [];
  try {
    input = (JSON.parse(body) as { input: string[] }).input;
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
    return;
  }
  // Deterministic vectors from character codes: the same text always embeds the same.
  const data = input.map((t, index) => {
    const v = new Array(STUB_DIMENSIONS).fill(1);
    for (let i = 0; i < t.length; i++) v[i % STUB_DIMENSIONS] += t.charCodeAt(i) % 17;
    return { index, embedding: v };
  });
  if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
}

function chat(res: ServerResponse, body: string) {
  if (res.destroyed) return;
  let stream = false;
  try {
    stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
  } catch {
    // answered as not streamed
  }
  const text = 'The sources describe this [1].';
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: text } }] }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const word of text.split(/(?<= )/)) res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: word } }] })}\n\n`);
  res.end('data: [DONE]\n\n');
}

/**
 * A 200 whose body is not what the protocol promises; each call a different kind of junk. Not
 * among them: vectors of another size, which the embedder rightly takes for a configuration change
 * (documents fail with the reason at once instead of retrying).
 */
function garbage(res: ServerResponse, n: number, isChat: boolean) {
  const kinds = isChat
    ? [
      () => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway (proxy)</body></html>'),
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":"none"}'),
      () => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {not json\n\ndata: [DONE]\n\n'),
    ]
    : [
      () => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway (proxy)</body></html>'),
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'),
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"index":0,"embedding":null}]}'),
    ];
  kinds[n % kinds.length]();
}
