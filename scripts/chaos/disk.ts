import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface SmallDisk {
  path: string;
  sizeMb: number;
  unmount(): void;
}

/**
 * A size-limited file system for the data folder (tmpfs), so the disk-full scenario can fill it
 * without touching the machine's disk. Needs the right to mount (root, or CAP_SYS_ADMIN); without
 * it the reason is returned and the scenario reports it.
 */
export function mountSmallDisk(path: string, sizeMb: number): SmallDisk | { reason: string } {
  mkdirSync(path, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', path], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || r.stdout).trim() || `exit code ${r.status}`;
    return { reason: `mount -t tmpfs -o size=${sizeMb}m tmpfs ${path} failed: ${why}` };
  }
  return {
    path, sizeMb,
    unmount: () => {
      const u = spawnSync('umount', ['-l', path], { encoding: 'utf8' });
      if (u.status !== 0) throw new Error(`umount ${path}: ${u.stderr.trim()}`);
    },
  };
}

/** Free bytes of the file system holding `path`. */
export function freeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

/**
 * Fills the file system holding `dir` to the last block with one file; returns what releases it.
 * fallocate takes all but the last megabyte at once; writes shrinking from 1 MB to 4 KB at ENOSPC
 * take the rest.
 */
export function fillDisk(dir: string): { filled: number; release: () => void } {
  const file = join(dir, 'chaos-filler');
  const bulk = Math.max(0, freeBytes(dir) - 2 ** 20);
  if (bulk > 0) spawnSync('fallocate', ['-l', String(bulk), file]);
  const fd = openSync(file, 'a');
  let filled = 0;
  try {
    for (let chunk = 2 ** 20; chunk >= 4096; chunk /= 4) {
      const buf = Buffer.alloc(chunk, 1);
      for (;;) {
        try {
          filled += writeSync(fd, buf);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return { filled: filled + bulk, release: () => rmSync(file, { force: true }) };
}
