import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** A real worker process (`workers/main.ts`), resolved once it reports its queues are running. */
export function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  return spawnProcess('workers/main.ts', 'workers started', env);
}

/**
 * A real API (`api/main.ts`), resolved once it listens (give it a PORT). One process unless `env` asks
 * for more (QUARRY_API_PROCESSES): test files run two at a time on two cores, and several API processes
 * have a test of their own (api-processes.test.ts).
 */
export function spawnApi(env: Record<string, string>): Promise<ChildProcess> {
  return spawnProcess('api/main.ts', 'Quarry API listening', { QUARRY_API_PROCESSES: '1', ...env });
}

/** A real generation worker process (`workers/generator-main.ts`), resolved once it runs. */
export function spawnGenerator(env: Record<string, string>): Promise<ChildProcess> {
  return spawnProcess('workers/generator-main.ts', 'generation worker started', env);
}

async function spawnProcess(script: string, ready: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env, QUARRY_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${script} did not start within 90 s:\n${output}`)), 90_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        ok();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${script} exited with ${code}:\n${output}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => {
    child.once('exit', (code) => r(code));
    child.kill(signal);
  });
}
