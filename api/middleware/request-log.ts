import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

const QUIET = new Set(['/healthz', '/metrics']);

/**
 * The URL as logged: path and the names of the query parameters, never their values. The search
 * interface's query strings carry what visitors typed and their session ids, which API.md says are
 * never stored raw (and a preview leaves no trace); other routes' values are not needed to operate.
 */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const names = new Set<string>();
  for (const part of url.slice(q + 1).split('&')) {
    const name = part.split('=', 1)[0];
    if (name) names.add(name.slice(0, 64));
  }
  return names.size ? `${url.slice(0, q)}?${[...names].join('&')}` : url.slice(0, q);
}

/** The caller's X-Request-Id when it is a sane token, else a new one. */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** Logs the request's one line once its response is sent; built only when `info` is enabled. */
export function logWhenDone(log: Logger, req: IncomingMessage, res: ServerResponse, id: string, url: string): void {
  if (!log.isLevelEnabled('info')) return;
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    log.info({
      reqId: id,
      req: { method: req.method, url: loggedUrl(url), remoteAddress: req.socket.remoteAddress },
      res: { statusCode: res.statusCode },
      responseTime: Number(process.hrtime.bigint() - start) / 1e6,
    }, 'request completed');
  });
}

/**
 * Request ids and one log line per request. Measured on the push route, pino-http's per-request
 * child logger and serializers cost ~10% of throughput even with logging off; here every line names
 * its `reqId` itself and completion lines are built only when `info` is enabled.
 */
export function requestLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = requestIdOf(req.headers['x-request-id']);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    req.log = log;
    if (!QUIET.has(req.path)) logWhenDone(log, req, res, id, req.originalUrl);
    next();
  };
}
