// Starts a private redis-server for the embedded mode, with its files in the data folder.
// Plain JavaScript: it runs before dependencies are installed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';

export function findRedisServer() {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

export const REDIS_HELP = [
  'Quarry needs Redis 6.2 or newer. Either set REDIS_URL to a running Redis, or install redis-server and it is started for you:',
  '  Debian/Ubuntu: sudo apt-get install -y redis-server',
  '  Fedora/RHEL:   sudo dnf install -y redis',
  '  macOS:         brew install redis',
].join('\n');

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export function redisPing(port, host = '127.0.0.1', timeoutMs = 500) {
  return new Promise((resolve) => {
    const sock = connect({ port, host });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/**
 * Append-only file with fsync every second: queued jobs survive a restart of the service, and the
 * document store (not Redis) is what a 204 relies on, so a lost second of queue is re-enqueued.
 */
export async function startRedis({ binary, dir, port, log = () => {} }) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes',
    '--appendfsync', 'everysec', '--save', '', '--daemonize', 'no', '--logfile', join(dir, 'redis.log'),
    '--maxmemory-policy', 'noeviction',
  ];
  const child = spawn(binary, args, { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}; see ${join(dir, 'redis.log')}`);
    if (await redisPing(port)) {
      log(`Redis started on 127.0.0.1:${port} (files in ${dir})`);
      return child;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer on port ${port} within 10 s; see ${join(dir, 'redis.log')}`);
}
