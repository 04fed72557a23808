import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { WebSessions } from '../../shared/auth/web-sessions.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { SessionRecord } from '../../shared/storage/ports/session-store.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set when the request was authenticated by the web app's session cookie. */
    webSession?: SessionRecord;
  }
}

export const SESSION_COOKIE = 'quarry_session';
/** Where a page sends its session's CSRF token on a state-changing request, and what a request without it is told. */
export interface CsrfHeader {
  name: string;
  missing: string;
}
/** The web app's. */
const WEB_APP_CSRF: CsrfHeader = { name: 'x-csrf-token', missing: 'Missing or wrong X-CSRF-Token header: reload the app' };
export const SESSION_EXPIRED = 'Not signed in, or the session expired or was ended: sign in again';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isSafeMethod = (req: Request) => SAFE_METHODS.has(req.method);

/** The session token in the Cookie header, if any (no cookie-parsing dependency for one cookie). */
export function sessionTokenOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * Refuses a request a browser sent from another site. Only the host is compared with Origin, not
 * the scheme: behind a TLS-terminating proxy without QUARRY_TRUST_PROXY the server sees http while
 * the browser says https, and what matters against cross-site requests is whose page sent them.
 * Sec-Fetch-Site is set by the browser itself, so a page cannot forge it.
 */
export function refuseCrossSite(req: Request): void {
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  if (site === 'cross-site' || site === 'same-site' || (origin !== undefined && hostOf(origin) !== req.host)) {
    throw new AppError('forbidden', 'Cross-site request refused: open the web app from this server\'s own address');
  }
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** Compares secrets in constant time. */
export function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The live session of the request's cookie, or null (no cookie, forged, expired, its key revoked).
 * A session's state-changing request must come from this server's pages and carry the session's
 * CSRF token: SameSite=Strict already keeps the cookie off cross-site requests, the token covers
 * browsers and sibling sub-domains that SameSite does not.
 */
export async function authenticateSession(sessions: WebSessions, req: Request, res: Response, csrf: CsrfHeader = WEB_APP_CSRF): Promise<SessionRecord | null> {
  const token = sessionTokenOf(req);
  if (token === undefined) return null;
  const found = await sessions.resolve(token);
  if (!found) return null;
  const { session, slid } = found;
  refuseCrossSite(req);
  if (!isSafeMethod(req) && !sameToken(req.get(csrf.name), session.csrfToken)) {
    throw new AppError('forbidden', csrf.missing);
  }
  // A session whose expiry slid forward gets a cookie that lives as long.
  if (slid) setSessionCookie(req, res, token, session.expiresAt);
  req.webSession = session;
  return session;
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: number): void {
  const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
  res.append('Set-Cookie', `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${req.secure ? '; Secure' : ''}`);
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${req.secure ? '; Secure' : ''}`);
}

/** For the session routes themselves: a live session cookie, or 401. */
export function requireSession(sessions: WebSessions) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const session = await authenticateSession(sessions, req, res);
    if (!session) throw new AppError('invalid_api_key', SESSION_EXPIRED);
    req.principal = sessions.principalOf(session);
    next();
  };
}
