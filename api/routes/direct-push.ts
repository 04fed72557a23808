import { checkPermission } from '../middleware/auth.js';
import { secure } from '../middleware/security-headers.js';
import { pushDocumentSchema } from '../schemas/push-schemas.js';
import { validate } from '../schemas/validate.js';
import type { PushService } from '../services/push-service.js';
import { GONE, keyPrincipal, plainRequest, readJson, serveDirect, type DirectDeps, type DirectRoute } from './direct-route.js';
import { checkUid, PUT_DOCUMENT_ROUTE } from './push-documents.js';

/**
 * Index and document uids without %-escapes, no query, no trailing slash: the form pushers send. Anything
 * else (escaped or over-long uids, the other spellings Express also matches: any letter case, a trailing
 * slash) is routed by the app.
 */
const PATH = /^\/v2\/indexes\/([^/?#%]{1,64})\/documents\/([^/?#%]{1,512})$/;

/**
 * PUT /v2/indexes/{index_uid}/documents/{document_uid}, the push route that carries the traffic, answered
 * without Express (direct-route.ts). Same contract as the routed PUT (push-documents.ts): the same key check
 * and wrong-key limit, permission, body limit, NUL check, validation, headers, log line and metric, and the
 * same error bodies. Any request outside the plain form (`plainRequest`, escaped uids) is left to the app.
 */
export function directPush(d: DirectDeps & { push: PushService }): DirectRoute {
  return (req, res) => {
    if (req.method !== 'PUT') return false;
    const match = PATH.exec(req.url ?? '');
    if (!match) return false;
    const plain = plainRequest(req, d.maxBodyBytes);
    if (!plain) return false;
    serveDirect(d, req, res, PUT_DOCUMENT_ROUTE, async () => {
      const principal = await keyPrincipal(d, req, plain.secret);
      const doc = await readJson(req, plain.length);
      if (doc === GONE) return;
      // The routed PUT checks the permission once the body is read; so does this, for the same answers.
      checkPermission(principal, 'write', match[1], 'index_uid');
      const uid = checkUid(match[2]);
      const index = await d.push.pushIndex(match[1]);
      const outcome = await d.push.upsert(index, uid, validate(pushDocumentSchema, doc ?? {}, 'invalid_document'));
      if (outcome.version !== null) res.setHeader('X-Quarry-Version', String(outcome.version));
      secure(res);
      res.writeHead(204).end();
    });
    return true;
  };
}
