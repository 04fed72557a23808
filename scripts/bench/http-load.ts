import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * The load generator: plain node:http over keep-alive sockets (no extra dependency). It runs in the
 * bench process, whose CPU use (`bench`) is reported next to every run, so a saturated generator
 * shows up in the figures.
 */
export interface Target {
  host: string;
  port: number;
  headers: Record<string, string>;
  agent: http.Agent;
}

export function makeTarget(baseUrl: string, headers: Record<string, string> = {}, maxSockets = 256): Target {
  const u = new URL(baseUrl);
  return {
    host: u.hostname,
    port: Number(u.port),
    headers: { 'content-type': 'application/json', ...headers },
    agent: new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets }),
  };
}

export interface Reply {
  status: number;
  body: string;
}

export function send(t: Target, method: string, path: string, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...t.headers };
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    const req = http.request({ host: t.host, port: t.port, method, path, agent: t.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length ? Buffer.concat(chunks).toString('utf8') : '' }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** JSON request; throws on an unexpected status, with the response body in the message. */
export async function sendJson<T>(t: Target, method: string, path: string, body?: unknown, expect: number[] = [200, 201, 204]): Promise<T> {
  const r = await send(t, method, path, body === undefined ? undefined : JSON.stringify(body));
  if (!expect.includes(r.status)) throw new Error(`${method} ${path} -> ${r.status}: ${r.body.slice(0, 500)}`);
  return (r.body ? JSON.parse(r.body) : undefined) as T;
}

export interface PlannedRequest {
  method: string;
  path: string;
  /** None for a GET. */
  body?: string;
}

export interface LoadResult {
  requests: number;
  ok: number;
  errors: number;
  /** Up to five distinct error descriptions. */
  errorSamples: string[];
  elapsedMs: number;
  rps: number;
  latenciesMs: Float64Array;
}

/**
 * Closed loop: `concurrency` virtual users, each sending its next request as soon as the previous
 * answered, until `durationMs` has passed. Only statuses in `okStatus` count as successes.
 */
export async function closedLoop(opts: {
  target: Target;
  concurrency: number;
  durationMs: number;
  next: () => PlannedRequest;
  okStatus: number[];
}): Promise<LoadResult> {
  const latencies: number[] = [];
  const samples = new Set<string>();
  let errors = 0;
  const start = performance.now();
  const deadline = start + opts.durationMs;
  const user = async () => {
    while (performance.now() < deadline) {
      const r = opts.next();
      const t0 = performance.now();
      try {
        const reply = await send(opts.target, r.method, r.path, r.body);
        latencies.push(performance.now() - t0);
        if (!opts.okStatus.includes(reply.status)) {
          errors++;
          if (samples.size < 5) samples.add(`${reply.status} ${reply.body.slice(0, 200)}`);
        }
      } catch (err) {
        latencies.push(performance.now() - t0);
        errors++;
        if (samples.size < 5) samples.add(String((err as Error).message ?? err));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, user));
  const elapsedMs = performance.now() - start;
  return {
    requests: latencies.length,
    ok: latencies.length - errors,
    errors,
    errorSamples: [...samples],
    elapsedMs,
    rps: (latencies.length - errors) / (elapsedMs / 1000),
    latenciesMs: Float64Array.from(latencies),
  };
}

export interface PacedResult {
  sent: number;
  ok: number;
  errors: number;
  errorSamples: string[];
  /** Wall-clock (Date.now()) time each request's success reply arrived, by request number; NaN if it failed. */
  ackAt: Float64Array;
  /** From the first send to the last reply. */
  elapsedMs: number;
  /** From the first send to the last send. */
  sendWindowMs: number;
  latenciesMs: Float64Array;
}

/** Open loop: request i is sent at start + i/rate seconds (a timer catches up on late ticks). */
export async function pacedLoop(opts: {
  target: Target;
  rate: number;
  durationMs: number;
  request: (i: number) => PlannedRequest;
  okStatus: number[];
}): Promise<PacedResult> {
  const total = Math.round((opts.rate * opts.durationMs) / 1000);
  const ackAt = new Float64Array(total).fill(Number.NaN);
  const latencies = new Float64Array(total).fill(Number.NaN);
  const samples = new Set<string>();
  const inflight: Promise<void>[] = [];
  let sent = 0;
  let errors = 0;
  let lastSend = 0;
  const start = performance.now();
  const fire = (i: number) => {
    const r = opts.request(i);
    const t0 = performance.now();
    lastSend = t0;
    inflight.push(
      send(opts.target, r.method, r.path, r.body).then(
        (reply) => {
          latencies[i] = performance.now() - t0;
          if (opts.okStatus.includes(reply.status)) ackAt[i] = Date.now();
          else {
            errors++;
            if (samples.size < 5) samples.add(`${reply.status} ${reply.body.slice(0, 200)}`);
          }
        },
        (err: unknown) => {
          errors++;
          if (samples.size < 5) samples.add(String((err as Error).message ?? err));
        },
      ),
    );
  };
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * opts.rate) / 1000) + 1);
      while (sent < due) fire(sent++);
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 2);
    tick();
  });
  await Promise.all(inflight);
  return {
    sent,
    ok: sent - errors,
    errors,
    errorSamples: [...samples],
    ackAt,
    elapsedMs: performance.now() - start,
    sendWindowMs: lastSend - start,
    latenciesMs: latencies.filter((v) => !Number.isNaN(v)),
  };
}
