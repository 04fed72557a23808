import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';

const CSP = 'Content-Security-Policy';

/** Responses that are not pages (JSON, scripts, event streams, redirects, errors): they may load and run nothing. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The web app: nothing but this server's own files, no inline script, no other origin. */
export const WEB_APP_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/**
 * The queue dashboard (bull-board's page, which we do not build): its scripts are its own files, but its
 * page has inline styles, a <base href>, a highlight worker, and a stylesheet and fonts from Google Fonts.
 */
export const DASHBOARD_POLICY =
  "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; " +
  "font-src 'self' data: https://fonts.gstatic.com; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";

/** Set on every response whatever produced it; a page may choose its own CSP, never one that lets it be framed. */
const ALWAYS = { 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff' } as const;
const REFERRER = { name: 'Referrer-Policy', value: 'no-referrer' } as const;

/** The same headers as raw lines, for answers written to the socket before any app runs (api/http-server.ts). */
export const RAW_SECURITY_HEADERS = [...Object.entries(ALWAYS), [REFERRER.name, REFERRER.value], [CSP, API_POLICY]]
  .map(([k, v]) => `${k}: ${v}\r\n`).join('');

/** Settles the headers every response leaves with (see securityHeaders), on a routed response or a raw one. */
export function secure(res: ServerResponse): void {
  // Sub-apps (bull-board's own Express app) and serve-static set or clear headers of their own after any
  // middleware of ours has run: the headers are settled here, when they are written.
  res.removeHeader('X-Powered-By');
  for (const [name, value] of Object.entries(ALWAYS)) res.setHeader(name, value);
  if (!res.hasHeader(REFERRER.name)) res.setHeader(REFERRER.name, REFERRER.value);
  const policy = res.getHeader(CSP);
  if (policy === undefined) res.setHeader(CSP, API_POLICY);
  else if (!/(^|;)\s*frame-ancestors\s/i.test(String(policy))) res.setHeader(CSP, `${String(policy)}; frame-ancestors 'none'`);
}

/**
 * Mount first: every response of the app (pages, JSON, the dashboard's sub-app, static files, redirects, 404s,
 * errors) leaves with frame-ancestors 'none', X-Frame-Options DENY, nosniff and a Referrer-Policy, and
 * without X-Powered-By. Node calls writeHead for implicit headers too (res.end, res.flushHeaders).
 */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: unknown[]) {
    if (!this.headersSent) secure(this);
    return (writeHead as (...a: unknown[]) => Response).apply(this, args);
  } as typeof res.writeHead;
  next();
};

/** A page's own Content-Security-Policy (the default is API_POLICY). */
export const pagePolicy = (policy: string): RequestHandler => (_req, res, next) => {
  res.setHeader(CSP, policy);
  next();
};
