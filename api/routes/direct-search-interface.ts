import type { IncomingMessage } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { Variant } from '../../shared/storage/ports/configuration-store.js';
import type { SearchRateLimit } from '../middleware/rate-limit.js';
import { searchOrigin } from '../middleware/search-cors.js';
import type { SearchInterfaceService } from '../services/search-interface-service.js';
import { clientOfDirect, sendJson, serveDirect, type DirectDeps, type DirectRoute } from './direct-route.js';
import { isPreview, searchInterfaceSearch, searchParams, uidParam } from './search-interface.js';

export interface DirectSearchInterfaceDeps extends DirectDeps {
  search: SearchInterfaceService;
  /** A configuration's allowed origins (null: no such configuration), as the routed CORS check reads them. */
  allowedOriginsOf: (uid: string) => Promise<string[] | null>;
  /** The routed search's rate limits: Redis-counted, and this process's own for previews. */
  limits: { shared: SearchRateLimit; local: SearchRateLimit };
  /** The scheme as Express's `req.protocol` gives it (X-Forwarded-Proto from a trusted proxy). */
  protocolOf: (req: IncomingMessage) => string;
}

/** The query-string form widgets send; a fragment, a %00 (the app's 400) or a trailing slash go to the app. */
const PATH = /^\/v1\/(ui|tool)\/search(?:\?[^#]*)?$/;

/**
 * GET /v1/{ui,tool}/search without a body, the search interface's search as widgets send it, answered
 * before Express (direct-route.ts): the same CORS decision, the same rate limits counted beside the search
 * (a preview in this process only), the same validation, headers, log line, metric and error bodies as the
 * routed search (search-interface.ts). A POST, a body, or any other spelling of the path is routed by the app.
 */
export function directSearchInterface(d: DirectSearchInterfaceDeps): DirectRoute {
  return (req, res) => {
    if (req.method !== 'GET') return false;
    const url = req.url ?? '';
    const match = PATH.exec(url);
    if (!match || /%00/i.test(url)) return false;
    const h = req.headers;
    if (h['transfer-encoding'] !== undefined || Number(h['content-length'] ?? 0) > 0) return false;
    const variant = match[1] as Variant;
    serveDirect(d, req, res, `/v1/${variant}/search`, async () => {
      // Responses differ by Origin, so shared caches must keep them apart, with or without the header.
      res.setHeader('Vary', 'Origin');
      const at = url.indexOf('?');
      const session = h['x-session-id'];
      const params = searchParams(at < 0 ? {} : parseQueryString(url.slice(at + 1)), undefined, typeof session === 'string' ? session : undefined);
      const uid = uidParam(params);
      const cors = await searchOrigin(h.origin, `${d.protocolOf(req)}://${h.host}`, uid, d.allowedOriginsOf);
      if (cors.headers) for (const [name, value] of Object.entries(cors.headers)) res.setHeader(name, value);
      if (cors.refusal) throw cors.refusal;
      const client = clientOfDirect(d, req);
      const { refused, admission } = await (isPreview(params) ? d.limits.local : d.limits.shared).take(client, uid, true, res);
      if (refused) throw refused;
      sendJson(res, 200, await searchInterfaceSearch(d.search, variant, params, client, admission));
    });
    return true;
  };
}
