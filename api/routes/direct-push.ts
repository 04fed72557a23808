import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Histogram } from 'prom-client';
import type { Logger } from 'pino';
import { allows, type Authenticator } from '../../shared/auth/api-keys.js';
import { clientNetwork } from '../../shared/auth/client-network.js';
import { AppError } from '../../shared/errors/app-error.js';
import { answerableError } from '../middleware/error-handler.js';
import type { KeyFailureLimiter } from '../middleware/key-failure-limit.js';
import { nulInJson } from '../middleware/reject-nul.js';
import { logWhenDone, requestIdOf } from '../middleware/request-log.js';
import { secure } from '../middleware/security-headers.js';
import { pushDocumentSchema } from '../schemas/push-schemas.js';
import { validate } from '../schemas/validate.js';
import type { PushService } from '../services/push-service.js';
import { checkUid, PUT_DOCUMENT_ROUTE } from './push-documents.js';

/** Answers a request and returns true, or returns false for the app to route it. */
export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface DirectPushDeps {
  push: PushService;
  auth: Authenticator;
  keyFailures: KeyFailureLimiter;
  latency: Histogram<'method' | 'route' | 'status'>;
  log: Logger;
  /** QUARRY_MAX_BODY_BYTES. */
  maxBodyBytes: number;
  /** The client address as Express's `req.ip` gives it (trust proxy applied). */
  addressOf: (req: IncomingMessage) => string | undefined;
}

/**
 * Index and document uids without %-escapes, no query, no trailing slash: the form pushers send. Anything
 * else (escaped or over-long uids, the other spellings Express also matches: any letter case, a trailing
 * slash) is routed by the app.
 */
const PATH = /^\/v2\/indexes\/([^/?#%]{1,64})\/documents\/([^/?#%]{1,512})$/;
/** JSON in UTF-8, or no type at all (curl -d): the only bodies read here. Any other charset goes to body-parser. */
const PLAIN_JSON = /^(application\/json)?\s*(;\s*charset="?utf-8"?\s*)?$/i;

/**
 * PUT /v2/indexes/{index_uid}/documents/{document_uid}, the push route that carries the traffic, answered
 * without Express: on this 2-core machine Express's per-request work (a prototype swapped on every request
 * and response, ten layers walked, properties added in varying order) cost as much as the durable write
 * itself (docs/pipeline.md). Same contract as the routed PUT (push-documents.ts): the same key check and
 * wrong-key limit, permission, body limit, NUL check, validation, headers, log line and metric, and the
 * same error bodies. Any request outside the plain form (no X-API-Key, a session, compressed or chunked
 * bodies, bodies over the limit, other charsets, escaped uids) is left to the app, before anything is read.
 */
export function directPush(d: DirectPushDeps): DirectRoute {
  return (req, res) => {
    if (req.method !== 'PUT') return false;
    const url = req.url ?? '';
    const match = PATH.exec(url);
    if (!match) return false;
    const h = req.headers;
    const secret = h['x-api-key'];
    const length = Number(h['content-length']);
    if (typeof secret !== 'string' || secret === '' || !(length > 0 && length <= d.maxBodyBytes)
      || h['transfer-encoding'] !== undefined || (h['content-encoding'] !== undefined && h['content-encoding'].toLowerCase() !== 'identity')
      || (h['content-type'] !== undefined && !PLAIN_JSON.test(h['content-type']))) return false;

    const id = requestIdOf(h['x-request-id']);
    res.setHeader('X-Request-Id', id);
    logWhenDone(d.log, req, res, id, url);
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      d.latency.observe({ method: 'PUT', route: PUT_DOCUMENT_ROUTE, status: String(res.statusCode) }, Number(process.hrtime.bigint() - start) / 1e9);
    });
    accept(d, req, res, match[1], match[2], secret, length).catch((err: unknown) => answerError(d.log, req, res, id, err));
    return true;
  };
}

async function accept(d: DirectPushDeps, req: IncomingMessage, res: ServerResponse, indexUid: string, documentUid: string, secret: string, length: number) {
  // As requireKey and requirePermission: a client out of wrong-key tries is refused before its key is looked at.
  const client = clientNetwork(d.addressOf(req) ?? 'unknown');
  await d.keyFailures.check(client);
  const principal = await d.auth.authenticate(secret);
  if (!principal) {
    await d.keyFailures.fail(client);
    throw new AppError('invalid_api_key', 'Invalid API key');
  }
  const body = await readBody(req, length);
  if (body === null) return; // the client went away
  const nul = nulInJson(body);
  if (nul) throw nul;
  let doc: unknown;
  try {
    // body-parser's utf-8 decoding drops a byte-order mark; so does this.
    const text = body.toString('utf8');
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new AppError('invalid_json', 'Malformed JSON in the request body; send a valid JSON document with Content-Type: application/json');
  }
  // The routed PUT checks the permission once the body is read; so does this, for the same answers.
  if (!allows(principal, 'write', indexUid)) throw new AppError('forbidden', `This API key lacks the 'write' permission on index '${indexUid}'`);
  const uid = checkUid(documentUid);
  const index = await d.push.pushIndex(indexUid);
  const outcome = await d.push.upsert(index, uid, validate(pushDocumentSchema, doc ?? {}, 'invalid_document'));
  if (outcome.version !== null) res.setHeader('X-Quarry-Version', String(outcome.version));
  secure(res);
  res.writeHead(204).end();
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

/** The error handler's answer, for a request Express never saw. */
function answerError(log: Logger, req: IncomingMessage, res: ServerResponse, id: string, err: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const e = answerableError(err, id, log);
  if (e.headers) for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
  // A body not read (refused before it was) is not read now either: close instead.
  if (!req.complete) res.setHeader('Connection', 'close');
  const body = JSON.stringify(e.toBody());
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  secure(res);
  res.writeHead(e.status).end(body);
}
