import { statfsSync } from 'node:fs';
import { AppError } from '../errors/app-error.js';

/** statfs is one system call, but a group commit per millisecond needs no fresher figure than this. */
export const DISK_CHECK_INTERVAL_MS = 250;

export interface DiskSpace {
  freeBytes: number;
  minFreeBytes: number;
  /** False below the minimum: writes are refused until space is freed. */
  writable: boolean;
}

/**
 * Refuses writes to the data folder while its file system has less than the minimum free, so the
 * disk never fills under the stores: what is accepted up to then stays intact (a full disk makes
 * SQLite roll back, never corrupt, but the workers still need room to index what was accepted, and
 * a checkpoint needs room to copy the WAL). Reads go on. Writes resume on their own once space is freed.
 */
export class DiskGuard {
  private checkedAt = 0;
  private last: DiskSpace;

  constructor(
    private readonly dir: string,
    private readonly minFreeBytes: number,
  ) {
    this.last = { freeBytes: Number.POSITIVE_INFINITY, minFreeBytes, writable: true };
  }

  space(): DiskSpace {
    if (Date.now() - this.checkedAt < DISK_CHECK_INTERVAL_MS) return this.last;
    this.checkedAt = Date.now();
    try {
      const s = statfsSync(this.dir);
      const freeBytes = s.bavail * s.bsize;
      this.last = { freeBytes, minFreeBytes: this.minFreeBytes, writable: freeBytes >= this.minFreeBytes };
    } catch {
      // A file system that cannot say how full it is is not held against the writes; the write itself will tell.
      this.last = { freeBytes: Number.POSITIVE_INFINITY, minFreeBytes: this.minFreeBytes, writable: true };
    }
    return this.last;
  }

  /** Throws 507 below the minimum free space. */
  assertWritable(): void {
    const s = this.space();
    if (s.writable) return;
    throw new AppError(
      'insufficient_storage',
      `The data folder's disk has ${mb(s.freeBytes)} MB free, under the ${mb(s.minFreeBytes)} MB kept free (QUARRY_MIN_FREE_DISK_MB); nothing was stored. Retry once space is freed; reads keep working`,
    );
  }
}

const mb = (bytes: number) => Math.floor(bytes / 2 ** 20);

/**
 * Puts the guard in front of the named methods of a store: each call is refused (throws 507) or,
 * for `skip`, answered with `skipped` without writing, while the disk is under the minimum.
 */
export function guardWrites<T extends object>(
  store: T, guard: DiskGuard, refuse: (keyof T)[], skip: { [K in keyof T]?: T[K] extends (...a: never[]) => Promise<infer R> ? R : never } = {},
): T {
  const target = store as Record<keyof T, unknown>;
  for (const name of refuse) {
    const method = (target[name] as (...a: unknown[]) => Promise<unknown>).bind(store);
    target[name] = async (...args: unknown[]) => {
      guard.assertWritable();
      return method(...args);
    };
  }
  for (const name of Object.keys(skip) as (keyof T)[]) {
    const method = (target[name] as (...a: unknown[]) => Promise<unknown>).bind(store);
    target[name] = async (...args: unknown[]) => (guard.space().writable ? method(...args) : skip[name]);
  }
  return store;
}
