import { mmapAddon } from '../../native/mmap-addon.js';

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
