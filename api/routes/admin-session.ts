import { Router, type Response } from 'express';
import type { Authenticator } from '../../shared/auth/api-keys.js';
import type { WebSessions } from '../../shared/auth/web-sessions.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { SessionRecord } from '../../shared/storage/ports/session-store.js';
import { clearSessionCookie, refuseCrossSite, requireSession, sessionTokenOf, setSessionCookie } from '../middleware/session-auth.js';
import { clientOf } from '../middleware/client.js';
import type { KeyFailureLimiter } from '../middleware/key-failure-limit.js';
import { signInSchema } from '../schemas/session-schemas.js';
import { validate } from '../schemas/validate.js';

function sendSession(res: Response, s: SessionRecord): void {
  // The body holds the CSRF token: no cache may keep it.
  res.set('Cache-Control', 'no-store').json({ name: s.keyName, csrf_token: s.csrfToken, expires_at: new Date(s.expiresAt).toISOString() });
}

/** The web app's sign-in: a key with admin in, a session cookie out (docs/decisions.md, "Web-app sessions"). */
export function adminSessionRouter(auth: Authenticator, sessions: WebSessions, limiter: KeyFailureLimiter): Router {
  const r = Router();
  const signedIn = requireSession(sessions);

  r.post('/v1/admin/session', async (req, res) => {
    // There is no session yet, so no CSRF token: where the request comes from is what is checked.
    refuseCrossSite(req);
    // The limiter's gate (app.ts) refused a client out of failures before the body was read.
    const client = clientOf(req);
    const { key } = validate(signInSchema, req.body ?? {});
    const principal = await auth.authenticate(key);
    if (!principal) {
      await limiter.fail(client);
      throw new AppError('invalid_api_key', 'That key is not valid: paste a key with the admin permission (or the master key), without spaces');
    }
    if (!principal.permissions.has('admin')) {
      throw new AppError('forbidden', `The key '${principal.name}' is valid but lacks the admin permission: sign in with the master key or a key created with 'admin'`);
    }
    const { token, session } = await sessions.create(principal);
    setSessionCookie(req, res, token, session.expiresAt);
    sendSession(res, session);
  });

  r.get('/v1/admin/session', signedIn, (req, res) => {
    sendSession(res, req.webSession!);
  });

  r.delete('/v1/admin/session', signedIn, async (req, res) => {
    await sessions.end(sessionTokenOf(req)!);
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  return r;
}
