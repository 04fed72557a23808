// `npm start`: the whole service on one machine — dependencies, Redis, the API and all workers.
// Plain JavaScript so it can run before `npm install` has.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';
import { ensureWeb } from './build-web.mjs';
import { ensureWidget } from './build-widget.mjs';
import { ensureServer } from './build-server.mjs';
import { REDIS_HELP, findRedisServer, freePort, startRedis } from './redis-launcher.mjs';
import { PRIVATE_UMASK, describeChanges, makeFolderPrivate } from '../shared/storage/private-folder.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (m) => console.log(`[quarry] ${m}`);
ensureDeps();
await ensureWeb();
await ensureWidget();
// Processes start from compiled JavaScript (dist/), built here when a source changed since.
await ensureServer();

// From here on, what this process and its children (Redis, the API, the workers) create is this user's alone:
// the data folder holds documents, queries, conversations, key hashes and secrets (docs/security.md).
process.umask(PRIVATE_UMASK);
const dataDir = resolve(process.env.QUARRY_DATA_DIR || './data');
const { changed, failed } = makeFolderPrivate(dataDir);
if (changed.length) say(`The data folder was readable by other users; made private to this one: ${describeChanges(changed)}`);
for (const f of failed) say(`Could not make ${f.path} (${f.mode}) private: ${f.error}; fix it by hand`);
const env = { ...process.env, QUARRY_DATA_DIR: dataDir };

/** A secret generated once and kept in the data folder, so restarts keep the same keys valid. */
function persistentSecret(name, file) {
  if (env[name]) return { value: env[name], file: null };
  const path = join(dataDir, file);
  if (!existsSync(path)) writeFileSync(path, `qm_${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
  env[name] = readFileSync(path, 'utf8').trim();
  return { value: env[name], file: path };
}
const master = persistentSecret('QUARRY_MASTER_KEY', 'master-key');
persistentSecret('QUARRY_SECRET', 'secret');

const children = new Set();
let redis = null;
let stopping = false;

if (!env.REDIS_URL) {
  const binary = findRedisServer();
  if (!binary) {
    console.error(REDIS_HELP);
    process.exit(1);
  }
  const port = await freePort();
  redis = await startRedis({ binary, dir: join(dataDir, 'redis'), port, log: say });
  env.REDIS_URL = `redis://127.0.0.1:${port}`;
  redis.on('exit', (code) => {
    if (!stopping) {
      console.error(`[quarry] redis-server exited unexpectedly (code ${code}); stopping.`);
      shutdown(1);
    }
  });
}

const node = process.execPath;
function run(name, script) {
  let restarts = 0;
  const launch = () => {
    const started = Date.now();
    const child = spawn(node, ['--enable-source-maps', join(root, script)], { env, stdio: 'inherit' });
    children.add(child);
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (stopping) return;
      if (code === 1 && restarts === 0 && Date.now() - started < 5000) {
        // Exited at once on first start: bad configuration; the child printed why.
        shutdown(1);
        return;
      }
      restarts++;
      say(`${name} exited (${signal ?? code}); restarting in 1 s`);
      setTimeout(launch, 1000);
    });
  };
  launch();
}

run('api', 'dist/api/main.js');
run('worker', 'dist/workers/main.js');
run('generator', 'dist/workers/generator-main.js');

const port = env.PORT || '8080';
const url = `http://localhost:${port}`;
for (let i = 0; i < 300 && !stopping; i++) {
  try {
    const r = await fetch(`${url}/healthz`);
    if (r.ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 100));
}
if (!stopping) {
  const keyFile = master.file && (relative(process.cwd(), master.file).startsWith('..') ? master.file : relative(process.cwd(), master.file));
  const masterKey = keyFile ? `the master key in ${keyFile}` : 'the master key you set in QUARRY_MASTER_KEY';
  const dashboard = !['false', '0'].includes(env.QUARRY_DASHBOARD ?? '');
  say(`Quarry is running at ${url}`);
  say(`  Web app:  ${url}/app/  (sign in with ${masterKey}, or with a key that has the admin permission)`);
  say(`  API:      ${url}  (OpenAPI document: ${url}/openapi.json; send a key in X-API-Key)`);
  if (dashboard) say(`  Queues:   ${url}/admin/queues  (any user name, the master key as password; or signed in to the web app)`);
  say(`Create an API key:  npm run keys -- create --name my-app --permissions read,write`);
  say('Stop with Ctrl-C (SIGINT) or SIGTERM.');
}

function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping: draining workers...');
  for (const c of children) c.kill('SIGTERM');
  const deadline = setTimeout(() => {
    for (const c of children) c.kill('SIGKILL');
  }, 9000);
  const waitChildren = () => (children.size === 0 ? Promise.resolve() : new Promise((r) => setTimeout(() => r(waitChildren()), 50)));
  waitChildren().then(async () => {
    clearTimeout(deadline);
    if (redis && redis.exitCode === null) {
      redis.kill('SIGTERM');
      await new Promise((r) => (redis.exitCode !== null ? r() : redis.once('exit', r)));
    }
    process.exit(code);
  });
}
process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
