import type { NextFunction, Request, Response } from 'express';
import { allows, type Authenticator, type Principal } from '../../shared/auth/api-keys.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { WebSessions } from '../../shared/auth/web-sessions.js';
import type { Permission } from '../../shared/storage/ports/key-store.js';
import { clientOf } from './client.js';
import type { KeyFailureLimiter } from './key-failure-limit.js';
import { authenticateSession, type CsrfHeader, isSafeMethod, SESSION_EXPIRED, sessionTokenOf } from './session-auth.js';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}

/** Basic auth is accepted too (any user, the key as password) so a browser can open the dashboard. */
export function secretOf(req: Request): string | undefined {
  const header = req.get('x-api-key');
  if (header) return header;
  const basic = req.get('authorization')?.match(/^Basic (.+)$/i);
  if (basic) return Buffer.from(basic[1], 'base64').toString('utf8').split(':').slice(1).join(':');
  return undefined;
}

export interface KeyOptions {
  /** Answer 401 with a Basic challenge, so a browser asks for the key (the dashboard). */
  challenge?: boolean;
  /** Accept the web app's session cookie too (an explicit key, when sent, wins). */
  sessions?: WebSessions;
  /** Accept the cookie only on GET/HEAD/OPTIONS (routes the web app only reads). */
  sessionsReadOnly?: boolean;
  /** Where a session's CSRF token comes on a change, when not the web app's X-CSRF-Token (the queue dashboard). */
  csrf?: CsrfHeader;
}

/**
 * Resolves a key the request presents, counting a wrong one against its client (`failures`): a client out of
 * failures gets 429 for any secret it presents, before the secret is looked at. Without a key: null, nothing
 * counted. `otherCredential` names a secret that is no key but is guarded alike (the metrics token): null, uncounted.
 */
export async function presentedKey(
  auth: Authenticator, failures: KeyFailureLimiter, req: Request, secret: string | undefined, otherCredential: (secret: string) => boolean = () => false,
): Promise<Principal | null> {
  // An empty key is no guess (a browser's empty Basic password); it only fails.
  if (!secret) return null;
  const client = clientOf(req);
  await failures.check(client);
  if (otherCredential(secret)) return null;
  const principal = await auth.authenticate(secret);
  if (!principal) await failures.fail(client);
  return principal;
}

export function requireKey(auth: Authenticator, failures: KeyFailureLimiter, o: KeyOptions = {}) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const secret = secretOf(req);
    const principal =
      secret === undefined && o.sessions && (!o.sessionsReadOnly || isSafeMethod(req))
        ? await sessionPrincipal(o.sessions, req, res, o.csrf)
        : await presentedKey(auth, failures, req, secret);
    if (!principal) {
      if (o.challenge) res.set('WWW-Authenticate', 'Basic realm="quarry"');
      const staleSession = secret === undefined && o.sessions && sessionTokenOf(req) !== undefined;
      throw new AppError('invalid_api_key', staleSession ? SESSION_EXPIRED : 'Invalid API key');
    }
    req.principal = principal;
    next();
  };
}

async function sessionPrincipal(sessions: WebSessions, req: Request, res: Response, csrf?: CsrfHeader): Promise<Principal | null> {
  const session = await authenticateSession(sessions, req, res, csrf);
  return session ? sessions.principalOf(session) : null;
}

/** Index uids are 1-64 characters (indexUidSchema). */
const MAX_INDEX_UID = 64;

/** Checks the authenticated key's permission, for one index when the route names one. */
export function requirePermission(permission: Permission, indexParam?: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const index = indexParam ? String(req.params[indexParam] ?? req.body?.[indexParam] ?? '') : undefined;
    checkPermission(req.principal, permission, index, indexParam);
    next();
  };
}

/** requirePermission's check, for a route answered before Express (direct-route.ts): throws its 400 or 403. */
export function checkPermission(principal: Principal | undefined, permission: Permission, index?: string, indexParam?: string): void {
  // Read before the route validates the body: a 1 MB "index uid" must not reach the check or the 403's message.
  if (index !== undefined && index.length > MAX_INDEX_UID) {
    throw new AppError('invalid_request', `Invalid request: ${indexParam}: must be at most ${MAX_INDEX_UID} characters`);
  }
  if (!principal || !allows(principal, permission, index)) {
    const scope = index ? ` on index '${index}'` : '';
    throw new AppError('forbidden', `This API key lacks the '${permission}' permission${scope}`);
  }
}
