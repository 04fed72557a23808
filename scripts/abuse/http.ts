// The abuse suite's HTTP client: node:http on a fresh connection per request, so an attack controls its
// bytes (bodies of any size, chunked or declared, headers of any size) and sees exactly what comes back.
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  /** A body sent whole with its Content-Length, or (chunked) in 64 KB chunks without one. */
  body?: string | Buffer;
  chunked?: boolean;
}

export interface Answer {
  /** 0: the connection ended without an answer. */
  status: number;
  contentType: string;
  body: string;
  ms: number;
  /** Only the status line was read (a stalled reader): the body's shape is not judged. */
  unread?: boolean;
  /** The response's headers, when the client parsed them (node:http); raw-socket attacks leave them out. */
  headers?: http.IncomingHttpHeaders;
}

export function send(base: string, r: Sent, timeoutMs = 180_000): Promise<Answer> {
  const u = new URL(base);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: Omit<Answer, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...a, ms: performance.now() - t0 });
    };
    const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
    const headers: Record<string, string | number> = { ...r.headers };
    if (body && !r.chunked) headers['content-length'] = body.length;
    const req = http.request({ host: u.hostname, port: Number(u.port), method: r.method, path: r.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const answer = () => ({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8'), headers: res.headers });
      res.on('end', () => done(answer()));
      res.on('error', () => done(answer()));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // A server answering early (413, 401) and closing mid-body is an outcome, not an error here.
    req.on('error', (err) => setTimeout(() => done({ status: 0, contentType: '', body: `no answer: ${err.message}` }), 50));
    if (body && r.chunked) {
      void (async () => {
        for (let at = 0; at < body.length && !req.destroyed; at += 64 * 1024) {
          if (!req.write(body.subarray(at, at + 64 * 1024))) await new Promise((ok) => { req.once('drain', ok); req.once('close', ok); });
        }
        req.end();
      })();
    } else {
      req.end(body);
    }
  });
}

/**
 * A client that sends a request and, once the answer's headers arrive, stops reading (the socket is
 * paused, so the server's writes back up): what a crowd of stalled SSE readers looks like to the server.
 * Resolves with the status line's status (0 if the server closed first); `close()` drops the connection.
 */
export function stalledReader(base: string, raw: string, timeoutMs = 60_000): Promise<{ status: number; close: () => void }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(u.port), u.hostname);
    let head = '';
    let settled = false;
    const settle = (status: number) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, close: () => socket.destroy() });
    };
    const timer = setTimeout(() => settle(0), timeoutMs);
    socket.on('error', () => settle(0));
    socket.on('close', () => settle(0));
    socket.on('connect', () => socket.write(raw));
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (m && head.includes('\r\n\r\n')) {
        socket.pause();
        settle(Number(m[1]));
      }
    });
  });
}

/**
 * Opens a connection, sends `head` at once and then `trickle` one character every `everyMs` (neither: an idle
 * connection); resolves with what came back when the server closes it, or after `timeoutMs`.
 */
export function idleOrTrickle(base: string, head: string, trickle: string, everyMs: number, timeoutMs: number): Promise<Answer> {
  const u = new URL(base);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearInterval(timer);
      clearTimeout(cap);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      const start = data.indexOf('\r\n\r\n');
      const ct = /content-type: *([^\r\n]*)/i.exec(data)?.[1] ?? '';
      resolve({ status: m ? Number(m[1]) : 0, contentType: ct, body: start >= 0 ? data.slice(start + 4) : data, ms: performance.now() - t0 });
      socket.destroy();
    };
    const cap = setTimeout(finish, timeoutMs);
    socket.on('error', () => {});
    socket.on('data', (c: Buffer) => (data += c.toString('utf8')));
    socket.on('close', finish);
    socket.on('connect', () => {
      if (head) socket.write(head);
      if (!trickle) return;
      let i = 0;
      timer = setInterval(() => {
        if (i < trickle.length && !socket.destroyed) socket.write(trickle[i++]);
      }, everyMs);
    });
  });
}
