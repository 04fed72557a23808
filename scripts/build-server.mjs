// Bundles the service's TypeScript (api/, workers/, shared/) and the packages it imports into one
// JavaScript module per process under dist/ (dist/api/main.js, dist/workers/main.js, …) with esbuild, the
// code they share in dist/chunks/, so a process starts from a few large files instead of transpiling, or
// even resolving and reading, hundreds of modules at each launch: an empty API answers /healthz ~0.4 s
// sooner than from one file per module (docs/scale-out.md). Only rebuilds when a source (or the lock
// file) is newer than the last build, so `npm start` and `npm test` can call it every time. Plain
// JavaScript: it runs before anything is compiled.
//   node scripts/build-server.mjs [--if-stale]
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInto, isStale } from './build-support.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stamp = join(dist, 'BUILT');
const SOURCES = ['api', 'workers', 'shared'];

export function serverIsStale() {
  const watched = [join(root, 'package-lock.json'), join(root, 'tsconfig.json'), fileURLToPath(import.meta.url)];
  return SOURCES.some((folder) => isStale(join(root, folder), stamp, watched));
}

/**
 * The modules Node starts: each process's main, and the worker thread's module (CommitThread starts it
 * by this path). Each becomes dist/<same path>.js.
 */
const ENTRIES = ['api/main.ts', 'workers/main.ts', 'workers/generator-main.ts', 'shared/storage/sqlite/commit-thread-worker.ts'];

/**
 * Left to Node's own loader: native addons (they find their binaries next to their package), packages
 * that read their own files at run time (the queue dashboard's pages and views), and optional ones
 * not installed (the ONNX embedder's runtime, pg's native driver).
 */
const EXTERNAL = [
  'better-sqlite3', '@node-rs/jieba', 'msgpackr-extract', '@huggingface/transformers', 'pg-native',
  '@bull-board/*', '*.node',
];

/**
 * Bundled CommonJS packages still call `require` and a few read `__dirname` (ioredis when it shortens
 * an error's stack): both are given to every output file, `__dirname` as that file's own folder.
 */
const BANNER = [
  "import { createRequire as __quarryCreateRequire } from 'node:module';",
  "import { dirname as __quarryDirname } from 'node:path';",
  "import { fileURLToPath as __quarryFileURLToPath } from 'node:url';",
  'const require = __quarryCreateRequire(import.meta.url);',
  'const __filename = __quarryFileURLToPath(import.meta.url);',
  'const __dirname = __quarryDirname(__filename);',
].join(' ');

/** dist/<entry>.js per entry, shared code in dist/chunks/ (modules imported on first use stay separate chunks), with source maps. */
export async function buildServer() {
  const { build } = await import('esbuild');
  await buildInto(dist, async (next) => {
    await build({
      entryPoints: ENTRIES.map((entry) => join(root, entry)),
      outbase: root,
      outdir: next,
      entryNames: '[dir]/[name]',
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      external: EXTERNAL,
      banner: { js: BANNER },
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    // No package.json of its own: Node reads these .js files as ES modules by the project's
    // ("type": "module"), and projectRoot() finds the project's folder above dist/.
    writeFileSync(join(next, 'BUILT'), `${new Date().toISOString()}\n`);
  });
}

/** Builds when stale; returns whether it did. */
export async function ensureServer() {
  if (!serverIsStale()) return false;
  await buildServer();
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const built = process.argv.includes('--if-stale') ? await ensureServer() : (await buildServer(), true);
  console.log(built ? `built dist/ in ${Math.round(performance.now() - t0)} ms` : 'dist/ is up to date');
}
