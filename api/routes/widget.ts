import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Router, type Request, type Response } from 'express';
import { AppError } from '../../shared/errors/app-error.js';

/** /widget.js keeps its url across releases: caches may use a copy for 5 minutes, then revalidate in the background. */
const CURRENT = 'public, max-age=300, stale-while-revalidate=86400';
/** /widget/<hash>.js names its content: it never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * A script is public, and host pages on any origin load it: `*` lets `crossorigin` (and SRI) script tags
 * through, and CORP lets it load into pages that isolate themselves (COEP). The search routes' own CORS
 * still decides which origins may search.
 */
const HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

interface Bundle {
  /** The manifest's identity when it was read: a rebuild replaces the file. */
  stamp: string;
  hash: string;
  identity: Buffer;
  gzip: Buffer;
  etag: string;
}

const NOT_BUILT = 'The widget is not built: run npm run build:widget (npm start and npm test build it), or point QUARRY_WIDGET_DIR at a built widget/dist';

/**
 * The embeddable widget built into `widgetDir` (scripts/build-widget.mjs: manifest.json naming
 * widget-<hash>.js). Read on first use and again whenever the manifest changes, gzip-compressed once,
 * since the widget's budget is counted in gzip bytes and nothing else here compresses responses.
 */
export function widgetRouter(widgetDir: string): Router {
  const r = Router();
  let cached: Bundle | null = null;

  const current = (): Bundle => {
    const manifest = join(widgetDir, 'manifest.json');
    let stamp: string;
    try {
      const s = statSync(manifest);
      stamp = `${s.ino}:${s.mtimeMs}`;
    } catch {
      throw new AppError('dependency_unavailable', NOT_BUILT);
    }
    if (cached?.stamp === stamp) return cached;
    let identity: Buffer;
    let hash: string;
    try {
      const m = JSON.parse(readFileSync(manifest, 'utf8')) as { file: string; hash: string };
      identity = readFileSync(join(widgetDir, m.file));
      hash = m.hash;
    } catch {
      // Between the stat and the read a build may have swapped the directory: the next request sees it whole.
      throw new AppError('dependency_unavailable', 'The widget is being rebuilt or its build is incomplete; retry in a moment, or run npm run build:widget', undefined, { 'Retry-After': '1' });
    }
    const digest = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
    cached = { stamp, hash, identity, gzip: gzipSync(identity, { level: 9 }), etag: digest };
    return cached;
  };

  const send = (req: Request, res: Response, bundle: Bundle, cacheControl: string) => {
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    // Each encoding is its own representation, with its own strong validator.
    res.set({
      'Cache-Control': cacheControl,
      'Content-Type': 'text/javascript; charset=utf-8',
      ETag: `"${bundle.etag}${gzip ? '-gz' : ''}"`,
      Vary: 'Accept-Encoding',
    });
    if (req.fresh) return void res.status(304).end();
    if (gzip) res.set('Content-Encoding', 'gzip');
    res.send(gzip ? bundle.gzip : bundle.identity);
  };

  r.use(['/widget.js', '/widget'], (_req, res, next) => {
    // Set before anything can fail, so an error is readable cross-origin and never cached.
    res.set({ ...HEADERS, 'Cache-Control': 'no-store' });
    next();
  });
  r.get('/widget.js', (req, res) => send(req, res, current(), CURRENT));
  r.get('/widget/:file', (req, res) => {
    const bundle = current();
    if (req.params.file !== `${bundle.hash}.js`) {
      throw new AppError('not_found', `No widget build ${req.params.file} on this server (it serves ${bundle.hash}.js); load /widget.js for the current one`);
    }
    send(req, res, bundle, IMMUTABLE);
  });
  return r;
}
