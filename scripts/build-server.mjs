// Compiles the service's TypeScript (api/, workers/, shared/) to JavaScript under dist/ with esbuild,
// one file per module (no bundling: the layout and import paths stay as they are), so processes start
// from JavaScript instead of transpiling every module at each launch. Only rebuilds when a source is
// newer than the last build, so `npm start` and `npm test` can call it every time. Plain JavaScript:
// it runs before anything is compiled.
//   node scripts/build-server.mjs [--if-stale]
import { copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
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

/** Files under `dir` whose name ends with `ext` (declaration files aside). */
function filesUnder(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, ext);
    return name.endsWith(ext) && !name.endsWith(`.d${ext}`) ? [path] : [];
  });
}

/** dist/<folder>/….js for every module of api/, workers/ and shared/, with source maps. */
export async function buildServer() {
  const { build } = await import('esbuild');
  await buildInto(dist, async (next) => {
    await build({
      entryPoints: SOURCES.flatMap((folder) => filesUnder(join(root, folder), '.ts')),
      outbase: root,
      outdir: next,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    // Plain JavaScript modules the TypeScript imports (shared with scripts that run before any build) go as they are.
    for (const file of SOURCES.flatMap((folder) => filesUnder(join(root, folder), '.mjs'))) {
      const target = join(next, relative(root, file));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
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
