import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort, redisPing } from '../../scripts/redis-launcher.mjs';
import { waitFor } from '../helpers/test-service.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('npm start (the embedded default)', () => {
  it('starts its own Redis, the API and the workers, serves a push, and stops within 10 s of SIGTERM', { timeout: 90_000 }, async () => {
    const parent = mkdtempSync(join(tmpdir(), 'quarry-start-'));
    // Not there yet: `npm start` creates it (private to this user, issue 22).
    const dataDir = join(parent, 'data');
    const port = await freePort();
    const env: Record<string, string | undefined> = { ...process.env, QUARRY_DATA_DIR: dataDir, PORT: String(port), QUARRY_LOG_LEVEL: 'warn' };
    delete env.REDIS_URL;
    delete env.QUARRY_MASTER_KEY;
    const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      // The banner's lines can arrive in separate chunks of the pipe: wait for its last before reading the others.
      expect(await waitFor(() => out.includes('Stop with Ctrl-C'), 60_000, 100), out).toBe(true);
      expect(out).toContain('Quarry is running at');
      expect(out).toContain('npm run keys -- create');
      // Where the web app is and how to sign in to it, beside the API and the queue dashboard (issue 22).
      expect(out).toContain(`Web app:  http://localhost:${port}/app/  (sign in with the master key in ${join(dataDir, 'master-key')}, or with a key that has the admin permission)`);
      expect(out).toMatch(new RegExp(`API: +http://localhost:${port} `));
      expect(out).toMatch(new RegExp(`Queues: +http://localhost:${port}/admin/queues `));
      const redisPort = Number(out.match(/Redis started on 127\.0\.0\.1:(\d+)/)?.[1]);
      expect(await redisPing(redisPort)).toBe(true);

      const base = `http://127.0.0.1:${port}`;
      const key = readFileSync(join(dataDir, 'master-key'), 'utf8').trim();
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect((await fetch(`${base}/v1/admin/indexes`, { method: 'POST', headers, body: '{"uid":"site"}' })).status).toBe(201);
      const put = await fetch(`${base}/v2/indexes/site/documents/home`, { method: 'PUT', headers, body: JSON.stringify({ title: 'Home', content: '<p>Welcome</p>' }) });
      expect(put.status).toBe(204);
      const indexed = await waitFor(async () => (await (await fetch(`${base}/v2/indexes/site/status`, { headers })).json()).indexed === 1, 30_000);
      expect(indexed).toBe(true);
      expect((await fetch(`${base}/app/`)).status).toBe(200);

      // The data folder and all in it, Redis's files and the SQLite -wal files included, are this user's alone.
      const modes: string[] = [];
      const walk = (dir: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const path = join(dir, e.name);
          modes.push(`${path.slice(dataDir.length + 1)} ${(statSync(path).mode & 0o777).toString(8)}`);
          if (e.isDirectory()) walk(path);
        }
      };
      walk(dataDir);
      expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
      expect(modes).toEqual(expect.arrayContaining(['master-key 600', 'secret 600', 'redis 700', 'quarry.db 600', 'quarry.db-wal 600', 'search.db-wal 600']));
      expect(modes.filter((m) => !/ (600|700)$/.test(m))).toEqual([]);

      const stoppedAt = Date.now();
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.once('exit', r));
      expect(code).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect(await redisPing(redisPort)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
