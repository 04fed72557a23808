import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort } from '../../scripts/redis-launcher.mjs';
import { freshSchema } from '../helpers/postgres.js';
import { callJson, deleteKeys, MASTER_KEY, waitFor } from '../helpers/test-service.js';
import { spawnApi, spawnWorker, stopProcess } from '../helpers/worker-process.js';

/**
 * Two API processes of one deployment started at the same moment without QUARRY_SECRET: each would
 * generate a secret, and one would reject the other's feedback_data (and hash session ids apart).
 * The secret is generated once and kept in the shared store, so both sign and verify alike: on one
 * SQLite data folder (the embedded mode with a second API) and on one PostgreSQL schema (scale-out).
 */
const procs: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  await Promise.all(procs.map((p) => stopProcess(p, 'SIGKILL')));
  for (const c of cleanups.reverse()) await c();
});

function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'quarry-secret-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Starts both APIs at once (the race for the secret) and one worker; `dataDirOf(i)` gives each process its folder. */
async function deployment(env: Record<string, string>, dataDirOf: (i: number) => string): Promise<[string, string]> {
  const prefix = `qsec-${randomBytes(4).toString('hex')}`;
  const redis = new Redis(inject('redisUrl'));
  cleanups.push(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });
  const common = { ...env, REDIS_URL: inject('redisUrl'), QUARRY_REDIS_PREFIX: prefix, QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_SECRET: '' };
  const ports = [(await freePort()) as number, (await freePort()) as number];
  const started = await Promise.all([
    ...ports.map((port, i) => spawnApi({ ...common, PORT: String(port), QUARRY_DATA_DIR: dataDirOf(i) })),
    spawnWorker({ ...common, QUARRY_DATA_DIR: dataDirOf(2), QUARRY_WORKER_CONCURRENCY: '2' }),
  ]);
  procs.push(...started);
  return [`http://127.0.0.1:${ports[0]}`, `http://127.0.0.1:${ports[1]}`];
}

async function crossFeedback(a: string, b: string) {
  expect((await callJson(a, 'POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
  for (let i = 0; i < 3; i++) {
    const r = await callJson(a, 'PUT', `/v2/indexes/docs/documents/p${i}`, { title: `Page ${i}`, content: `<p>About secrettok${i} here.</p>` });
    expect(r.status).toBe(204);
  }
  const config = (await callJson(b, 'POST', '/v1/admin/configurations', { variant: 'ui', name: 'Help', indexes: ['docs'] })).body;
  const search = (base: string, i: number) => waitFor(async () => {
    const r = await callJson(base, 'GET', `/v1/ui/search?uid=${config.uid}&session-id=s${i}&query=secrettok${i}`);
    return r.status === 200 && r.body.results.length > 0 ? r.body.results[0].feedback_data as string : null;
  }, 60_000, 200);

  // Signed by A, verified by B; signed by B, verified by A.
  for (const [signer, verifier, i] of [[a, b, 1], [b, a, 2]] as const) {
    const token = await search(signer, i);
    expect(token).toBeTruthy();
    const click = await callJson(verifier, 'POST', '/v1/ui/feedback', { type: 'click', feedback_data: token });
    expect(click.status, JSON.stringify(click.body)).toBe(204);
    // The verifier does check: the same token altered is refused.
    const altered = `${token!.slice(0, 10)}${token![10] === 'A' ? 'B' : 'A'}${token!.slice(11)}`;
    expect((await callJson(verifier, 'POST', '/v1/ui/feedback', { type: 'click', feedback_data: altered })).status).toBe(400);
  }
}

describe('two API processes without QUARRY_SECRET share one secret', () => {
  it('on one SQLite data folder', async () => {
    const dir = tempDir();
    const [a, b] = await deployment({}, () => dir);
    await crossFeedback(a, b);
  }, 240_000);

  it('on one PostgreSQL schema', async () => {
    const url = inject('databaseUrl');
    const schema = await freshSchema(url);
    cleanups.push(() => schema.drop());
    const dirs = [tempDir(), tempDir(), tempDir()];
    const [a, b] = await deployment({ QUARRY_STORAGE: 'postgres', DATABASE_URL: url, QUARRY_DATABASE_SCHEMA: schema.schema, QUARRY_DATABASE_POOL: '4' }, (i) => dirs[i]);
    await crossFeedback(a, b);
  }, 240_000);
});
