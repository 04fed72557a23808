import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The addon `npm ci` builds from native/mmap (the package's install script); absent when it could not. */
interface MmapAddon {
  mapPrivate(fd: number, length: number): ArrayBuffer;
}

const ADDON = join('native', 'mmap', 'build', 'Release', 'quarry_mmap.node');

let addon: MmapAddon | null | undefined;

/**
 * The memory-map addon, or null when it was not built (no compiler where `npm ci` ran): callers then
 * read files into memory. Looked for above this module, which runs from the source tree under tsx and
 * from dist/ once compiled.
 */
export function mmapAddon(): MmapAddon | null {
  if (addon !== undefined) return addon;
  addon = null;
  for (let dir = dirname(fileURLToPath(import.meta.url)), up = 0; up < 6; up++, dir = dirname(dir)) {
    const path = join(dir, ADDON);
    if (!existsSync(path)) continue;
    try {
      addon = createRequire(import.meta.url)(path) as MmapAddon;
    } catch {
      addon = null;
    }
    break;
  }
  return addon;
}

/**
 * The whole of an open file as a private, copy-on-write memory map: nothing is read until a byte is
 * touched, and the kernel's page cache holds what was. Writes to it stay in this process. The map stays
 * valid when the file is renamed over or removed (it holds the file's inode), not when the file is cut
 * short in place: never map a file that something may truncate. Null for an empty file or without the addon.
 */
export function mapFile(fd: number, length: number): Uint8Array | null {
  const mmap = mmapAddon();
  if (!mmap || length === 0) return null;
  return new Uint8Array(mmap.mapPrivate(fd, length));
}
