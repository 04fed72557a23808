import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Histogram } from 'prom-client';
import type { Logger } from 'pino';
import type { Authenticator, Principal } from '../../shared/auth/api-keys.js';
import { clientNetwork } from '../../shared/auth/client-network.js';
import { AppError } from '../../shared/errors/app-error.js';
import { answerableError } from '../middleware/error-handler.js';
import { hasBody } from '../middleware/json-body.js';
import type { KeyFailureLimiter } from '../middleware/key-failure-limit.js';
import { nulInJson } from '../middleware/reject-nul.js';
import { logWhenDone, requestIdOf } from '../middleware/request-log.js';
import { secure } from '../middleware/security-headers.js';

/**
 * Routes answered before Express (api/http-server.ts), for the traffic that pays for every layer: on this
 * 2-core machine Express's per-request work (a prototype swapped on every request and response, ten layers
 * walked, properties added in varying order) cost as much as a durable write (docs/pipeline.md) and a
 * third of a content search (docs/engine.md). Each answers exactly as its routed twin (docs/decisions.md).
 */

/** Answers a request and returns true, or returns false for the app to route it. */
export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What every direct route needs to frame a request as the app's middleware would. */
export interface DirectDeps {
  auth: Authenticator;
  keyFailures: KeyFailureLimiter;
  latency: Histogram<'method' | 'route' | 'status'>;
  log: Logger;
  /** QUARRY_MAX_BODY_BYTES. */
  maxBodyBytes: number;
  /** The client address as Express's `req.ip` gives it (trust proxy applied). */
  addressOf: (req: IncomingMessage) => string | undefined;
}

/** The first route that answers; none, and the app routes the request. */
export function firstDirect(...routes: DirectRoute[]): DirectRoute {
  return (req, res) => routes.some((route) => route(req, res));
}

/** JSON in UTF-8, or no type at all (curl -d): the only bodies read here. Any other charset goes to body-parser. */
const PLAIN_JSON = /^(application\/json)?\s*(;\s*charset="?utf-8"?\s*)?$/i;

/** A request in the plain form a direct route takes: its key and its body's declared length. */
export interface PlainRequest {
  secret: string;
  length: number;
}

/**
 * An X-API-Key and a JSON body with a Content-Length within the limit, neither chunked nor compressed, in
 * UTF-8: else null, and the request is left to the app, before anything is read (a session or Basic auth,
 * compressed, chunked or over-long bodies, other charsets).
 */
export function plainRequest(req: IncomingMessage, maxBodyBytes: number): PlainRequest | null {
  const h = req.headers;
  const secret = h['x-api-key'];
  const length = Number(h['content-length']);
  if (typeof secret !== 'string' || secret === '' || !(length > 0 && length <= maxBodyBytes)
    || h['transfer-encoding'] !== undefined || (h['content-encoding'] !== undefined && h['content-encoding'].toLowerCase() !== 'identity')
    || (h['content-type'] !== undefined && !PLAIN_JSON.test(h['content-type']))) return null;
  return { secret, length };
}

/**
 * Frames `answer` as the app's middleware frames a routed request: the request id, the log line, the
 * latency under the route's pattern, the security headers, and any failure answered as the error handler would.
 */
export function serveDirect(d: DirectDeps, req: IncomingMessage, res: ServerResponse, route: string, answer: () => Promise<void>): void {
  const id = requestIdOf(req.headers['x-request-id']);
  res.setHeader('X-Request-Id', id);
  logWhenDone(d.log, req, res, id, req.url ?? '');
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    d.latency.observe({ method: req.method ?? '', route, status: String(res.statusCode) }, Number(process.hrtime.bigint() - start) / 1e9);
  });
  answer().catch((err: unknown) => answerError(d.log, req, res, id, err));
}

/** The client as every per-client rule counts it (api/middleware/client.ts's clientOf). */
export function clientOfDirect(d: DirectDeps, req: IncomingMessage): string {
  return clientNetwork(d.addressOf(req) ?? req.socket.remoteAddress ?? 'unknown');
}

/** Express's `req.protocol`: the connection's scheme, or a trusted proxy's X-Forwarded-Proto (its first value). */
export function protocolOf(req: IncomingMessage, trusted: (addr: string, i: number) => boolean): string {
  const own = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  if (!trusted(req.socket.remoteAddress ?? '', 0)) return own;
  const header = req.headers['x-forwarded-proto'];
  const value = (typeof header === 'string' && header) || own;
  const comma = value.indexOf(',');
  return (comma < 0 ? value : value.slice(0, comma)).trim();
}

/** As requireKey: a client out of wrong-key tries is refused before its key is looked at; a wrong key counts. */
export async function keyPrincipal(d: DirectDeps, req: IncomingMessage, secret: string): Promise<Principal> {
  const client = clientOfDirect(d, req);
  await d.keyFailures.check(client);
  const principal = await d.auth.authenticate(secret);
  if (!principal) {
    await d.keyFailures.fail(client);
    throw new AppError('invalid_api_key', 'Invalid API key');
  }
  return principal;
}

/** Returned by readJson when the client went away before its body arrived: there is no one to answer. */
export const GONE = Symbol('gone');

/** The body as jsonBody parses it (NUL check, then JSON, any value): exactly `length` bytes. */
export async function readJson(req: IncomingMessage, length: number): Promise<unknown> {
  const body = await readBody(req, length);
  if (body === null) return GONE;
  const nul = nulInJson(body);
  if (nul) throw nul;
  try {
    // body-parser's utf-8 decoding drops a byte-order mark; so does this.
    const text = body.toString('utf8');
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new AppError('invalid_json', 'Malformed JSON in the request body; send a valid JSON document with Content-Type: application/json');
  }
}

/** The body, exactly `length` bytes (Node's parser enforces the declared length); null when the request was aborted. */
function readBody(req: IncomingMessage, length: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    };
    const done = (value: Buffer | null) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      resolve(value);
    };
    const onEnd = () => done(received === length ? (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)) : null);
    // An aborted request errs, then closes: either way there is no one to answer.
    const onError = () => done(null);
    const onClose = () => done(null);
    req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

/** As Express's res.json (no ETag: the app turns them off). */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  secure(res);
  res.writeHead(status).end(body);
}

/** The error handler's answer, for a request Express never saw. */
function answerError(log: Logger, req: IncomingMessage, res: ServerResponse, id: string, err: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const e = answerableError(err, id, log);
  if (e.headers) for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
  // A body not read (refused before it was) is not read now either: close instead.
  if (hasBody(req) && !req.complete) res.setHeader('Connection', 'close');
  sendJson(res, e.status, e.toBody());
}
