import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../../shared/errors/app-error.js';
import { bodyHasNul } from './reject-nul.js';

export interface JsonBodyOptions {
  /** Largest body in bytes. */
  limit: number;
  /** What sets the limit, named in the 413 so a client knows what it ran into (e.g. `QUARRY_MAX_BODY_BYTES`). */
  limitName: string;
  /** The whole body must have arrived within this long (a body that trickles in is answered 408); default: the server's request timeout alone. */
  deadlineMs?: number;
}

/** A request with a body: a Content-Length above 0, or a chunked one. */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Answers a request without reading its body. `Connection: close` makes Node close the connection
 * after the answer instead of reading (and discarding) the rest of a body that may be 20 MB, or endless.
 */
export function refuseUnread(req: Request, res: Response, next: NextFunction, err: unknown): void {
  if (hasBody(req)) res.set('Connection', 'close');
  next(err);
}

/**
 * Reads a JSON body (any content type: pushers using curl -d still get parsed, or a clear 400), for one
 * group of routes, mounted after that group's authentication or rate limit so nothing anonymous or
 * refused is buffered. A declared length over the limit is refused before a byte is read; a chunked body
 * is cut off at the limit.
 */
export function jsonBody(o: JsonBodyOptions): RequestHandler {
  const parse = express.json({ limit: o.limit, type: () => true, strict: false, verify: bodyHasNul });
  const tooLarge = (req: Request) => new AppError('payload_too_large',
    `Request body exceeds the ${o.limit} byte limit (${o.limitName})${isEncoded(req) ? ' once decompressed' : ''}; send a smaller one`);
  return (req, res, next) => {
    if (!hasBody(req)) return next();
    if (Number(req.headers['content-length']) > o.limit) return refuseUnread(req, res, next, tooLarge(req));
    const timer = o.deadlineMs === undefined ? undefined : setTimeout(() => cutOff(req, res, o.deadlineMs!), o.deadlineMs);
    parse(req, res, (err?: unknown) => {
      clearTimeout(timer);
      if (res.headersSent) return; // cut off: the 408 went out and the connection is closing
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') {
        res.set('Connection', 'close');
        return next(tooLarge(req));
      }
      next(err !== undefined && isEncoded(req) && !(err as { type?: string }).type ? undecodable(req, err) : err);
    });
  };
}

/** Content-Encoding other than identity: body-parser inflates gzip, deflate and br (415 for any other). */
function isEncoded(req: Request): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding !== undefined && encoding.toLowerCase() !== 'identity';
}

/**
 * body-parser gives every reading error a type, except the decompressor's own (zlib's Z_DATA_ERROR, brotli's
 * ERR_*), which it passes on as a bare 400 the error handler would answer 500: the client sent bytes that
 * do not inflate, so it is told which encoding failed.
 */
function undecodable(req: Request, err: unknown): AppError {
  const encoding = String(req.headers['content-encoding']);
  return new AppError('invalid_request', `Invalid request: the body is not valid ${encoding} data (Content-Encoding: ${encoding}); compress it with ${encoding}, or send it uncompressed without Content-Encoding`)
    .withInternal(`${(err as { code?: string }).code ?? ''} ${(err as Error).message ?? String(err)}`.trim());
}

/** A body still arriving at its deadline: 408 with the spec's body, then the connection is dropped. */
function cutOff(req: Request, res: Response, deadlineMs: number): void {
  if (req.complete || res.headersSent) return;
  const e = new AppError('request_timeout', `The request body did not arrive within ${deadlineMs / 1000} s; send it at once, or a smaller one`);
  res.status(e.status).set('Connection', 'close').json(e.toBody());
  res.once('finish', () => req.socket.destroy());
}
