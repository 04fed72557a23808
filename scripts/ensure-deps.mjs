// Installs dependencies when node_modules is missing or older than package.json, so
// `npm start` and `npm test` work on a fresh clone. Plain JavaScript: runs before the install.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

export function ensureDeps() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    console.error(`Quarry needs Node.js 20.19 or newer; this is ${process.versions.node}.`);
    process.exit(1);
  }
  const marker = 'node_modules/.package-lock.json';
  const stale = !existsSync(marker) || statSync('package.json').mtimeMs > statSync(marker).mtimeMs;
  if (!stale) return;
  // A fresh checkout installs exactly the lock file; one whose package.json moved on updates it.
  const command = existsSync('node_modules') ? 'install' : 'ci';
  console.log(`Installing dependencies (npm ${command}; the first time compiles better-sqlite3, about 2 minutes)...`);
  const r = spawnSync('npm', [command, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`npm ${command} failed; see the output above.`);
    process.exit(r.status ?? 1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureDeps();
