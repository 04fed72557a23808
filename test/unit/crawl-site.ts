import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestSite {
  url: (path: string) => string;
  /** Every request the server received, as `METHOD path`, so tests can prove what was never fetched. */
  /** Added to after start by tests whose pages name the server's own urls. */
  routes: Record<string, Route>;
  log: string[];
  /** Every response finished, as `path status`, in order: a 304 tells a check from a full fetch. */
  responses: string[];
  headers: Record<string, http.IncomingHttpHeaders>;
  close: () => Promise<void>;
}

/** A real HTTP server on 127.0.0.1 answering the given paths (404 elsewhere). */
export async function startSite(routes: Record<string, Route>): Promise<TestSite> {
  const log: string[] = [];
  const responses: string[] = [];
  const headers: Record<string, http.IncomingHttpHeaders> = {};
  const server = http.createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    res.on('finish', () => responses.push(`${req.url} ${res.statusCode}`));
    headers[req.url ?? ''] = req.headers;
    const route = routes[req.url ?? ''];
    if (route) return route(req, res);
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    routes,
    log,
    responses,
    headers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html = (body: string, extra: Record<string, string> = {}): Route => (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...extra }).end(body);
};

export const redirect = (to: string, status = 301): Route => (_req, res) => {
  res.writeHead(status, { location: to }).end();
};

/** Answers 304 to a request carrying the page's ETag, so a test can tell a check from a full fetch. */
export const withEtag = (etag: string, body: () => string): Route => (req, res) => {
  if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag }).end(body());
};
