import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes this side had written when the answer's headers arrived (sent, or queued in socket buffers). */
  bodyBytesWhenAnswered: number;
  /** The server closed the connection (after or instead of an answer). */
  closed: boolean;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string | number>;
  /** Body bytes to send, in order; each chunk is written after the previous one drained. */
  chunks?: Iterable<Buffer> | AsyncIterable<Buffer>;
}

/**
 * One HTTP/1.1 request over a plain socket, so a test controls exactly what is sent and when (a body
 * declared but never sent, one that trickles in) and sees what the server answers meanwhile. Resolves
 * with the first complete answer, or when the server closes the connection (status 0: no answer).
 */
export function rawRequest(baseUrl: string, r: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {}); // a server closing mid-body is one of the outcomes under test
  let written = 0;
  let answeredAt: number | null = null;
  let data = Buffer.alloc(0);
  let done = false;

  const answer = new Promise<RawAnswer>((resolve) => {
    const finish = (closed: boolean) => {
      if (done) return;
      const parsed = parse(data);
      // An answer saying `Connection: close` is awaited to the close, which tests assert on.
      if (!closed && (parsed === null || !parsed.complete || parsed.headers.connection === 'close')) return;
      done = true;
      resolve({
        status: parsed?.status ?? 0, headers: parsed?.headers ?? {}, body: parsed?.body ?? '',
        bodyBytesWhenAnswered: answeredAt ?? written, closed,
      });
      socket.destroy();
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (answeredAt === null && data.includes('\r\n\r\n')) answeredAt = written;
      finish(false);
    });
    socket.on('close', () => finish(true));
  });

  void (async () => {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const head = [`${r.method} ${r.path} HTTP/1.1`, `Host: ${hostname}:${port}`, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    for await (const chunk of r.chunks ?? []) {
      if (done || socket.destroyed) return;
      written += chunk.length;
      if (!socket.write(chunk)) await waitDrain(socket);
    }
  })().catch(() => {});
  return answer;
}

function waitDrain(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      socket.off('drain', settle);
      socket.off('close', settle);
      resolve();
    };
    socket.once('drain', settle);
    socket.once('close', settle);
  });
}

function parse(data: Buffer): { status: number; headers: Record<string, string>; body: string; complete: boolean } | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = data.subarray(end + 4);
  const length = headers['content-length'] === undefined ? null : Number(headers['content-length']);
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8'), complete: length !== null && body.length >= length };
}

/** `total` bytes of `fill` in chunks of `size`. */
export function* filler(total: number, size = 64 * 1024, fill = 'x'): Generator<Buffer> {
  const chunk = Buffer.alloc(size, fill);
  for (let sent = 0; sent < total; sent += size) yield sent + size <= total ? chunk : chunk.subarray(0, total - sent);
}

/** One byte every `everyMs`, `count` times: a body that trickles in. */
export async function* trickle(count: number, everyMs: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < count; i++) {
    await new Promise((r) => setTimeout(r, everyMs));
    yield Buffer.from(i === 0 ? '{' : ' ');
  }
}
