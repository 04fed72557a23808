import { listenStub } from '../../scripts/bench/stub-http.js';

/**
 * A local stand-in for a paid embeddings API speaking the OpenAI /v1/embeddings protocol:
 * deterministic 8-dimensional vectors from character codes, a request counter, and a switch to fail.
 */
export async function startStubEmbeddings() {
  const state = { requests: 0, texts: 0, failWith: 0, delayMs: 0, byModel: {} as Record<string, number> };
  const stub = await listenStub((_req, res, body) =>
    setTimeout(() => {
      state.requests++;
      if (state.failWith) {
        res.writeHead(state.failWith, { 'content-type': 'application/json' }).end('{"error":{"message":"model not found"}}');
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string[]; model: string };
      state.texts += input.length;
      state.byModel[model] = (state.byModel[model] ?? 0) + input.length;
      const data = input.map((t, index) => {
        const v = new Array(8).fill(0);
        for (let i = 0; i < t.length; i++) v[i % 8] += t.charCodeAt(i) % 17;
        v[0] += ([...model].reduce((a, c) => a + c.charCodeAt(0), 0) * 7) % 101; // each model its own vectors
        return { index, embedding: v.map((x) => x + 1) };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    }, state.delayMs));
  return { state, url: stub.url, close: stub.close };
}
