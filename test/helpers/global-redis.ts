import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { TestProject } from 'vitest/node';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { REDIS_HELP, findRedisServer, freePort, redisPing, startRedis } from '../../scripts/redis-launcher.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let child: ChildProcess | null = null;
let dir: string | null = null;

/** Tests use REDIS_URL, else a Redis on 127.0.0.1:6379, else one started here for the run. */
export async function setup(project: TestProject) {
  let url = process.env.REDIS_URL;
  if (!url && (await redisPing(6379))) url = 'redis://127.0.0.1:6379';
  if (!url) {
    const binary = findRedisServer();
    if (!binary) throw new Error(REDIS_HELP);
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'quarry-test-redis-'));
    child = await startRedis({ binary, dir, port });
    url = `redis://127.0.0.1:${port}`;
  }
  project.provide('redisUrl', url);
}

export async function teardown() {
  child?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
}
