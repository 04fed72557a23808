// What the web app's and the widget's builds share: "is the build older than its sources", building
// into a sibling folder that is swapped in by renames, and rebuilding on change. Plain JavaScript: it
// runs before anything is compiled.
import { existsSync, readdirSync, renameSync, rmSync, statSync, watch } from 'node:fs';
import { basename, join } from 'node:path';

/** Newest mtime under `dir`, skipping build output and installed packages. */
function newestUnder(dir, skip) {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    if (skip(name)) continue;
    const path = join(dir, name);
    const s = statSync(path);
    newest = Math.max(newest, s.isDirectory() ? newestUnder(path, () => false) : s.mtimeMs);
  }
  return newest;
}

/**
 * True when `stamp` (a file the build writes last) is missing or older than any file under `folder`
 * (its `dist` and `node_modules` aside) or any of `alsoWatched` (the lock file, the build script).
 */
export function isStale(folder, stamp, alsoWatched) {
  if (!existsSync(stamp)) return true;
  const skip = (name) => name === 'dist' || name.startsWith('dist.') || name === 'node_modules';
  const newest = Math.max(newestUnder(folder, skip), ...alsoWatched.map((f) => statSync(f).mtimeMs));
  return newest > statSync(stamp).mtimeMs;
}

/**
 * Runs `write(next)` to fill a fresh sibling of `dist`, then swaps it in by renames, so a running
 * server never serves a half-written build.
 */
export async function buildInto(dist, write) {
  const next = `${dist}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  const result = await write(next);
  const old = `${dist}.old-${process.pid}`;
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(next, dist);
  rmSync(old, { recursive: true, force: true });
  return result;
}

/** Development: rebuilds (unminified) on every change under `src`, 100 ms after the last one. */
export function rebuildOnChange(src, rebuild, servedAt) {
  let timer = null;
  watch(src, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => rebuild().then(() => console.log(`rebuilt ${new Date().toLocaleTimeString()}`), (e) => console.error(e.message)), 100);
  });
  console.log(`watching ${basename(join(src, '..'))}/src; the API serves it at ${servedAt}`);
}
