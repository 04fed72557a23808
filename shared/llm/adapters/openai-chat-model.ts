import { type ChatMessage, type ChatModel, ChatModelError, type CompletionOptions } from '../ports/chat-model.js';
import { abortableSleep } from '../abortable-sleep.js';

/**
 * Any server speaking OpenAI's `POST /chat/completions`: OpenAI itself, Ollama (/v1), vLLM,
 * llama.cpp's server, LM Studio, LiteLLM, ...
 */
export interface OpenAiChatModelOptions {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** One attempt, from sending the request to the end of the (streamed) reply (default 60000). */
  timeoutMs?: number;
  /**
   * Streaming only: time until the first event of the reply (default 20000), so a server that
   * accepted the request but never starts answering fails early. Not applied without onDelta,
   * where servers send nothing until the whole reply is generated.
   */
  firstTokenTimeoutMs?: number;
  /** Extra attempts after a retryable failure, only while nothing was passed to onDelta yet (default 2). */
  retries?: number;
  /** First backoff delay (default 500 ms), doubled per attempt, with jitter. */
  retryBaseMs?: number;
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch;
}

// Someone is waiting for this answer: a Retry-After beyond this is not worth sitting through;
// fail (retryably) at once and let the caller decide.
const MAX_RETRY_AFTER_MS = 10_000;
const BODY_SNIPPET = 300;
const MAX_ERROR_BODY = 64 * 1024;

interface ChoiceLike {
  index?: number;
  delta?: { content?: unknown };
  message?: { content?: unknown };
}
interface CompletionLike {
  choices?: ChoiceLike[];
  error?: unknown;
}

export class OpenAiChatModel implements ChatModel {
  readonly id: string;
  private readonly url: string;
  private readonly shownUrl: string;
  private readonly shownBase: string;
  private readonly timeoutMs: number;
  private readonly firstTokenTimeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseMs: number;

  constructor(private readonly opts: OpenAiChatModelOptions) {
    if (!opts.model) throw new ChatModelError('OpenAI-compatible chat model needs a model name', false);
    let parsed: URL;
    try {
      parsed = new URL(opts.baseUrl.replace(/\/+$/, '') + '/chat/completions');
    } catch (cause) {
      throw new ChatModelError(`LLM base URL "${opts.baseUrl}" is not a valid URL (expected e.g. http://127.0.0.1:11434/v1)`, false, undefined, { cause });
    }
    this.url = parsed.href;
    // Never echo credentials embedded in the URL into ids, logs or errors.
    parsed.username = '';
    parsed.password = '';
    this.shownUrl = parsed.href;
    this.shownBase = this.shownUrl.replace(/\/chat\/completions$/, '');
    this.id = `openai:${opts.model}@${this.shownBase}`;
    this.timeoutMs = positive(opts.timeoutMs, 60_000, 'timeoutMs');
    this.firstTokenTimeoutMs = positive(opts.firstTokenTimeoutMs, 20_000, 'firstTokenTimeoutMs');
    this.retries = Math.max(0, Math.floor(opts.retries ?? 2));
    this.retryBaseMs = Math.max(0, opts.retryBaseMs ?? 500);
  }

  async complete(messages: ChatMessage[], options: CompletionOptions = {}): Promise<string> {
    const { signal, onDelta } = options;
    const body = JSON.stringify({
      model: this.opts.model,
      messages: messages.map(({ role, content }) => ({ role, content })),
      stream: onDelta !== undefined,
      ...(options.maxTokens !== undefined && { max_tokens: options.maxTokens }),
      ...(options.temperature !== undefined && { temperature: options.temperature }),
    });
    // A retry after the caller has seen text would show that text twice.
    let delivered = false;
    const deliver = onDelta && ((text: string) => {
      delivered = true;
      onDelta(text);
    });
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      try {
        return await this.attempt(body, deliver, signal);
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (!(err instanceof RequestFailure)) throw err; // e.g. thrown by onDelta: not ours to retry
        const { error, retryAfterMs } = err;
        if (!error.retryable || delivered) throw error;
        if (attempt >= this.retries) throw attempt === 0 ? error : withNote(error, ` (gave up after ${attempt + 1} attempts)`);
        if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) {
          throw withNote(error, ` (the server asked to retry after ${Math.ceil(retryAfterMs / 1000)} s; not waiting that long for an answer)`);
        }
        // Full jitter on the upper half keeps many clients from retrying in lockstep.
        await abortableSleep(retryAfterMs ?? this.retryBaseMs * 2 ** attempt * (0.5 + Math.random() / 2), signal);
      }
    }
  }

  /** One HTTP exchange. Rejects with a RequestFailure, the caller's abort reason, or whatever onDelta threw. */
  private async attempt(body: string, deliver: ((text: string) => void) | undefined, signal?: AbortSignal): Promise<string> {
    const stream = deliver !== undefined;
    const where = `POST ${this.shownUrl} (model ${this.opts.model})`;
    const ctrl = new AbortController();
    let received = 0; // characters of reply text so far
    let events = 0;
    let timedOut: ChatModelError | undefined;
    const expire = (message: string) => {
      if (ctrl.signal.aborted) return;
      timedOut = new ChatModelError(`${where}: ${message}`, true);
      ctrl.abort(timedOut);
    };
    const overall = setTimeout(
      () => expire(received > 0 || events > 0
        ? `the model did not finish its answer within ${this.timeoutMs} ms (${received} characters received); raise the LLM timeout or ask for shorter answers`
        : `the model did not answer within ${this.timeoutMs} ms; is the server overloaded or still loading the model?`),
      this.timeoutMs,
    );
    let firstToken = stream
      ? setTimeout(() => expire(`the model did not answer within ${this.firstTokenTimeoutMs} ms (no first token); is the server overloaded or still loading the model?`), this.firstTokenTimeoutMs)
      : undefined;
    const gotFirstToken = () => {
      clearTimeout(firstToken);
      firstToken = undefined;
    };
    const onCallerAbort = () => ctrl.abort(signal!.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });

    /** Awaits a network step, turning its failure into what the caller should see. */
    const net = async <T>(step: Promise<T>, doing: 'connect' | 'read'): Promise<T> => {
      try {
        return await abortable(step, ctrl.signal);
      } catch (cause) {
        if (signal?.aborted) throw signal.reason;
        if (timedOut) throw new RequestFailure(timedOut);
        const why = describeNetworkError(cause);
        throw new RequestFailure(new ChatModelError(
          doing === 'connect'
            ? `${where} failed: ${why}; is the LLM server running and reachable at ${this.shownBase} (QUARRY_LLM_URL)?`
            : `${where}: the connection broke while reading the reply (${why}${received ? `, after ${received} characters` : ''})`,
          true, undefined, { cause },
        ));
      }
    };
    const malformed = (why: string, sample: string) =>
      new RequestFailure(new ChatModelError(`${where} returned a malformed reply (${why}): ${snippet(sample) || '(empty)'}`, false));

    let res: Response | undefined;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let finished = false;
    try {
      const doFetch = this.opts.fetch ?? fetch;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream, application/json' : 'application/json',
      };
      if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
      res = await net(doFetch(this.url, { method: 'POST', headers, body, signal: ctrl.signal }), 'connect');
      if (!res.body) {
        if (!res.ok) throw this.httpFailure(res, '', where);
        throw malformed('no body', '');
      }
      reader = res.body.getReader();
      const decoder = new TextDecoder();
      const read = async (): Promise<{ text: string; done: boolean }> => {
        const { done, value } = await net(reader!.read(), 'read');
        if (done) finished = true;
        return { text: done ? decoder.decode() : decoder.decode(value, { stream: true }), done };
      };

      if (!res.ok) {
        gotFirstToken(); // the server answered; its error body is short
        let text = '';
        while (text.length < MAX_ERROR_BODY) {
          const chunk = await read();
          text += chunk.text;
          if (chunk.done) break;
        }
        throw this.httpFailure(res, text, where);
      }

      // Without onDelta: one JSON document. With it: normally an event stream, but some servers
      // ignore `stream: true` and answer with JSON; tell them apart by the first character.
      let mode: 'sniff' | 'json' | 'sse' = stream ? 'sniff' : 'json';
      let raw = '';
      let head = ''; // start of the body, for error messages
      const sse = new SseDecoder();
      const parts: string[] = [];
      for (;;) {
        const { text, done } = await read();
        if (head.length < BODY_SNIPPET) head += text.slice(0, BODY_SNIPPET);
        let fresh = text;
        if (mode === 'sniff') {
          raw += text;
          const start = raw.trimStart();
          if (start === '' && !done) continue;
          mode = start.startsWith('{') ? 'json' : 'sse';
          fresh = raw;
          raw = '';
          if (mode === 'json') gotFirstToken(); // a whole reply is about to arrive
        }
        if (mode === 'json') {
          raw += fresh;
          if (!done) continue;
          const content = parseReply(raw, where, malformed);
          if (content && deliver) {
            received += content.length;
            deliver(content);
          }
          return content;
        }
        for (const data of sse.push(fresh, done)) {
          events++;
          gotFirstToken();
          if (data.trim() === '[DONE]') return parts.join('');
          const piece = parseChunk(data, where, malformed);
          if (piece) {
            parts.push(piece);
            received += piece.length;
            deliver!(piece);
            // The consumer may abort from inside onDelta: deliver nothing after that.
            if (signal?.aborted) throw signal.reason;
          }
        }
        if (done) {
          // Tolerated: servers that end the stream without [DONE].
          if (events === 0) throw malformed('expected an event stream of "data:" lines; is the base URL pointing at an OpenAI-compatible API?', head);
          return parts.join('');
        }
      }
    } finally {
      clearTimeout(overall);
      clearTimeout(firstToken);
      signal?.removeEventListener('abort', onCallerAbort);
      if (!finished) {
        // Returned early ([DONE]), failed, timed out or was aborted: release the socket now.
        if (reader) reader.cancel().catch(() => {});
        else res?.body?.cancel().catch(() => {});
        ctrl.abort();
      }
    }
  }

  private httpFailure(res: Response, body: string, where: string): RequestFailure {
    const { message, code } = serverError(body);
    const status = res.status;
    const head = `${where} returned HTTP ${status}${res.statusText ? ` ${res.statusText}` : ''}: ${message}`;
    let error: ChatModelError;
    if (status === 401 || status === 403) {
      error = new ChatModelError(`${head}; the server refused the credentials: check QUARRY_LLM_API_KEY${this.opts.apiKey ? '' : ' (none is set)'}`, false, status);
    } else if (status === 404) {
      error = new ChatModelError(
        `${head}; either the model "${this.opts.model}" does not exist on this server or the base URL ${this.shownBase} is wrong ` +
          '(it usually ends in /v1): check QUARRY_LLM_MODEL and QUARRY_LLM_URL',
        false, status,
      );
    } else if (status === 429 && code === 'insufficient_quota') {
      error = new ChatModelError(`${head}; the account is out of quota (check its billing), retrying will not help`, false, status);
    } else if (status === 408 || status === 429 || status >= 500) {
      error = new ChatModelError(`${head}${status === 429 ? '; rate limited' : '; the LLM server failed or is overloaded'}`, true, status);
    } else {
      error = new ChatModelError(`${head}; the server rejected the request`, false, status);
    }
    return new RequestFailure(error, error.retryable ? parseRetryAfter(res.headers) : undefined);
  }
}

/** Carries the Retry-After hint alongside the error a caller will eventually see. */
class RequestFailure extends Error {
  constructor(
    readonly error: ChatModelError,
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

type Malformed = (why: string, sample: string) => RequestFailure;

/** Text of a non-streamed reply: `choices[0].message.content`. */
function parseReply(body: string, where: string, malformed: Malformed): string {
  let json: CompletionLike;
  try {
    json = JSON.parse(body) as CompletionLike;
  } catch {
    throw malformed('not JSON; is the base URL pointing at an OpenAI-compatible API?', body);
  }
  if (json?.error !== undefined && json.error !== null) throw inBandError(json.error, where);
  const choice = firstChoice(json);
  if (!choice?.message || typeof choice.message !== 'object') throw malformed('no choices[0].message', body);
  const content = choice.message.content;
  if (content === null || content === undefined) return ''; // e.g. a refusal or only tool calls
  if (typeof content !== 'string') throw malformed('choices[0].message.content is not text', body);
  return content;
}

/** Text of one streamed chunk: `choices[0].delta.content` ('' for role-only, usage or filter chunks). */
function parseChunk(data: string, where: string, malformed: Malformed): string {
  let json: CompletionLike;
  try {
    json = JSON.parse(data) as CompletionLike;
  } catch {
    throw malformed('an event is not JSON', data);
  }
  if (json === null || typeof json !== 'object') throw malformed('an event is not a JSON object', data);
  // vLLM, Ollama and others report failures after the 200 as an event of their own.
  if (json.error !== undefined && json.error !== null) throw inBandError(json.error, where);
  const choice = firstChoice(json);
  const content = choice?.delta?.content;
  if (content === null || content === undefined) return '';
  if (typeof content !== 'string') throw malformed('delta.content is not text', data);
  return content;
}

function firstChoice(json: CompletionLike): ChoiceLike | undefined {
  if (!Array.isArray(json?.choices)) return undefined;
  return json.choices.find((c) => (c?.index ?? 0) === 0) ?? json.choices[0];
}

function inBandError(error: unknown, where: string): RequestFailure {
  const { message, code } = describeErrorObject(error);
  const numeric = typeof code === 'number' ? code : Number(code);
  const retryable = numeric === 429 || numeric >= 500;
  return new RequestFailure(new ChatModelError(`${where}: the server reported an error mid-reply: ${message}`, retryable, Number.isFinite(numeric) ? numeric : undefined));
}

function describeErrorObject(error: unknown): { message: string; code?: unknown } {
  if (typeof error === 'string') return { message: error };
  if (error && typeof error === 'object') {
    const e = error as { message?: unknown; code?: unknown; type?: unknown };
    if (typeof e.message === 'string') return { message: e.message, code: e.code ?? e.type };
  }
  return { message: snippet(JSON.stringify(error) ?? String(error)) };
}

/** The message of an error body: OpenAI/vLLM `{error:{message}}`, `{error:"..."}`, `{message}`, FastAPI `{detail}`, or the raw text. */
function serverError(body: string): { message: string; code?: unknown } {
  try {
    const json = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown };
    if (json && typeof json === 'object') {
      if (json.error !== undefined && json.error !== null) return describeErrorObject(json.error);
      if (typeof json.message === 'string') return { message: json.message };
      if (typeof json.detail === 'string') return { message: json.detail };
    }
  } catch {
    // not JSON: use the text
  }
  return { message: snippet(body) || '(empty body)' };
}

/**
 * Server-sent events (the subset OpenAI-compatible servers use): returns the `data` of each event
 * completed by the text fed in. Lines may end in LF, CRLF or CR and chunks may split anywhere;
 * comments and other fields are ignored.
 */
class SseDecoder {
  private buffer = '';
  private data: string[] = [];

  push(text: string, eof: boolean): string[] {
    this.buffer += text;
    const out: string[] = [];
    // A CR at the very end may be the first half of a CRLF: keep it until more text arrives.
    const eol = /\r\n|\n|\r(?!$)/g;
    let start = 0;
    for (let m = eol.exec(this.buffer); m; m = eol.exec(this.buffer)) {
      this.line(this.buffer.slice(start, m.index), out);
      start = m.index + m[0].length;
    }
    this.buffer = this.buffer.slice(start);
    if (eof) {
      if (this.buffer) this.line(this.buffer.replace(/\r$/, ''), out);
      this.buffer = '';
      this.line('', out); // a last event without its blank line
    }
    return out;
  }

  private line(line: string, out: string[]): void {
    if (line === '') {
      if (this.data.length) out.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return; // comment / keep-alive
    const colon = line.indexOf(':');
    if ((colon === -1 ? line : line.slice(0, colon)) !== 'data') return; // event:, id:, retry:
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    // Tolerate servers that omit the blank line between events: a pending event that is
    // already complete JSON cannot be continued by another data line.
    if (this.data.length && isComplete(this.data.join('\n'))) {
      out.push(this.data.join('\n'));
      this.data = [];
    }
    this.data.push(value);
  }
}

function isComplete(data: string): boolean {
  if (data.trim() === '[DONE]') return true;
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}

function withNote(error: ChatModelError, note: string): ChatModelError {
  return new ChatModelError(error.message + note, error.retryable, error.status, { cause: error.cause });
}

function snippet(text: string): string {
  return text.slice(0, BODY_SNIPPET).replace(/\s+/g, ' ').trim();
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) throw new ChatModelError(`${name} must be a positive number of milliseconds, got ${value}`, false);
  return value;
}

function describeNetworkError(err: unknown): string {
  // undici wraps the interesting part ("connect ECONNREFUSED 127.0.0.1:9", "other side closed") in cause.
  const cause = (err as { cause?: { message?: string; code?: string } })?.cause;
  return cause?.message || cause?.code || (err instanceof Error ? err.message : String(err));
}

/** `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date). */
function parseRetryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(wait) ? Math.max(wait, 0) : undefined;
}

/** Settles with `step`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(step: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    step.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    step.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

