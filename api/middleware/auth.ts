import type { NextFunction, Request, Response } from 'express';
import { allows, type Authenticator, type Principal } from '../../shared/auth/api-keys.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { Permission } from '../../shared/storage/ports/key-store.js';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}

/** Basic auth is accepted too (any user, the key as password) so a browser can open the dashboard. */
function secretOf(req: Request): string | undefined {
  const header = req.get('x-api-key');
  if (header) return header;
  const basic = req.get('authorization')?.match(/^Basic (.+)$/i);
  if (basic) return Buffer.from(basic[1], 'base64').toString('utf8').split(':').slice(1).join(':');
  return undefined;
}

export function requireKey(auth: Authenticator, challenge = false) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const principal = await auth.authenticate(secretOf(req));
    if (!principal) {
      if (challenge) res.set('WWW-Authenticate', 'Basic realm="quarry"');
      throw new AppError('invalid_api_key', 'Invalid API key');
    }
    req.principal = principal;
    next();
  };
}

/** Checks the authenticated key's permission, for one index when the route names one. */
export function requirePermission(permission: Permission, indexParam?: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const index = indexParam ? String(req.params[indexParam] ?? req.body?.[indexParam] ?? '') : undefined;
    if (!req.principal || !allows(req.principal, permission, index)) {
      const scope = index ? ` on index '${index}'` : '';
      throw new AppError('forbidden', `This API key lacks the '${permission}' permission${scope}`);
    }
    next();
  };
}
