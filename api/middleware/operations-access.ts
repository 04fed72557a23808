import type { Request, RequestHandler } from 'express';
import { allows, type Authenticator } from '../../shared/auth/api-keys.js';
import { AppError } from '../../shared/errors/app-error.js';
import { secretOf } from './auth.js';
import { sameToken } from './session-auth.js';

/** Whether the request was made with a key holding `admin` (set by optionalKey or requireKey). */
export const isAdmin = (req: Request) => req.principal !== undefined && allows(req.principal, 'admin');

/** Sets `req.principal` when the request carries a valid key; without one (or with a wrong one) it passes anonymous. */
export function optionalKey(auth: Authenticator): RequestHandler {
  return async (req, _res, next) => {
    const secret = secretOf(req) ?? bearerOf(req);
    const principal = secret === undefined ? null : await auth.authenticate(secret);
    if (principal) req.principal = principal;
    next();
  };
}

const bearerOf = (req: Request) => req.get('authorization')?.match(/^Bearer (.+)$/i)?.[1];

/**
 * /metrics names queues, routes and job volumes: a scraper shows `Authorization: Bearer <QUARRY_METRICS_TOKEN>`,
 * or a key with `admin` (X-API-Key, Basic with the key as password, or Bearer). Mount after optionalKey.
 */
export function requireMetricsAccess(token: string | undefined): RequestHandler {
  return (req, _res, next) => {
    if ((token !== undefined && sameToken(bearerOf(req), token)) || isAdmin(req)) return next();
    if (req.principal) throw new AppError('forbidden', 'This API key lacks the \'admin\' permission, which metrics need');
    throw new AppError('invalid_api_key', 'Metrics need the metrics bearer token or a key with the admin permission (docs/security.md)');
  };
}
