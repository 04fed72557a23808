import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../shared/errors/app-error.js';
import { storageFailure } from '../../shared/storage/storage-errors.js';
import { hasBody } from './json-body.js';

interface HttpParserError {
  type?: string;
  status?: number;
  limit?: number;
  encoding?: string;
  charset?: string;
}

/** body-parser's failures become the spec's error body with a message a client can act on. */
function fromParser(err: HttpParserError): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', 'Malformed JSON in the request body; send a valid JSON document with Content-Type: application/json');
    case 'entity.too.large':
      return new AppError('payload_too_large', `Request body exceeds the ${err.limit} byte limit (QUARRY_MAX_BODY_BYTES); split it into smaller requests`);
    case 'encoding.unsupported':
      return new AppError('unsupported_media_type',
        `Unsupported Content-Encoding '${String(err.encoding).slice(0, 100)}'; send the body uncompressed, or compressed with gzip, deflate or br`);
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', `Unsupported charset '${String(err.charset).slice(0, 100)}' in Content-Type; send UTF-8 JSON`);
    case 'request.aborted':
      return new AppError('invalid_request', 'The request body was cut off before it was complete');
    default:
      return null;
  }
}

/** The router's refusal of a path parameter whose %-escapes are not UTF-8 (a URIError it marks 400). */
function fromRouting(err: unknown): AppError | null {
  if (!(err instanceof URIError) || (err as { status?: unknown }).status !== 400) return null;
  const value = /'(.*)'$/.exec(err.message)?.[1] ?? '';
  return new AppError('invalid_request', `Invalid request: the path segment '${value.slice(0, 100)}' is not percent-encoded UTF-8; encode identifiers with encodeURIComponent`);
}

/**
 * What a failure is told as (the spec's error), logged: 4xx at info, 5xx at error with the cause; no
 * internals leak. Shared by the error handler and the push route Express does not route (direct-push.ts).
 */
export function answerableError(err: unknown, reqId: string, log: Logger | undefined): AppError {
  const appError = err instanceof AppError ? err : (fromParser(err as HttpParserError) ?? fromRouting(err) ?? storageFailure(err));
  const e = appError ?? new AppError('internal', `Internal error; quote request id ${reqId} when reporting it`);
  if (e.status >= 500) log?.error({ reqId, err, ...(e.internal ? { internal: e.internal } : {}) }, 'request failed');
  else log?.info({ reqId, error: e.kind, message: e.message, ...(e.internal ? { internal: e.internal } : {}) }, 'request rejected');
  return e;
}

/** The one place errors of routed requests become responses. */
export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const e = answerableError(err, String(req.id), req.log);
  if (e.headers) res.set(e.headers);
  // A body never read (refused before its group's parser, or no route) is not read now either: close instead.
  if (!res.headersSent && hasBody(req) && !req.complete) res.set('Connection', 'close');
  if (res.headersSent) {
    res.end();
    return;
  }
  res.status(e.status).json(e.toBody());
}

export function notFound(req: Request): never {
  throw new AppError('route_not_found', `No route ${req.method} ${req.path}; see GET /openapi.json for the API`);
}
