import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../../shared/errors/app-error.js';

const MESSAGE = 'contains the NUL character (U+0000), which no field accepts; remove it';

/**
 * No text Quarry stores may hold U+0000: PostgreSQL refuses it in text, so one store would take what
 * the other cannot. Refused at the edge, alike for both backends: in the URL (path and query, `%00`)
 * here, and in JSON bodies by `bodyHasNul` while they are parsed.
 */
export function rejectNulInUrl(req: Request, _res: Response, next: NextFunction): void {
  if (/%00/i.test(req.url)) throw new AppError('invalid_request', `Invalid request: the URL ${MESSAGE}`);
  next();
}

/** express.json's `verify`: a JSON body escaping a NUL (`\u0000` after an even run of backslashes) is a 400. */
export function bodyHasNul(_req: Request, _res: Response, buf: Buffer): void {
  const e = nulInJson(buf);
  if (e) throw Object.assign(e, { type: 'entity.verify.failed' });
}

/** The 400 for a JSON text that escapes a NUL (`\u0000` after an even run of backslashes), or null. */
export function nulInJson(buf: Buffer): AppError | null {
  for (let i = buf.indexOf('\\u0000'); i !== -1; i = buf.indexOf('\\u0000', i + 1)) {
    let slashes = 0;
    for (let j = i - 1; j >= 0 && buf[j] === 0x5c; j--) slashes++;
    if (slashes % 2 === 0) return new AppError('invalid_request', `Invalid request: the body ${MESSAGE}`);
  }
  return null;
}
