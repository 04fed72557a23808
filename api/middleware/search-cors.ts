import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../shared/errors/app-error.js';

const EXPOSED = 'Retry-After, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset';
const DEFAULT_REQUEST_HEADERS = 'Content-Type, X-Session-Id';

/** Scheme, lowercased host and port with the default dropped; null for anything but http(s). */
function parseOrigin(value: string): URL | null {
  try {
    const url = new URL(value);
    // Other schemes have opaque origins ("null"), which would all compare equal.
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function matches(entry: string, origin: URL): boolean {
  const allowed = parseOrigin(entry.trim());
  if (!allowed || allowed.protocol !== origin.protocol || allowed.port !== origin.port) return false;
  if (!allowed.hostname.startsWith('*.')) return allowed.hostname === origin.hostname;
  // `*.example.com` keeps the dot: subdomains match, example.com itself and badexample.com do not.
  return origin.hostname.endsWith(allowed.hostname.slice(1));
}

function originAllowed(allowedOrigins: readonly string[], origin: string): boolean {
  if (allowedOrigins.some((e) => e.trim() === '*')) return true;
  const parsed = parseOrigin(origin);
  return parsed !== null && allowedOrigins.some((e) => matches(e, parsed));
}

function answerPreflight(req: Request, res: Response, origin: string): void {
  res.vary('Access-Control-Request-Headers');
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': req.get('Access-Control-Request-Headers') || DEFAULT_REQUEST_HEADERS,
    'Access-Control-Max-Age': '600',
  });
  res.status(204).end();
}

/**
 * A refusal answered before the body (and so perhaps the uid) is known: any origin may read it, so a widget
 * sees its 429 and Retry-After; it tells nothing about a configuration.
 */
export function exposeRefusal(req: Request, res: Response): void {
  res.vary('Origin');
  const origin = req.get('Origin');
  if (origin !== undefined) res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED });
}

/** What a search request's origin gets: the headers to answer with, or a refusal. */
export type OriginOutcome = { headers: Record<string, string> | null; refusal: AppError | null };

const NOTHING: OriginOutcome = { headers: null, refusal: null };

/**
 * The CORS decision for a search request that is no preflight, apart from Express (searchCors and the
 * direct search route share it). `selfOrigin` is this service's own origin as the request reached it.
 */
export async function searchOrigin(
  origin: string | undefined, selfOrigin: string, uid: string | undefined, allowedOriginsOf: (uid: string) => Promise<string[] | null>,
): Promise<OriginOutcome> {
  // No Origin, or the service's own origin (the web app's Try it): not a cross-origin use of the configuration.
  if (origin === undefined || parseOrigin(origin)?.origin === selfOrigin) return NOTHING;
  const allowed = uid === undefined ? null : await allowedOriginsOf(uid);
  // Unknown or missing uid: the route answers that (404/400).
  if (allowed === null) return NOTHING;
  if (!originAllowed(allowed, origin)) return { headers: null, refusal: originRefused(origin, uid) };
  return { headers: { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED }, refusal: null };
}

const originRefused = (origin: string, uid: string | undefined) =>
  new AppError('forbidden', `Origin ${origin} is not allowed for configuration ${uid}; add it to the configuration's allowed_origins`);

/**
 * CORS for the public search routes, decided per configuration by its `allowed_origins`. There are no
 * credentials on these routes, so the origin check is what keeps other sites from using a configuration.
 */
export function searchCors(
  allowedOriginsOf: (uid: string) => Promise<string[] | null>,
  uidOf: (req: Request) => string | undefined,
): RequestHandler {
  return async (req, res, next) => {
    // Responses differ by Origin, so shared caches must keep them apart, with or without the header.
    res.vary('Origin');
    const origin = req.get('Origin');
    const self = `${req.protocol}://${req.get('host')}`;
    if (req.method !== 'OPTIONS') {
      const { headers, refusal } = await searchOrigin(origin, self, uidOf(req), allowedOriginsOf);
      if (headers) res.set(headers);
      return next(refusal ?? undefined);
    }
    if (origin === undefined || parseOrigin(origin)?.origin === self) return next();
    // A preflight carries no body, so a uid sent in a POST body is invisible here: the real request is checked.
    const uid = uidOf(req);
    const allowed = uid === undefined ? null : await allowedOriginsOf(uid);
    if (allowed !== null && !originAllowed(allowed, origin)) return next(originRefused(origin, uid));
    answerPreflight(req, res, origin);
  };
}
