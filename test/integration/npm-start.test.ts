import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { freePort, redisPing } from '../../scripts/redis-launcher.mjs';
import { waitFor } from '../helpers/test-service.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('npm start (the embedded default)', () => {
  it('starts its own Redis, the API and the workers, serves a push, and stops within 10 s of SIGTERM', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'quarry-start-'));
    const port = await freePort();
    const env: Record<string, string | undefined> = { ...process.env, QUARRY_DATA_DIR: dataDir, PORT: String(port), QUARRY_LOG_LEVEL: 'warn' };
    delete env.REDIS_URL;
    delete env.QUARRY_MASTER_KEY;
    const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      expect(await waitFor(() => out.includes('Quarry is running at'), 60_000, 100), out).toBe(true);
      expect(out).toContain('npm run keys -- create');
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

      const stoppedAt = Date.now();
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.once('exit', r));
      expect(code).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect(await redisPing(redisPort)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
