import { type Embedder, EmbedderError, l2NormaliseInPlace } from '../ports/embedder.js';
import { abortableSleep } from '../abortable-sleep.js';
import { timeoutSignal } from '../timeout-signal.js';

/**
 * Any server speaking OpenAI's `POST /embeddings`: OpenAI itself, Ollama (/v1),
 * vLLM, HuggingFace text-embeddings-inference, LiteLLM, ...
 */
export interface OpenAiEmbedderOptions {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** If absent, learned by embedding one probe text in createOpenAiEmbedder. */
  dimensions?: number;
  /** Texts per HTTP request (default 64); servers cap batch size and body size. */
  maxBatch?: number;
  /** Per attempt (default 30000). */
  timeoutMs?: number;
  /** Extra attempts after a retryable failure (default 3). */
  maxRetries?: number;
  /** First backoff delay (default 500 ms), doubled per attempt, with jitter. */
  retryBaseMs?: number;
}

// A Retry-After beyond this is not worth holding a worker for: fail retryably
// and let the job queue come back later instead.
const MAX_RETRY_AFTER_MS = 60_000;
const BODY_SNIPPET = 300;

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  readonly remote = true;
  private readonly url: string;
  private readonly shownUrl: string;

  constructor(
    private readonly opts: OpenAiEmbedderOptions,
    readonly dimensions: number,
  ) {
    let parsed: URL;
    try {
      parsed = new URL(opts.baseUrl.replace(/\/+$/, '') + '/embeddings');
    } catch (cause) {
      throw new EmbedderError(`embeddings base URL "${opts.baseUrl}" is not a valid URL (expected e.g. http://127.0.0.1:11434/v1)`, false, { cause });
    }
    this.url = parsed.href;
    // Never echo credentials embedded in the URL into ids, logs or errors.
    parsed.username = '';
    parsed.password = '';
    this.shownUrl = parsed.href;
    this.id = `openai:${opts.model}@${this.shownUrl.replace(/\/embeddings$/, '')}`;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    // Most servers reject "" with a 400; the contract says empty text is a zero vector.
    const todo: number[] = [];
    texts.forEach((t, i) => (t.trim() === '' ? (out[i] = new Float32Array(this.dimensions)) : todo.push(i)));
    const maxBatch = Math.max(1, this.opts.maxBatch ?? 64);
    for (let start = 0; start < todo.length; start += maxBatch) {
      const slice = todo.slice(start, start + maxBatch);
      const vectors = await this.withRetries(slice.map((i) => texts[i]), signal);
      slice.forEach((i, k) => (out[i] = vectors[k]));
    }
    return out;
  }

  /** Raw vectors of one batch; also used to probe `dimensions` (pass NaN then). */
  async withRetries(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const maxRetries = this.opts.maxRetries ?? 3;
    const base = this.opts.retryBaseMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request(input, signal);
      } catch (err) {
        if (!(err instanceof RequestFailure) || !err.error.retryable || attempt >= maxRetries) {
          throw err instanceof RequestFailure ? err.error : err;
        }
        // Full jitter on the upper half keeps a fleet of workers from retrying in lockstep.
        const backoff = base * 2 ** attempt * (0.5 + Math.random() / 2);
        await abortableSleep(err.retryAfterMs ?? backoff, signal);
      }
    }
  }

  private async request(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const timeout = timeoutSignal(timeoutMs, 'the embeddings request');
    const where = `POST ${this.shownUrl} (model ${this.opts.model})`;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    let res: Response;
    let body: string;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.opts.model, input }),
        signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
      });
      body = await res.text();
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.signal.aborted) throw failure(`${where} timed out after ${timeoutMs} ms; is the server overloaded? (raise timeoutMs or lower maxBatch)`, true, cause);
      // Refused/reset/DNS failures are usually a server that is (re)starting.
      throw failure(`${where} failed: ${describeNetworkError(cause)}; is the embeddings server running and reachable?`, true, cause);
    } finally {
      timeout.clear();
    }
    if (!res.ok) {
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      const hint =
        res.status === 401 || res.status === 403 ? ' (check the API key)'
        : res.status === 404 ? ' (check the base URL, which usually ends in /v1, and the model name)'
        : '';
      const snippet = body.slice(0, BODY_SNIPPET).replace(/\s+/g, ' ').trim();
      const error = new EmbedderError(`${where} returned HTTP ${res.status} ${res.statusText}${hint}: ${snippet || '(empty body)'}`, retryable);
      throw new RequestFailure(error, res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers.get('retry-after')) : undefined);
    }
    return this.parse(body, input.length, where);
  }

  private parse(body: string, expected: number, where: string): Float32Array[] {
    // A 200 that breaks the protocol is most often a proxy's error page or a server having a bad
    // moment: retried like a 5xx (the pipeline gives up after its attempts). Vectors of another
    // size are a configuration error and are not (see below).
    const bad = (why: string, retryable = true): never => {
      throw new RequestFailure(new EmbedderError(`${where} returned an unexpected response (${why}): ${body.slice(0, BODY_SNIPPET)}`, retryable));
    };
    let json: EmbeddingsResponse;
    try {
      json = JSON.parse(body) as EmbeddingsResponse;
    } catch {
      return bad('not JSON; is the base URL pointing at an OpenAI-compatible API?');
    }
    if (!Array.isArray(json.data) || json.data.length !== expected) bad(`expected ${expected} embeddings in "data"`);
    const out: Float32Array[] = new Array(expected);
    // Servers may answer out of order; "index" is authoritative.
    json.data!.forEach((item, k) => {
      const i = typeof item.index === 'number' ? item.index : k;
      if (!Array.isArray(item.embedding) || !(i >= 0 && i < expected) || out[i]) bad(`bad item at position ${k}`);
      const e = item.embedding as number[];
      if (!Number.isNaN(this.dimensions) && e.length !== this.dimensions) {
        bad(`model returned ${e.length}-d vectors but dimensions is configured as ${this.dimensions}`, false);
      }
      out[i] = l2NormaliseInPlace(Float32Array.from(e));
    });
    return out;
  }
}

/** Carries the Retry-After hint alongside the error a caller will eventually see. */
class RequestFailure extends Error {
  constructor(
    readonly error: EmbedderError,
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

function failure(message: string, retryable: boolean, cause: unknown): RequestFailure {
  return new RequestFailure(new EmbedderError(message, retryable, { cause }));
}

function describeNetworkError(err: unknown): string {
  // undici wraps the interesting part ("connect ECONNREFUSED 127.0.0.1:9") in cause.
  const cause = (err as { cause?: { message?: string; code?: string } })?.cause;
  return cause?.message ?? cause?.code ?? (err instanceof Error ? err.message : String(err));
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}


/** Builds the embedder, asking the server once for the vector size when it is not configured. */
export async function createOpenAiEmbedder(opts: OpenAiEmbedderOptions): Promise<OpenAiEmbedder> {
  if (!opts.model) throw new EmbedderError('OpenAI-compatible embedder needs a model name', false);
  if (opts.dimensions !== undefined) {
    if (!(Number.isInteger(opts.dimensions) && opts.dimensions > 0)) {
      throw new EmbedderError(`embedding dimensions must be a positive integer, got ${opts.dimensions}`, false);
    }
    return new OpenAiEmbedder(opts, opts.dimensions);
  }
  const [probe] = await new OpenAiEmbedder(opts, NaN).withRetries(['dimension probe']);
  if (probe.length === 0) throw new EmbedderError(`${opts.baseUrl}: the model returned an empty embedding`, false);
  return new OpenAiEmbedder(opts, probe.length);
}
