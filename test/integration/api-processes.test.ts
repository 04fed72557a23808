import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort } from '../../scripts/redis-launcher.mjs';
import { rawRequest } from '../helpers/raw-http.js';
import { callJson, deleteKeys, MASTER_KEY, waitFor } from '../helpers/test-service.js';
import { spawnApi, spawnWorker, stopProcess } from '../helpers/worker-process.js';

/**
 * QUARRY_API_PROCESSES=2 on the embedded store: two API processes share one port, each a whole API with
 * its own in-memory search that follows the store; one that dies is replaced; SIGTERM to the primary
 * drains both. Which process answered is read from the request log (every line carries its pid).
 */
const prefix = `qap-${randomBytes(4).toString('hex')}`;
let redis: Redis;
let dataDir: string;
let primary: ChildProcess;
let worker: ChildProcess | undefined;
let base: string;
const logLines: { pid: number; msg: string; url?: string; status?: number; signal?: string; time?: number }[] = [];

/** Live children of `pid` running the API entry point, from /proc. */
function apiChildren(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('api/main.ts')) out.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return out.sort();
}

/** A request on a connection of its own: node:cluster hands each new connection to the next process. */
function fresh(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  const headers: Record<string, string | number> = { 'x-api-key': MASTER_KEY };
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${path}: no answer in 20 s`)));
    req.end(body);
  });
}

/** Pids whose request log shows they answered `url` with `status`. */
const answeredBy = (url: string, status = 200) => new Set(logLines.filter((l) => l.url === url && l.status === status).map((l) => l.pid));

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'));
  dataDir = mkdtempSync(join(tmpdir(), 'quarry-api-procs-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  primary = await spawnApi({
    QUARRY_API_PROCESSES: '2', PORT: String(port), HOST: '127.0.0.1', QUARRY_DATA_DIR: dataDir,
    REDIS_URL: inject('redisUrl'), QUARRY_REDIS_PREFIX: prefix, QUARRY_MASTER_KEY: MASTER_KEY,
  });
  let rest = '';
  primary.stdout!.on('data', (d: Buffer) => {
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop()!;
    for (const p of parts) {
      try {
        const j = JSON.parse(p);
        logLines.push({ pid: j.pid, msg: j.msg, url: j.req?.url, status: j.res?.statusCode, signal: j.signal, time: j.time });
      } catch {
        // not a log line
      }
    }
  });
  // spawnApi resolves when the first one listens; the second may still be starting.
  expect(await waitFor(() => apiChildren(primary.pid!).length === 2, 60_000, 100)).toBe(true);
}, 120_000);

afterAll(async () => {
  if (worker) await stopProcess(worker, 'SIGKILL');
  for (const pid of apiChildren(primary.pid!)) process.kill(pid, 'SIGKILL');
  await stopProcess(primary, 'SIGKILL');
  await deleteKeys(redis, prefix);
  redis.disconnect();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('QUARRY_API_PROCESSES=2', () => {
  it('answers on one port from both processes, each searching what the store holds; /metrics sums both', { timeout: 120_000 }, async () => {
    const pids = apiChildren(primary.pid!);
    expect((await callJson(base, 'POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
    const put = await callJson(base, 'PUT', '/v2/indexes/docs/documents/home', { title: 'Home', content: '<p>About clusterword here.</p>' });
    expect(put.status).toBe(204);
    worker = await spawnWorker({ QUARRY_DATA_DIR: dataDir, REDIS_URL: inject('redisUrl'), QUARRY_REDIS_PREFIX: prefix, QUARRY_MASTER_KEY: MASTER_KEY });
    expect(await waitFor(async () => (await callJson(base, 'GET', '/v2/indexes/docs/status')).body.indexed === 1, 60_000, 100)).toBe(true);

    const search = `/v1/content/search`;
    const body = JSON.stringify({ index_uid: 'docs', query: 'clusterword', boosting: 'title content', filter: '', fields: [], limit: 5 });
    const found: string[][] = [];
    for (let i = 0; i < 8; i++) {
      const r = await fresh('POST', search, body);
      expect(r.status).toBe(200);
      found.push((JSON.parse(r.body).results as { uid: string }[]).map((h) => h.uid));
    }
    expect(found.every((uids) => uids.join() === 'home')).toBe(true);
    expect(await waitFor(() => answeredBy(search).size === 2, 5000)).toBe(true);
    expect([...answeredBy(search)].sort()).toEqual(pids);

    // Both follow the index; only one (slot 0) writes its snapshot file, the other would only redo it.
    const writers = () => new Set(logLines.filter((l) => l.msg === 'index snapshot written').map((l) => l.pid));
    expect(await waitFor(() => writers().size > 0, 20_000, 100)).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    expect(writers().size).toBe(1);
    expect(pids).toContain([...writers()][0]);

    for (let i = 0; i < 6; i++) expect((await fresh('GET', '/healthz')).status).toBe(200);
    const metrics = await fresh('GET', '/metrics');
    expect(metrics.status).toBe(200);
    // Summed over both processes: every /healthz counted, whichever process answered it and the scrape.
    const healthz = Number(metrics.body.match(/^quarry_http_request_duration_seconds_count\{[^}]*route="\/healthz"[^}]*\} (\d+)/m)?.[1]);
    expect(healthz).toBe(6);
    expect(metrics.body).toMatch(/^quarry_api_processes 2$/m);
    expect(metrics.body).toMatch(/^quarry_api_processes_reporting 2$/m);
    expect(metrics.body).toMatch(/^quarry_queue_jobs\{queue="\w+",state="waiting"\} \d+$/m);
  });

  it('replaces a process that dies; the port keeps answering', { timeout: 120_000 }, async () => {
    const [victim, survivor] = apiChildren(primary.pid!);
    process.kill(victim, 'SIGKILL');
    // A connection the primary hands to a process in the instant it dies is lost (node:cluster); from
    // when the primary knows, the other process takes every connection.
    expect(await waitFor(() => logLines.some((l) => l.msg.startsWith('an API process exited')), 20_000, 20)).toBe(true);
    for (let i = 0; i < 4; i++) expect((await fresh('GET', '/readyz')).status).toBe(200);
    const replaced = await waitFor(() => {
      const now = apiChildren(primary.pid!);
      return now.length === 2 && now.includes(survivor) && !now.includes(victim) ? now : null;
    }, 60_000, 20);
    expect(replaced).toBeTruthy();
    const newcomer = replaced!.find((p) => p !== survivor)!;
    // A scrape while the replacement starts (held stopped, so it cannot answer the primary) sums the
    // process that serves: it used to fail for 5 s, the whole scrape waiting on the one still starting.
    process.kill(newcomer, 'SIGSTOP');
    try {
      expect(logLines.some((l) => l.pid === newcomer && l.msg.startsWith('Quarry API listening'))).toBe(false);
      const scrape = await fresh('GET', '/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.body).toMatch(/^quarry_api_processes 1$/m);
      expect(scrape.body).toMatch(/^quarry_api_processes_reporting 1$/m);
      expect(scrape.body).toMatch(/^quarry_http_request_duration_seconds_count\{[^}]*route="\/readyz"[^}]*\} \d+$/m);
    } finally {
      process.kill(newcomer, 'SIGCONT');
    }
    expect(await waitFor(() => logLines.some((l) => l.pid === newcomer && l.msg.startsWith('Quarry API listening')), 60_000, 100)).toBe(true);
    const before = answeredBy('/readyz').has(newcomer);
    expect(before).toBe(false);
    for (let i = 0; i < 6; i++) expect((await fresh('GET', '/readyz')).status).toBe(200);
    expect(await waitFor(() => answeredBy('/readyz').has(newcomer), 5000)).toBe(true);
  });

  it('SIGTERM to the primary drains every process: requests in flight on each are answered, then all exit 0', { timeout: 60_000 }, async () => {
    const pids = apiChildren(primary.pid!);
    const doc = Buffer.from(JSON.stringify({ title: 'Late', content: '<p>Sent across a shutdown.</p>' }));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* halfThenRest() {
      yield doc.subarray(0, 10);
      await gate;
      yield doc.subarray(10);
    }
    // Four connections in turn: two on each process.
    const puts = [0, 1, 2, 3].map((i) => rawRequest(base, {
      method: 'PUT', path: `/v2/indexes/docs/documents/late-${i}`,
      headers: { 'content-type': 'application/json', 'content-length': doc.length, 'x-api-key': MASTER_KEY },
      chunks: halfThenRest(),
    }));
    await new Promise((r) => setTimeout(r, 300));
    const exited = new Promise<number | null>((r) => primary.once('exit', (code) => r(code)));
    primary.kill('SIGTERM');
    expect(await waitFor(() => pids.every((pid) => logLines.some((l) => l.pid === pid && l.signal === 'primary')), 20_000, 20)).toBe(true);
    release();
    const answers = await Promise.all(puts);
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204]);
    expect(new Set(logLines.filter((l) => l.url?.startsWith('/v2/indexes/docs/documents/late-') && l.status === 204).map((l) => l.pid))).toEqual(new Set(pids));
    expect(await exited, JSON.stringify(logLines.slice(-30), null, 1)).toBe(0);
    expect(apiChildren(primary.pid!)).toEqual([]);
  });
});
