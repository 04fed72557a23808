import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotBytes, SnapshotStore } from '../ports/snapshot-store.js';
import { checksumInThread } from './checksum-thread.js';
import { mapFile } from './map-file.js';

const SUFFIX = '.snapshot';
/** Bytes asked of the file system per read. */
const READ_STEP = 64 << 20;
let writes = 0;

/**
 * Snapshots as files of one folder (`<data folder>/snapshots/index-<id>.snapshot`). A write goes to a
 * temporary file, is synced, then renamed over the old one, and the folder is synced: a crash at any
 * point leaves the previous snapshot or the new one, whole. Temporary files a crash left behind are
 * removed when the store opens.
 */
export class FileSnapshotStore implements SnapshotStore {
  private ready: Promise<void> | null = null;

  /**
   * `map` (default true): a snapshot is memory-mapped when the addon was built (map-file.ts), so a start
   * touches only the pages it uses; otherwise, and with false, it is read into memory.
   */
  constructor(private readonly dir: string, readonly scope: string, private readonly map = true) {}

  async read(indexId: number, checksumFrom?: number): Promise<SnapshotBytes | null> {
    await this.open();
    let file;
    try {
      file = await open(this.path(indexId), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let checksum: Promise<number> | null = null;
    try {
      const { size } = await file.stat();
      // The checksum thread reads this descriptor, so it sees this file even if a newer one is renamed over it.
      if (checksumFrom !== undefined) {
        checksum = checksumInThread(file.fd, Math.min(checksumFrom, size), size);
        // Whether or not the caller gets as far as awaiting it.
        checksum.catch(() => {});
      }
      return { bytes: await this.bytesOf(file, size), checksum };
    } finally {
      const opened = file;
      if (checksum) void checksum.then(() => opened.close(), () => opened.close()).catch(() => {});
      else await file.close();
    }
  }

  private async bytesOf(file: FileHandle, size: number): Promise<Uint8Array> {
    // Snapshots are only ever replaced by a rename, never cut short in place: safe to map.
    const mapped = this.map ? mapFile(file.fd, size) : null;
    if (mapped) return mapped;
    // Large reads into one buffer: readFile's small steps took 7 s of waiting for a 1.8 GB snapshot.
    const bytes = new Uint8Array(size);
    for (let at = 0; at < size; ) {
      const { bytesRead } = await file.read(bytes, at, Math.min(READ_STEP, size - at), at);
      if (bytesRead === 0) return bytes.subarray(0, at);
      at += bytesRead;
    }
    return bytes;
  }

  async write(indexId: number, chunks: readonly Uint8Array[], seal?: (crc: number) => Uint8Array): Promise<void> {
    await this.open();
    const temp = `${this.path(indexId)}.${process.pid}.${++writes}.tmp`;
    try {
      // Read and write: the checksum thread reads this descriptor back.
      const file = await open(temp, 'w+', 0o600);
      try {
        let size = 0;
        for (const c of chunks) {
          await file.write(c);
          size += c.byteLength;
        }
        if (seal && chunks.length > 0) {
          // The checksum of what was just written, read back by a thread (the pages are in the cache): in
          // slices on this thread it held the event loop ~6 ms at a time, 1.5 s in all at a million sections.
          const head = seal(await checksumInThread(file.fd, chunks[0].byteLength, size));
          if (head.byteLength !== chunks[0].byteLength) throw new Error('a sealed head must keep its length');
          await file.write(head, 0, head.byteLength, 0);
        }
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, this.path(indexId));
      await this.syncFolder();
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async remove(indexId: number): Promise<void> {
    await this.open();
    await rm(this.path(indexId), { force: true });
  }

  private path(indexId: number): string {
    return join(this.dir, `index-${indexId}${SUFFIX}`);
  }

  private open(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      // Another process's write may be under way: only files of processes that are gone are leftovers.
      for (const name of await readdir(this.dir)) {
        const pid = /\.(\d+)\.\d+\.tmp$/.exec(name)?.[1];
        if (pid && !alive(Number(pid))) await rm(join(this.dir, name), { force: true });
      }
    })();
    return this.ready;
  }

  private async syncFolder(): Promise<void> {
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
