import type { z } from 'zod';
import type { chatResponseSchema, summaryResponseSchema, searchInterfaceResponseSchema } from '../../api/schemas/search-interface-schemas';
import type { WidgetOptions } from './options';
import { device, sessionId } from './session';

/** What went wrong, sorted by what the visitor can do about it. */
export class WidgetError extends Error {
  constructor(readonly kind: 'origin' | 'rate' | 'network' | 'server', message: string) {
    super(message);
  }
}

// The server's own response schemas: the widget reads exactly what the routes promise.
type Summary = z.infer<typeof summaryResponseSchema>;
type ChatReply = z.infer<typeof chatResponseSchema>;
export type Reference = Summary['references'][number];
export type Answer = Partial<Summary & ChatReply> & Pick<Summary, 'status' | 'references'>;
export type SearchResult = z.infer<typeof searchInterfaceResponseSchema>['results'][number];

type Params = Record<string, string | number | boolean | undefined>;

/**
 * The search interface as the widget calls it. Every request is cross-origin, so only CORS-simple GETs
 * (Accept is a safelisted header) and JSON POSTs, never credentials.
 */
export class Client {
  constructor(private readonly o: WidgetOptions) {}

  url(path: string, params: Params = {}): string {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries({ uid: this.o.uid, ...params })) if (v !== undefined) search.set(k, String(v));
    return `${this.o.baseUrl}/v1/${this.o.variant}/${path}?${search}`;
  }

  /** The parameters that make a request count (or not) for this visit. */
  tracking(): Params {
    return { 'session-id': sessionId(), device: device(), preview: this.o.preview || undefined };
  }

  async json<T>(path: string, params: Params, signal?: AbortSignal): Promise<T> {
    return (await (await this.send(this.url(path, params), { signal, headers: { accept: 'application/json' } })).json()) as T;
  }

  /** A summary (GET) or chat reply (POST, JSON body) streamed as it is written. */
  async answer(path: string, params: Params, signal: AbortSignal, onDelta: (text: string) => void): Promise<Answer> {
    const accept = 'text/event-stream';
    const res = path === 'chat'
      ? await this.send(this.url(path), {
        method: 'POST', signal, body: JSON.stringify({ uid: this.o.uid, ...params }), headers: { accept, 'content-type': 'application/json' },
      })
      : await this.send(this.url(path, params), { signal, headers: { accept } });
    return readAnswer(res, onDelta);
  }

  /**
   * A notice that must survive the page navigating away (a followed link): keepalive, and a text/plain body
   * with no-cors so no preflight is needed (the server parses any body as JSON). Nothing waits for it.
   */
  beacon(path: string, body: Record<string, string>): void {
    const href = `${this.o.baseUrl}/v1/${this.o.variant}/${path}`;
    const data = JSON.stringify(body);
    try {
      fetch(href, { method: 'POST', body: data, keepalive: true, mode: 'no-cors', credentials: 'omit' }).catch(() => undefined);
    } catch {
      navigator.sendBeacon?.(href, data);
    }
  }

  private async send(href: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(href, { ...init, credentials: 'omit' });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw await this.unreachable();
    }
    if (res.ok) return res;
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    const message = body?.message ?? `The search service answered ${res.status}.`;
    if (res.status === 403) throw new WidgetError('origin', message);
    if (res.status === 429) {
      const seconds = Number(res.headers.get('retry-after')) || Number(/retry in (\d+)/.exec(message)?.[1]) || 10;
      throw new WidgetError('rate', `Too many requests, try again in ${seconds} s.`);
    }
    throw new WidgetError('server', message);
  }

  /**
   * A refused origin gets a 403 without CORS headers, which a browser reports exactly like a network failure.
   * An opaque (no-cors) request tells them apart: it succeeds whenever the service answers at all.
   */
  private async unreachable(): Promise<WidgetError> {
    try {
      await fetch(this.url('top-questions'), { mode: 'no-cors', credentials: 'omit' });
      return new WidgetError('origin',
        `This website (${location.origin}) is not allowed to use this search: add it to the allowed origins of configuration ${this.o.uid}.`);
    } catch {
      return new WidgetError('network', 'The search service cannot be reached. Check your connection and try again.');
    }
  }
}

/**
 * Reads a summary or chat answer sent as server-sent events (`delta` {text} as it is written, `references`,
 * `done` with the whole answer, or `error` {code, message}); a plain JSON response is the whole answer at once.
 */
export async function readAnswer(res: Response, onDelta: (text: string) => void): Promise<Answer> {
  if (!(res.headers.get('content-type') ?? '').includes('event-stream') || !res.body) return (await res.json()) as Answer;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new WidgetError('network', 'The answer was cut off. Try again.');
    buffer += value.replace(/\r/g, '');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      let event = 'message';
      let data = '';
      for (const line of buffer.slice(0, end).split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        if (line.startsWith('data:')) data += line.slice(line[5] === ' ' ? 6 : 5);
      }
      buffer = buffer.slice(end + 2);
      if (!data) continue;
      const payload = JSON.parse(data) as { text: string; message: string } & Answer;
      if (event === 'delta') onDelta(payload.text);
      if (event === 'error') throw new WidgetError('server', payload.message);
      if (event === 'done') return payload;
    }
  }
}

export const isAbort = (err: unknown) => err instanceof DOMException && err.name === 'AbortError';
