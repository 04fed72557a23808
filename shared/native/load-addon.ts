import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const loaded = new Map<string, unknown>();

/**
 * One of the addons `npm ci` builds from native/ (the package's install script), by its path under the
 * checkout (`native/mmap/build/Release/quarry_mmap.node`), or null when it was not built (no compiler
 * where `npm ci` ran): callers then fall back to JavaScript. Looked for above this module, which runs
 * from the source tree under tsx and from dist/ once compiled.
 */
export function loadAddon<T>(path: string): T | null {
  if (loaded.has(path)) return loaded.get(path) as T | null;
  let addon: T | null = null;
  for (let dir = dirname(fileURLToPath(import.meta.url)), up = 0; up < 6; up++, dir = dirname(dir)) {
    const file = join(dir, path);
    if (!existsSync(file)) continue;
    try {
      addon = createRequire(import.meta.url)(file) as T;
    } catch {
      addon = null;
    }
    break;
  }
  loaded.set(path, addon);
  return addon;
}
