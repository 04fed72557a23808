import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { loadAddon } from './load-addon.js';

/** The addon `npm ci` builds from native/mmap (the package's install script); absent when it could not. */
interface MmapAddon {
  mapPrivate(fd: number, length: number): ArrayBuffer;
  releaseFreeMemory(): boolean;
}

/** The memory-map addon, or null when it was not built: callers then read files into memory. */
export function mmapAddon(): MmapAddon | null {
  return loadAddon<MmapAddon>(join('native', 'mmap', 'build', 'Release', 'quarry_mmap.node'));
}

/**
 * Hands the free pages malloc keeps back to the kernel (glibc's malloc_trim). Typed arrays live in
 * malloc's memory, and an index built from the store leaves the copies its arrays grew out of free but
 * resident. False without the addon, off glibc, or when there was nothing to give back.
 */
export function releaseFreeMemory(): boolean {
  return mmapAddon()?.releaseFreeMemory() ?? false;
}

let collect: (() => void) | null | undefined;

/** Time V8's sweeper takes to free the collected array buffers' memory, which it does after the collection, off the thread. */
const SWEPT_AFTER_MS = 1000;

/**
 * A full garbage collection, then (once the collected array buffers' memory is freed) releaseFreeMemory:
 * what a dropped or replaced index held is only free once collected, and V8 collects an idle process's old
 * objects late. The collector is exposed at run time (as `node --expose-gc` would), so this works whatever
 * starts the process.
 */
export function collectAndReleaseMemory(): void {
  if (collect === undefined) {
    v8.setFlagsFromString('--expose-gc');
    collect = (vm.runInNewContext('gc') as (() => void) | undefined) ?? null;
  }
  collect?.();
  setTimeout(releaseFreeMemory, SWEPT_AFTER_MS).unref();
}
