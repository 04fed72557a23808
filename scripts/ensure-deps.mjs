// Installs dependencies when node_modules is missing or was installed for other dependencies than
// package.json and the lock file name now, so `npm start` and `npm test` work on a fresh clone and
// after a pull. Plain JavaScript: runs before the install.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';

const MARKER = 'node_modules/.package-lock.json';
/** What node_modules was installed for; editing package.json's scripts or description is no reason to install. */
const INSTALLED_FOR = 'node_modules/.quarry-dependencies';

function dependenciesHash() {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const wanted = { dependencies: pkg.dependencies, devDependencies: pkg.devDependencies, optionalDependencies: pkg.optionalDependencies, overrides: pkg.overrides };
  return createHash('sha256').update(JSON.stringify(wanted)).update(existsSync('package-lock.json') ? readFileSync('package-lock.json') : '').digest('hex');
}

export function ensureDeps() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    console.error(`Quarry needs Node.js 20.19 or newer; this is ${process.versions.node}.`);
    process.exit(1);
  }
  const hash = dependenciesHash();
  // Installed by someone else (npm ci in CI): then only an older install than package.json is stale.
  const stale = !existsSync(MARKER)
    || (existsSync(INSTALLED_FOR) ? readFileSync(INSTALLED_FOR, 'utf8').trim() !== hash : statSync('package.json').mtimeMs > statSync(MARKER).mtimeMs);
  if (!stale) {
    if (!existsSync(INSTALLED_FOR)) writeFileSync(INSTALLED_FOR, `${hash}\n`);
    return;
  }
  // A fresh checkout installs exactly the lock file; one whose package.json moved on updates it.
  const command = existsSync('node_modules') ? 'install' : 'ci';
  console.log(`Installing dependencies (npm ${command}; the first time compiles better-sqlite3, about 2 minutes)...`);
  const r = spawnSync('npm', [command, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`npm ${command} failed; see the output above.`);
    process.exit(r.status ?? 1);
  }
  // npm install may have rewritten the lock file: record what is installed now.
  writeFileSync(INSTALLED_FOR, `${dependenciesHash()}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureDeps();
