import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { REDIS_HELP, findRedisServer, freePort, startRedis } from '../../scripts/redis-launcher.mjs';

export interface PrivateRedis {
  url: string;
  process: ChildProcess;
  /** SIGSTOP: the server keeps its connections open and answers nothing (a stall, not an outage). */
  stall(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** A redis-server of the test's own on a free port, so the test can stall or kill it without touching the shared one. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const binary = findRedisServer();
  if (!binary) throw new Error(REDIS_HELP);
  const dir = mkdtempSync(join(tmpdir(), 'quarry-private-redis-'));
  const port = (await freePort()) as number;
  const child = (await startRedis({ binary, dir, port })) as ChildProcess;
  return {
    url: `redis://127.0.0.1:${port}`,
    process: child,
    stall: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
