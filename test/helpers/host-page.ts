// A stand-in for a customer's website: an HTTP server on another loopback port that serves pages embedding
// the widget, with the headers (e.g. a Content-Security-Policy) and stylesheets a test asks for. The same
// server answers at http://localhost:<port> and http://127.0.0.1:<port>: two origins, so one can be allowed
// by a configuration and the other not.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostFile {
  body: string;
  type: string;
  headers?: Record<string, string>;
}

export interface HostServer {
  port: number;
  /** http://localhost:<port> */
  origin: string;
  /** http://127.0.0.1:<port>: the same pages under another origin. */
  otherOrigin: string;
  /** Serves `file` at `path` (replacing what was there). */
  set(path: string, file: HostFile): void;
  close(): Promise<void>;
}

export async function startHostServer(): Promise<HostServer> {
  // A browser asks every origin for its icon; a 404 would show as a console error on every page.
  const files = new Map<string, HostFile>([['/favicon.ico', { type: 'image/x-icon', body: '' }]]);
  const server: Server = createServer((req, res) => {
    const file = files.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!file) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store', ...file.headers }).end(file.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://localhost:${port}`,
    otherOrigin: `http://127.0.0.1:${port}`,
    set: (path, file) => void files.set(path, file),
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** What a host page has besides the widget: a heading, text, a link and a button of its own whose script counts clicks. */
export const HOST_SCRIPT = `document.getElementById('host-button').addEventListener('click', () => {
  const out = document.getElementById('host-count');
  out.textContent = String(Number(out.textContent) + 1);
});
`;

/**
 * A host page: its own content, its stylesheets (as <link>s, so `style-src 'self'` allows them), its own
 * script, and the widget's tag (`widgetTag` as given, or none) where a site would put its search box.
 */
export function hostPage(options: { title: string; widgetTag?: string; stylesheets?: string[] }): string {
  const links = (options.stylesheets ?? []).map((href) => `<link rel="stylesheet" href="${href}">`).join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title}</title>
${links}
<script src="/host.js" defer></script>
</head>
<body>
<header><h1 id="host-heading">Example Docs</h1><nav><a id="host-link" href="#guide">Guide</a></nav></header>
<main>
<p id="host-text">This page belongs to the site, not to the widget. Its button counts clicks:</p>
<p><button type="button" id="host-button">Host button</button> clicked <output id="host-count">0</output> times</p>
<div id="widget-slot">${options.widgetTag ?? ''}</div>
</main>
</body>
</html>`;
}
