import type { Request, RequestHandler } from 'express';
import { allows, type Authenticator } from '../../shared/auth/api-keys.js';
import { AppError } from '../../shared/errors/app-error.js';
import { presentedKey, secretOf } from './auth.js';
import type { KeyFailureLimiter } from './key-failure-limit.js';
import { sameToken } from './session-auth.js';

/** Whether the request was made with a key holding `admin` (set by optionalKey or requireKey). */
export const isAdmin = (req: Request) => req.principal !== undefined && allows(req.principal, 'admin');

/**
 * Sets `req.principal` when the request carries a valid key; without one (or with a wrong one) it passes anonymous.
 * A wrong key counts against the client all the same (an admin key changes what the route shows, which would
 * tell a guesser it was right); `otherCredential` names a secret that is no key (the metrics token).
 */
export function optionalKey(auth: Authenticator, failures: KeyFailureLimiter, otherCredential: (secret: string) => boolean = () => false): RequestHandler {
  return async (req, _res, next) => {
    const secret = secretOf(req) ?? bearerOf(req);
    const principal = await presentedKey(auth, failures, req, secret, otherCredential);
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
    if (isMetricsToken(token, bearerOf(req)) || isAdmin(req)) return next();
    if (req.principal) throw new AppError('forbidden', 'This API key lacks the \'admin\' permission, which metrics need');
    throw new AppError('invalid_api_key', 'Metrics need the metrics bearer token or a key with the admin permission (docs/security.md)');
  };
}

/** Whether `secret` is the configured metrics token (never, when none is configured). */
export const isMetricsToken = (token: string | undefined, secret: string | undefined) => token !== undefined && sameToken(secret, token);
