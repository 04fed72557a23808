import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PgProxy } from './pg-proxy.js';

type Op = 'down' | 'up' | 'stall' | 'resume' | 'connections' | 'close';

/** The proxy as the runner drives it: every call answers once the proxy process has done it. */
export interface ProxyControl {
  port: number;
  down(): Promise<number>;
  up(): Promise<number>;
  stall(): Promise<number>;
  resume(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The proxy in a process of its own: every byte between the service and PostgreSQL passes through
 * it, and in the runner's process it waited on the load, the checks and the model stub, which then
 * showed as a slow database. Calls answer with the connections open through it.
 */
export async function startProxyProcess(root: string, target: { host: string; port: number }): Promise<ProxyControl> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [target.host, String(target.port)], {
    cwd: root, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (n: number) => void>();
  let next = 0;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the PostgreSQL proxy exited (${code}) before listening`)));
    child.once('message', (m) => resolve((m as { port: number }).port));
  });
  child.removeAllListeners('exit');
  child.on('message', (m) => {
    const { id, connections } = m as { id: number; connections: number };
    waiting.get(id)?.(connections);
    waiting.delete(id);
  });
  const call = (op: Op) => new Promise<number>((resolve, reject) => {
    if (!child.connected) return reject(new Error('the PostgreSQL proxy is gone'));
    const id = next++;
    waiting.set(id, resolve);
    child.send({ id, op });
  });
  return {
    port,
    down: () => call('down'),
    up: () => call('up'),
    stall: () => call('stall'),
    resume: () => call('resume'),
    close: async () => {
      if (!child.connected) return;
      const exited = new Promise((r) => child.once('exit', r));
      await call('close').catch(() => {});
      child.disconnect();
      await exited;
    },
  };
}

async function main(host: string, port: number) {
  const proxy = await PgProxy.start({ host, port });
  process.on('message', async (m) => {
    const { id, op } = m as { id: number; op: Op };
    const open = proxy.connections;
    if (op === 'down') proxy.down();
    else if (op === 'up') await proxy.up();
    else if (op === 'stall') proxy.stall();
    else if (op === 'resume') proxy.resume();
    else if (op === 'close') await proxy.close();
    // `down` answers with the connections it cut.
    process.send!({ id, connections: op === 'down' ? open : proxy.connections });
  });
  // The runner gone (or done): nothing left to proxy for.
  process.on('disconnect', () => void proxy.close().then(() => process.exit(0)));
  process.send!({ port: proxy.port });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv[2], Number(process.argv[3]));
