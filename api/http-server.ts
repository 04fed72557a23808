import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import type { Config } from '../shared/config/config.js';
import { RAW_SECURITY_HEADERS } from './middleware/security-headers.js';
import type { DirectRoute } from './routes/direct-route.js';

/** Headers must be complete within this (or the request timeout, if shorter): a slow-loris of headers holds nothing long. */
const HEADERS_TIMEOUT_MS = 20_000;

/**
 * The API's HTTP server: the whole request (headers and body) must arrive within QUARRY_REQUEST_TIMEOUT_SECONDS,
 * or Node answers 408 and closes the connection, so a body that trickles in cannot hold a connection and its
 * buffer for Node's default 5 minutes. Responses (SSE answers) are not limited by it.
 */
export function createHttpServer(app: Express, config: Config): Server {
  const requestTimeout = config.http.requestTimeoutMs;
  // Routes answered before Express (api/routes/direct-route.ts), for the traffic that pays for every layer.
  const direct = app.locals.direct as DirectRoute | undefined;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
      // How often Node looks for expired requests (default 30 s): the cut-off comes this much late at most.
      connectionsCheckingInterval: Math.min(5000, Math.max(250, requestTimeout / 4)),
    },
    direct ? (req, res) => {
      if (!direct(req, res)) app(req, res);
    } : app,
  );
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  return server;
}

const REASONS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request did not arrive in time (QUARRY_REQUEST_TIMEOUT_SECONDS); send it at once'],
  HPE_HEADER_OVERFLOW: [431, 'Request headers too large'],
  ERR_HTTP_HEADERS_TIMEOUT: [408, 'The request headers did not arrive in time'],
};

/** Node's own answers to broken or late requests carry no body; these carry the spec's {code, message}. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const bytesWritten = (socket as Duplex & { bytesWritten?: number }).bytesWritten ?? 0;
  if (socket.writable && bytesWritten === 0 && err.code !== 'ECONNRESET') {
    const [status, message] = REASONS[err.code ?? ''] ?? [400, 'Malformed HTTP request'];
    const body = JSON.stringify({ code: status, message });
    socket.write(
      `HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\n${RAW_SECURITY_HEADERS}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
