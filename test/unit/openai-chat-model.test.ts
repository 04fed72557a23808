import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiChatModel, type OpenAiChatModelOptions } from '../../shared/llm/adapters/openai-chat-model.js';
import { createChatModel } from '../../shared/llm/create-chat-model.js';
import { listenStub } from '../../scripts/bench/stub-http.js';
import { type ChatMessage, ChatModelError } from '../../shared/llm/ports/chat-model.js';

// A real HTTP server on loopback, so fetch, streaming, timeouts, retries and aborts are
// exercised for real instead of through a mocked fetch.
interface Body {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  max_tokens?: number;
  temperature?: number;
}
interface Seen {
  body: Body;
  auth?: string;
  accept?: string;
  /** Resolves when the server's response closes; `early` if it closed before the server ended it (client went away). */
  closed: Promise<{ early: boolean }>;
}
type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen, n: number) => void;

let stub: Awaited<ReturnType<typeof listenStub>>;
let baseUrl: string;
let seen: Seen[] = [];
let handler: Handler;

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'Answer from the sources.' },
  { role: 'user', content: 'What is Quarry?' },
];

const chunk = (content: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: null, ...extra }] });

/** An OpenAI-style event stream, with a role-only first chunk and a finish chunk. */
function sse(pieces: string[], eol = '\n'): string {
  const events = [
    JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ...pieces.map((p) => chunk(p)),
    chunk(null, { finish_reason: 'stop' }),
    '[DONE]',
  ];
  return events.map((e) => `data: ${e}${eol}${eol}`).join('');
}

function completion(content: string) {
  return JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes the pieces one by one with a pause between them, so the client sees them as separate reads. */
async function writeSlowly(res: ServerResponse, pieces: (string | Buffer)[], pauseMs = 5, end = true) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (const p of pieces) {
    if (res.destroyed) return;
    res.write(p);
    await delay(pauseMs);
  }
  if (end && !res.destroyed) res.end();
}

/** Splits bytes into pieces of `size` bytes: boundaries fall mid-line, mid-JSON, mid-UTF-8 and between CR and LF. */
function bytes(text: string, size: number): Buffer[] {
  const all = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size));
  return out;
}

beforeAll(async () => {
  stub = await listenStub((req, res, raw) => {
    const closed = new Promise<{ early: boolean }>((resolve) => res.on('close', () => resolve({ early: !res.writableEnded })));
    const entry: Seen = { body: JSON.parse(raw) as Body, auth: req.headers.authorization, accept: req.headers.accept, closed };
    seen.push(entry);
    handler(req, res, entry, seen.length);
  });
  baseUrl = stub.url;
});

afterAll(() => stub.close());

beforeEach(() => {
  seen = [];
  handler = (req, res, s) => {
    if (s.body.stream) void writeSlowly(res, [sse(['Hello', ' world'])]);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(completion('Hello world'));
  };
});

const model = (extra: Partial<OpenAiChatModelOptions> = {}) =>
  new OpenAiChatModel({ baseUrl, model: 'test-model', timeoutMs: 10_000, firstTokenTimeoutMs: 5_000, retries: 2, retryBaseMs: 5, ...extra });

/** Runs a streamed completion, collecting the deltas. */
async function streamed(m: OpenAiChatModel, signal?: AbortSignal) {
  const deltas: string[] = [];
  const text = await m.complete(MESSAGES, { onDelta: (d) => deltas.push(d), signal });
  return { text, deltas };
}

async function rejection(p: Promise<unknown>): Promise<ChatModelError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ChatModelError);
  return err as ChatModelError;
}

/** Resolves with how the server's side of a request ended, failing if it does not close soon. */
async function closedWithin(s: Seen, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`server connection still open after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([s.closed, late]);
  } finally {
    clearTimeout(timer); // the timer test below counts pending timers
  }
}

describe('OpenAI-compatible chat model', () => {
  it('returns a non-streamed reply and sends the OpenAI request body', async () => {
    const m = model();
    expect(m.id).toBe(`openai:test-model@${baseUrl}`);
    const text = await m.complete(MESSAGES, { maxTokens: 50, temperature: 0.2 });
    expect(text).toBe('Hello world');
    expect(seen).toHaveLength(1);
    expect(seen[0].body).toEqual({ model: 'test-model', messages: MESSAGES, stream: false, max_tokens: 50, temperature: 0.2 });
    expect(seen[0].auth).toBeUndefined();
  });

  it('leaves max_tokens and temperature out when not given', async () => {
    await model().complete(MESSAGES);
    expect(Object.keys(seen[0].body).sort()).toEqual(['messages', 'model', 'stream']);
  });

  it('strips a trailing slash and credentials from the id', () => {
    const m = new OpenAiChatModel({ baseUrl: 'http://user:pw@127.0.0.1:1/v1/', model: 'm', timeoutMs: 1000, retries: 0 });
    expect(m.id).toBe('openai:m@http://127.0.0.1:1/v1');
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('streams deltas in order from an event stream with %s line ends, split into 3-byte pieces', async (_name, eol) => {
    const pieces = ['Hel', 'lo, wörld 🌍', ' see [1]', '\n\nNext paragraph.'];
    handler = (req, res) => void writeSlowly(res, bytes(`: keep-alive${eol}${eol}${sse(pieces, eol)}`, 3), 1);
    const { text, deltas } = await streamed(model());
    expect(deltas).toEqual(pieces);
    expect(text).toBe(pieces.join(''));
    expect(seen[0].body.stream).toBe(true);
    expect(seen[0].accept).toContain('text/event-stream');
  });

  it('handles chunk boundaries between CR and LF, inside "data:", inside JSON and inside a UTF-8 character', async () => {
    const text = `: ping\r\n\r\nid: 1\r\nevent: message\r\ndata: ${chunk('a')}\r\n\r\ndata: ${chunk('é🌍')}\r\n\r\ndata:${chunk('z')}\r\n\r\ndata: [DONE]\r\n\r\n`;
    const buf = Buffer.from(text);
    const cuts = [
      buf.indexOf('\r\n') + 1, // between CR and LF
      buf.indexOf('data:') + 2, // inside the field name
      buf.indexOf('"content":"a"') + 5, // inside the JSON
      buf.indexOf(Buffer.from('🌍')) + 2, // inside a 4-byte character
      buf.indexOf(Buffer.from('é')) + 1, // inside a 2-byte character
      buf.lastIndexOf('\r\n\r\n') + 3, // between the last CR and LF
    ].sort((x, y) => x - y);
    const pieces = cuts.map((c, i) => buf.subarray(i === 0 ? 0 : cuts[i - 1], c));
    pieces.push(buf.subarray(cuts[cuts.length - 1]));
    expect(Buffer.concat(pieces).equals(buf)).toBe(true);
    handler = (req, res) => void writeSlowly(res, pieces, 10);
    const out = await streamed(model());
    expect(out.deltas).toEqual(['a', 'é🌍', 'z']);
    expect(out.text).toBe('aé🌍z');
  });

  it('accepts a stream that ends at EOF without [DONE] or a final blank line', async () => {
    handler = (req, res) => void writeSlowly(res, [`data: ${chunk('one')}\n\n`, `data: ${chunk(' two')}`]);
    expect(await streamed(model())).toEqual({ text: 'one two', deltas: ['one', ' two'] });
  });

  it('accepts events not separated by blank lines', async () => {
    handler = (req, res) => void writeSlowly(res, [`data: ${chunk('one')}\ndata: ${chunk(' two')}\ndata: [DONE]\n`]);
    expect(await streamed(model())).toEqual({ text: 'one two', deltas: ['one', ' two'] });
  });

  it('accepts a JSON reply to a streaming request as one delta', async () => {
    handler = (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`\n${completion('All at once')}`);
    expect(await streamed(model())).toEqual({ text: 'All at once', deltas: ['All at once'] });
  });

  it('sends the API key as a Bearer token, and none without one', async () => {
    await model({ apiKey: 'sk-test' }).complete(MESSAGES);
    await streamed(model({ apiKey: 'sk-test' }));
    await model().complete(MESSAGES);
    expect(seen.map((s) => s.auth)).toEqual(['Bearer sk-test', 'Bearer sk-test', undefined]);
  });

  it('retries a 500 and then succeeds', async () => {
    handler = (req, res, s, n) => {
      if (n === 1) res.writeHead(500).end('boom');
      else void writeSlowly(res, [sse(['ok'])]);
    };
    expect(await streamed(model())).toEqual({ text: 'ok', deltas: ['ok'] });
    expect(seen).toHaveLength(2);
  });

  it('honours Retry-After on 429', async () => {
    handler = (req, res, s, n) => {
      if (n === 1) res.writeHead(429, { 'retry-after': '1' }).end('{"error":{"message":"slow down"}}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(completion('ok'));
    };
    const started = Date.now();
    expect(await model({ retryBaseMs: 1 }).complete(MESSAGES)).toBe('ok');
    expect(seen).toHaveLength(2);
    // The backoff alone would be ~1 ms: only honouring Retry-After explains the wait.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('does not sit through a Retry-After beyond its cap', async () => {
    handler = (req, res) => res.writeHead(429, { 'retry-after': '3600' }).end('{"error":{"message":"slow down"}}');
    const started = Date.now();
    const err = await rejection(model().complete(MESSAGES));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(seen).toHaveLength(1);
    expect(err.retryable).toBe(true);
    expect(err.status).toBe(429);
    expect(err.message).toContain('3600 s');
  });

  it('gives up after the configured retries with a retryable error naming the status', async () => {
    handler = (req, res) => res.writeHead(503).end('overloaded');
    const err = await rejection(model({ retries: 2 }).complete(MESSAGES));
    expect(seen).toHaveLength(3);
    expect(err.retryable).toBe(true);
    expect(err.status).toBe(503);
    expect(err.message).toContain('503');
    expect(err.message).toContain('overloaded');
    expect(err.message).toContain('3 attempts');
  });

  it('does not retry a 401 and points at the API key', async () => {
    handler = (req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"Incorrect API key provided"}}');
    const err = await rejection(streamed(model({ apiKey: 'sk-wrong' })));
    expect(seen).toHaveLength(1);
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(401);
    expect(err.message).toContain('QUARRY_LLM_API_KEY');
    expect(err.message).toContain('Incorrect API key provided');
    expect(err.message).not.toContain('sk-wrong');
  });

  it('does not retry a 404 and names both the model and the URL', async () => {
    handler = (req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"model \\"test-model\\" not found, try pulling it first"}}');
    const err = await rejection(model().complete(MESSAGES));
    expect(seen).toHaveLength(1);
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(404);
    expect(err.message).toContain('"test-model"');
    expect(err.message).toContain(`${baseUrl}/chat/completions`);
    expect(err.message).toContain('try pulling it first');
  });

  it("does not retry a 400 and includes the server's message", async () => {
    handler = (req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"context length exceeded: 9000 > 8192"}}');
    const err = await rejection(model().complete(MESSAGES));
    expect(seen).toHaveLength(1);
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(400);
    expect(err.message).toContain('HTTP 400');
    expect(err.message).toContain('context length exceeded: 9000 > 8192');
  });

  it('reports a refused connection as retryable, naming the URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const m = new OpenAiChatModel({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 5000, retries: 1, retryBaseMs: 5 });
    const err = await rejection(m.complete(MESSAGES));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(err.message).toContain(`http://127.0.0.1:${port}/v1`);
    expect(err.message).toContain('2 attempts');
  });

  it('turns a server that sends nothing into a retryable timeout after firstTokenTimeoutMs', async () => {
    handler = () => {}; // never answers
    const started = Date.now();
    const err = await rejection(streamed(model({ firstTokenTimeoutMs: 200, retries: 1 })));
    expect(Date.now() - started).toBeLessThan(5000); // well before timeoutMs (10 s)
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/did not answer within 200 ms/);
    expect(seen).toHaveLength(2);
    for (const s of seen) expect((await closedWithin(s, 2000)).early).toBe(true);
  });

  it('does not count headers and keep-alive comments as a first token', async () => {
    handler = (req, res) => void writeSlowly(res, [': keep-alive\n\n', ': keep-alive\n\n'], 50, false);
    const err = await rejection(streamed(model({ firstTokenTimeoutMs: 200, retries: 0 })));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/did not answer within 200 ms/);
  });

  it('times out a non-streamed request after timeoutMs', async () => {
    handler = () => {};
    const started = Date.now();
    const err = await rejection(model({ timeoutMs: 300, retries: 0 }).complete(MESSAGES));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/did not answer within 300 ms/);
  });

  it('times out a stream that stalls mid-way, without retrying after text was delivered', async () => {
    handler = (req, res) => void writeSlowly(res, [`data: ${chunk('Hel')}\n\n`], 5, false); // then silence
    const deltas: string[] = [];
    const started = Date.now();
    const err = await rejection(model({ timeoutMs: 400, firstTokenTimeoutMs: 200, retries: 2 }).complete(MESSAGES, { onDelta: (d) => deltas.push(d) }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/did not finish its answer within 400 ms/);
    expect(deltas).toEqual(['Hel']);
    expect(seen).toHaveLength(1);
    expect((await closedWithin(seen[0], 2000)).early).toBe(true);
  });

  it('does not retry a connection lost after a delta, so no delta is delivered twice', async () => {
    handler = (req, res) => {
      void writeSlowly(res, [`data: ${chunk('partial')}\n\n`], 5, false).then(() => delay(20)).then(() => res.socket?.destroy());
    };
    const deltas: string[] = [];
    const err = await rejection(model({ retries: 3 }).complete(MESSAGES, { onDelta: (d) => deltas.push(d) }));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/connection broke/);
    expect(deltas).toEqual(['partial']);
    expect(seen).toHaveLength(1);
  });

  it('retries a connection lost before any delta', async () => {
    handler = (req, res, s, n) => {
      if (n === 1) void writeSlowly(res, [`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`], 5, false).then(() => res.socket?.destroy());
      else void writeSlowly(res, [sse(['fine'])]);
    };
    expect(await streamed(model())).toEqual({ text: 'fine', deltas: ['fine'] });
    expect(seen).toHaveLength(2);
  });

  it('rejects with AbortError at once when the caller aborts mid-stream, and closes the connection', async () => {
    handler = (req, res) => void writeSlowly(res, [`data: ${chunk('first')}\n\n`, ...Array.from({ length: 200 }, (_, i) => `data: ${chunk(` ${i}`)}\n\n`)], 50);
    const ac = new AbortController();
    const deltas: string[] = [];
    const started = Date.now();
    const p = model({ retries: 3 }).complete(MESSAGES, {
      signal: ac.signal,
      onDelta: (d) => {
        deltas.push(d);
        if (deltas.length === 2) setTimeout(() => ac.abort(), 10);
      },
    });
    const err = await p.then(() => undefined, (e: unknown) => e);
    expect(err).not.toBeInstanceOf(ChatModelError);
    expect((err as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(3000); // the server would take 10 s to finish
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.length).toBeLessThan(10);
    expect((await closedWithin(seen[0], 2000)).early).toBe(true);
    await delay(100);
    expect(seen).toHaveLength(1);
  });

  it("rejects with the signal's reason when aborted while waiting, and never retries", async () => {
    handler = () => {};
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('client went away')), 100);
    await expect(streamed(model({ firstTokenTimeoutMs: 5000, retries: 3 }), ac.signal)).rejects.toThrow('client went away');
    expect((await closedWithin(seen[0], 2000)).early).toBe(true);
    await delay(100);
    expect(seen).toHaveLength(1);
  });

  it('delivers nothing more once the caller aborts from inside onDelta', async () => {
    handler = (req, res) => void writeSlowly(res, [sse(['one', 'two', 'three'])]); // all in one write
    const ac = new AbortController();
    const deltas: string[] = [];
    const p = model().complete(MESSAGES, {
      signal: ac.signal,
      onDelta: (d) => {
        deltas.push(d);
        ac.abort();
      },
    });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(deltas).toEqual(['one']);
  });

  it('stops during a retry backoff when aborted', async () => {
    handler = (req, res) => res.writeHead(503).end('busy');
    const ac = new AbortController();
    const p = model({ retries: 3, retryBaseMs: 2000 }).complete(MESSAGES, { signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    const started = Date.now();
    const err = await p.then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(seen).toHaveLength(1);
  });

  it('does not even send a request with an already aborted signal', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(model().complete(MESSAGES, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(0);
  });

  it('passes on an error thrown by onDelta, closing the connection and not retrying', async () => {
    handler = (req, res) => void writeSlowly(res, Array.from({ length: 100 }, (_, i) => `data: ${chunk(`${i}`)}\n\n`), 50);
    const boom = new Error('consumer failed');
    await expect(model().complete(MESSAGES, { onDelta: () => { throw boom; } })).rejects.toBe(boom);
    expect((await closedWithin(seen[0], 2000)).early).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('reports a malformed event as a non-retryable error', async () => {
    handler = (req, res) => void writeSlowly(res, [`data: ${chunk('ok')}\n\n`, 'data: {"choices": [oops\n\n']);
    const deltas: string[] = [];
    const err = await rejection(model().complete(MESSAGES, { onDelta: (d) => deltas.push(d) }));
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/malformed/);
    expect(err.message).toContain('[oops');
    expect(seen).toHaveLength(1);
  });

  it('reports malformed JSON of a non-streamed reply as non-retryable', async () => {
    handler = (req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Open WebUI</body></html>');
    const err = await rejection(model().complete(MESSAGES));
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/not JSON/);
    expect(seen).toHaveLength(1);
  });

  it('reports a 200 that is not an event stream as non-retryable', async () => {
    handler = (req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Open WebUI</body></html>');
    const err = await rejection(streamed(model()));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('<html>');
    expect(seen).toHaveLength(1);
  });

  it('reports an error event sent in the stream', async () => {
    handler = (req, res) => void writeSlowly(res, [`data: ${JSON.stringify({ error: { message: 'CUDA out of memory', code: 500 } })}\n\n`]);
    const err = await rejection(streamed(model({ retries: 1 })));
    expect(err.message).toContain('CUDA out of memory');
    expect(err.retryable).toBe(true);
    expect(seen).toHaveLength(2); // nothing was delivered, so it was retried
  });

  it('leaves no timers behind, whether it succeeds, times out or is aborted', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await delay(100); // let the stub server's pauses from earlier tests run out
    const before = timers();
    // Long timeouts: a forgotten timer would still be pending when counted.
    const m = model({ timeoutMs: 60_000, firstTokenTimeoutMs: 30_000, retries: 0 });
    await streamed(m);
    await m.complete(MESSAGES);
    handler = (req, res) => void writeSlowly(res, [`data: ${chunk('x')}\n\n`], 5, false);
    await rejection(streamed(model({ timeoutMs: 300, firstTokenTimeoutMs: 30_000, retries: 0 })));
    const ac = new AbortController();
    const p = m.complete(MESSAGES, { signal: ac.signal, onDelta: () => ac.abort() });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await delay(50); // let writeSlowly's own pauses finish
    expect(timers()).toBeLessThanOrEqual(before);
  });
});

describe('createChatModel', () => {
  const base = { timeoutMs: 60_000, retries: 2 };

  it('returns null for the extractive provider', () => {
    expect(createChatModel({ provider: 'extractive', ...base })).toBeNull();
  });

  it('names what openai is missing', () => {
    expect(() => createChatModel({ provider: 'openai', ...base })).toThrow(/QUARRY_LLM_URL.*QUARRY_LLM_MODEL/);
    expect(() => createChatModel({ provider: 'openai', baseUrl, ...base })).toThrow(/needs QUARRY_LLM_MODEL$/);
  });

  it('rejects an unknown provider', () => {
    expect(() => createChatModel({ provider: 'gpt' as 'openai', ...base })).toThrow(/unknown LLM provider "gpt"/);
  });

  it('builds a working OpenAI-compatible model', async () => {
    const m = createChatModel({ provider: 'openai', baseUrl, model: 'test-model', apiKey: 'k', ...base });
    expect(m?.id).toBe(`openai:test-model@${baseUrl}`);
    expect(await m!.complete(MESSAGES)).toBe('Hello world');
    expect(seen[0].auth).toBe('Bearer k');
  });
});
