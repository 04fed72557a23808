import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import express, { Router, type Response } from 'express';
import { AppError } from '../../shared/errors/app-error.js';
import { pagePolicy, WEB_APP_POLICY } from '../middleware/security-headers.js';

/** esbuild names assets by content hash, so a name never changes meaning: cache for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
// index.html names the current assets: revalidate it every time so a new build shows at once.
const REVALIDATE = 'no-cache';

/**
 * The operators' web app at /app/, built into `webDir` (npm run build:web). Paths that are not
 * files get index.html, so the app's own routes survive a reload; missing assets stay 404.
 */
export function webAppRouter(webDir: string): Router {
  const r = Router();
  const index = join(webDir, 'index.html');

  r.get('/', (_req, res) => {
    res.redirect(302, '/app/');
  });

  r.use('/app', pagePolicy(WEB_APP_POLICY), (req, res, next) => {
    // "/app" alone would resolve the app's relative asset URLs against "/".
    if (req.originalUrl === '/app' || req.originalUrl.startsWith('/app?')) return res.redirect(301, '/app/');
    next();
  });
  r.use(
    '/app',
    express.static(webDir, {
      index: false,
      redirect: false,
      setHeaders: (res: Response, path: string) => {
        res.set('Cache-Control', path.startsWith(join(webDir, 'assets') + sep) ? IMMUTABLE : REVALIDATE);
      },
    }),
  );
  r.get(/^\/app\/(?!assets\/).*/, (_req, res) => {
    if (!existsSync(index)) throw new AppError('dependency_unavailable', 'The web app is not built: run npm run build:web');
    res.set('Cache-Control', REVALIDATE).sendFile(index);
  });
  return r;
}
