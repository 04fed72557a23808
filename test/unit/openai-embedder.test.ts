import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiEmbedder } from '../../shared/llm/adapters/openai-embedder.js';
import { EmbedderError } from '../../shared/llm/ports/embedder.js';
import { listenStub } from '../../scripts/bench/stub-http.js';

// A real HTTP server on loopback, so fetch, headers, timeouts and retries are
// exercised for real instead of through a mocked fetch.
interface Seen { auth?: string; model: string; input: string[] }
type Handler = (req: IncomingMessage, res: ServerResponse, body: Seen, n: number) => void;

let stub: Awaited<ReturnType<typeof listenStub>>;
let baseUrl: string;
let seen: Seen[] = [];
let handler: Handler;

const DIM = 4;
// Deterministic, un-normalised vector per text so order and normalisation are checkable.
const vectorFor = (text: string) => [text.length, 1, 0, 0];

function answer(res: ServerResponse, input: string[], shuffle = false) {
  const data = input.map((t, index) => ({ object: 'embedding', index, embedding: vectorFor(t) }));
  if (shuffle) data.reverse();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', data, model: 'm' }));
}

beforeAll(async () => {
  stub = await listenStub((req, res, raw) => {
    const entry = { ...(JSON.parse(raw) as Seen), auth: req.headers.authorization };
    seen.push(entry);
    handler(req, res, entry, seen.length);
  });
  baseUrl = stub.url;
});

afterAll(() => stub.close());

beforeEach(() => {
  seen = [];
  handler = (req, res, body) => answer(res, body.input);
});

const opts = () => ({ baseUrl, model: 'test-model', dimensions: DIM, retryBaseMs: 10 });

async function rejection(p: Promise<unknown>): Promise<EmbedderError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(EmbedderError);
  return err as EmbedderError;
}

describe('OpenAI-compatible embedder', () => {
  it('probes dimensions when not configured and exposes a stable id', async () => {
    const e = await createOpenAiEmbedder({ baseUrl: baseUrl + '/', model: 'test-model' });
    expect(e.dimensions).toBe(DIM);
    expect(seen).toHaveLength(1);
    expect(e.id).toBe(`openai:test-model@${baseUrl}`);
  });

  it('splits large inputs into maxBatch requests and keeps order', async () => {
    const e = await createOpenAiEmbedder({ ...opts(), maxBatch: 3 });
    const texts = Array.from({ length: 8 }, (_, i) => 'x'.repeat(i + 1));
    const out = await e.embed(texts);
    expect(seen.map((s) => s.input.length)).toEqual([3, 3, 2]);
    expect(seen.every((s) => s.model === 'test-model')).toBe(true);
    out.forEach((v, i) => {
      const raw = vectorFor(texts[i]);
      const norm = Math.hypot(...raw);
      expect(v[0]).toBeCloseTo(raw[0] / norm, 5);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    });
  });

  it('orders results by index, not by position', async () => {
    handler = (req, res, body) => answer(res, body.input, true);
    const e = await createOpenAiEmbedder(opts());
    const out = await e.embed(['a', 'bbbbbb']);
    expect(out[0][0]).toBeLessThan(out[1][0]);
  });

  it('sends the API key as a Bearer token, and none without one', async () => {
    await (await createOpenAiEmbedder({ ...opts(), apiKey: 'sk-test' })).embed(['a']);
    await (await createOpenAiEmbedder(opts())).embed(['a']);
    expect(seen.map((s) => s.auth)).toEqual(['Bearer sk-test', undefined]);
  });

  it('gives zero vectors for empty texts without sending them', async () => {
    const e = await createOpenAiEmbedder(opts());
    const out = await e.embed(['', 'abc', '  ']);
    expect(seen[0].input).toEqual(['abc']);
    expect([...out[0]]).toEqual([0, 0, 0, 0]);
    expect([...out[2]]).toEqual([0, 0, 0, 0]);
    expect(await e.embed([])).toEqual([]);
  });

  it('retries a 500 and then succeeds', async () => {
    handler = (req, res, body, n) => {
      if (n === 1) res.writeHead(500).end('boom');
      else answer(res, body.input);
    };
    const out = await (await createOpenAiEmbedder(opts())).embed(['abc']);
    expect(seen).toHaveLength(2);
    expect(Math.hypot(...out[0])).toBeCloseTo(1, 5);
  });

  it('honours Retry-After on 429', async () => {
    handler = (req, res, body, n) => {
      if (n === 1) res.writeHead(429, { 'retry-after': '1' }).end('{"error":"rate limited"}');
      else answer(res, body.input);
    };
    const started = Date.now();
    await (await createOpenAiEmbedder(opts())).embed(['abc']);
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after maxRetries with a retryable error naming the status', async () => {
    handler = (req, res) => res.writeHead(503).end('overloaded');
    const err = await rejection((await createOpenAiEmbedder({ ...opts(), maxRetries: 2 })).embed(['abc']));
    expect(seen).toHaveLength(3);
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('503');
    expect(err.message).toContain('overloaded');
  });

  it('turns a stalling server into a retryable timeout error', async () => {
    handler = () => {}; // never answers
    const e = await createOpenAiEmbedder({ ...opts(), timeoutMs: 200, maxRetries: 1 });
    const err = await rejection(e.embed(['abc']));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out after 200 ms/);
    expect(seen).toHaveLength(2);
  });

  it('does not retry a 400 and reports URL, status and body', async () => {
    handler = (req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"input too long"}}');
    const err = await rejection((await createOpenAiEmbedder(opts())).embed(['abc']));
    expect(seen).toHaveLength(1);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('HTTP 400');
    expect(err.message).toContain(`${baseUrl}/embeddings`);
    expect(err.message).toContain('input too long');
  });

  it('retries a 200 whose body breaks the protocol (a proxy\'s HTML page, too few embeddings) as a server fault', async () => {
    for (const junk of ['<html><body>502 Bad Gateway</body></html>', '{"data":[]}', '{"data":[{"index":0,"embedding":"x"}]}']) {
      seen = [];
      handler = (req, res, body, n) => (n === 1 ? res.writeHead(200).end(junk) : answer(res, body.input));
      const out = await (await createOpenAiEmbedder(opts())).embed(['abc']);
      expect(seen).toHaveLength(2);
      expect(out[0]).toHaveLength(DIM);
      seen = [];
      handler = (req, res) => res.writeHead(200).end(junk);
      const err = await rejection((await createOpenAiEmbedder({ ...opts(), maxRetries: 1 })).embed(['abc']));
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/unexpected response/);
    }
  });

  it('rejects vectors of the wrong size as a configuration error', async () => {
    const err = await rejection((await createOpenAiEmbedder({ ...opts(), dimensions: 8 })).embed(['abc']));
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/4-d vectors but dimensions is configured as 8/);
  });

  it('reports a refused connection as retryable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const e = await createOpenAiEmbedder({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', dimensions: 4, maxRetries: 0 });
    const err = await rejection(e.embed(['abc']));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('stops waiting when the caller aborts', async () => {
    handler = () => {};
    const e = await createOpenAiEmbedder(opts());
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('caller gave up')), 50);
    await expect(e.embed(['abc'], ac.signal)).rejects.toThrow('caller gave up');
  });
});
