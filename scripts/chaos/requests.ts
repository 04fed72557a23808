import { GENERATION_TIMEOUT_S } from './cluster.js';

export type RequestKind = 'batch' | 'put' | 'delete' | 'search' | 'summary' | 'chat';
export const PUSH_KINDS: RequestKind[] = ['batch', 'put', 'delete'];
export const ALL_KINDS: RequestKind[] = ['batch', 'put', 'delete', 'search', 'summary', 'chat'];

/**
 * How long the client waits before it calls a request hung. The service has a timeout for
 * generation (504 after it), so summaries and chats get that plus a margin; push and search have
 * none, so they get a budget well above anything a healthy service needs (they answer in ms).
 */
export const DEADLINE_MS: Record<RequestKind, number> = {
  batch: 15_000, put: 15_000, delete: 15_000, search: 10_000,
  summary: (GENERATION_TIMEOUT_S + 5) * 1000, chat: (GENERATION_TIMEOUT_S + 5) * 1000,
};

/** `ok` 2xx; `http` any other status; `net` no answer (refused, reset); `hung` past its deadline. */
export type Outcome = 'ok' | 'http' | 'net' | 'hung';

export interface RequestRecord {
  kind: RequestKind;
  start: number;
  end: number;
  status: number;
  outcome: Outcome;
  /** For statuses >= 400: the body is the spec's `{code: <status>, message: <non-empty text>}`. */
  specBody: boolean;
  /** First characters of the body or the network error, for 5xx and failures. */
  detail?: string;
}

export interface Reply {
  record: RequestRecord;
  json: unknown;
  headers: Headers | null;
}

/** Every request of the load, in order of their ends; the scenario's figures are computed from it. */
export class Recorder {
  readonly records: RequestRecord[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {}

  async call(kind: RequestKind, method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Reply> {
    const start = Date.now();
    const record: RequestRecord = { kind, start, end: start, status: 0, outcome: 'net', specBody: false };
    let json: unknown = null;
    let headers: Headers | null = null;
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extraHeaders },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(DEADLINE_MS[kind]),
      });
      const text = await res.text();
      headers = res.headers;
      record.status = res.status;
      record.outcome = res.ok ? 'ok' : 'http';
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = null;
      }
      if (!res.ok) {
        const b = json as { code?: unknown; message?: unknown } | null;
        record.specBody = !!b && b.code === res.status && typeof b.message === 'string' && b.message.length > 0;
        record.detail = text.slice(0, 300);
      }
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      record.outcome = e.name === 'TimeoutError' ? 'hung' : 'net';
      record.detail = e.cause?.code ?? e.cause?.message ?? e.message;
    }
    record.end = Date.now();
    this.records.push(record);
    return { record, json, headers };
  }

  /** Records from `from` on (a scenario's share). */
  since(from: number): RequestRecord[] {
    return this.records.slice(from);
  }
}
