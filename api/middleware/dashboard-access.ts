import type { Request, RequestHandler, Response } from 'express';
import type { Authenticator } from '../../shared/auth/api-keys.js';
import { keyedHash } from '../../shared/auth/keyed-hash.js';
import type { WebSessions } from '../../shared/auth/web-sessions.js';
import { AppError } from '../../shared/errors/app-error.js';
import { requireKey, requirePermission } from './auth.js';
import type { KeyFailureLimiter } from './key-failure-limit.js';
import { DASHBOARD_POLICY, pagePolicy } from './security-headers.js';
import { isSafeMethod, refuseCrossSite, sameToken, type CsrfHeader } from './session-auth.js';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board's front end cannot be told to send a header of ours, but its HTTP client (axios) sends the
 * value of the cookie XSRF-TOKEN as X-XSRF-TOKEN on every request to its own origin. A page elsewhere
 * cannot send that header here at all (a custom header needs a CORS preflight, which this server never
 * grants), nor read the cookie of this origin's page to know its value.
 */
const COOKIE = 'XSRF-TOKEN';
const DASHBOARD_CSRF: CsrfHeader = { name: 'x-xsrf-token', missing: 'Missing or wrong X-XSRF-TOKEN header: reload the queue dashboard (/admin/queues)' };

/**
 * The token for the credential the browser sends by itself: a web-app session's own CSRF token, or for
 * Basic credentials a keyed hash of the key's id (stateless, the same in every API process, useless with
 * another key or another server secret).
 */
function tokenOf(req: Request, secret: string): string {
  return req.webSession?.csrfToken ?? keyedHash(secret, 'queue-dashboard', req.principal!.keyId);
}

/**
 * After authentication: a read hands the dashboard's page its token in the cookie its client reads; a
 * change made with credentials a browser attaches on its own (Basic, the session cookie) must carry it
 * back. X-API-Key is a header no other page can make a browser send, so a request with it needs none.
 */
function dashboardToken(secret: string): RequestHandler {
  return (req, res, next) => {
    if (isSafeMethod(req)) {
      setTokenCookie(req, res, tokenOf(req, secret));
      return next();
    }
    // A session's token was checked with it (authenticateSession, told the dashboard's header).
    if (req.webSession || req.get('x-api-key')) return next();
    if (!sameToken(req.get(DASHBOARD_CSRF.name), tokenOf(req, secret))) throw new AppError('forbidden', DASHBOARD_CSRF.missing);
    next();
  };
}

function setTokenCookie(req: Request, res: Response, token: string): void {
  // Not HttpOnly: the dashboard's script reads it. Strict and scoped to the dashboard, like the session cookie.
  res.append('Set-Cookie', `${COOKIE}=${token}; SameSite=Strict; Path=${DASHBOARD_PATH}${req.secure ? '; Secure' : ''}`);
}

/**
 * A browser sends remembered Basic credentials and cookies with requests other pages make, so a change
 * must come from a page of this server (Origin and Sec-Fetch-Site, as the web app's session routes check).
 */
const sameSiteChanges: RequestHandler = (req, _res, next) => {
  if (!isSafeMethod(req)) refuseCrossSite(req);
  next();
};

/**
 * Everything in front of the dashboard (bull-board), which changes queues with PUT, POST and PATCH: its own
 * page policy (the page can never be framed, whatever it is), the same-origin check, an admin key or
 * session, and the CSRF token on changes.
 */
export function dashboardAccess(auth: Authenticator, failures: KeyFailureLimiter, sessions: WebSessions, secret: string): RequestHandler[] {
  return [
    pagePolicy(DASHBOARD_POLICY),
    sameSiteChanges,
    requireKey(auth, failures, { challenge: true, sessions, csrf: DASHBOARD_CSRF }),
    requirePermission('admin'),
    dashboardToken(secret),
  ];
}
