/**
 * Where search engines keep a snapshot of each index they hold (ContentEngine), so a process that
 * starts loads it instead of replaying the store. A cache: losing it costs a slower start, never an
 * answer. Snapshots live beside the process that writes them (the data folder), in both modes.
 */
export interface SnapshotBytes {
  bytes: Uint8Array;
  checksum: Promise<number> | null;
}

export interface SnapshotStore {
  /**
   * Names what the snapshots were built from (the store's location): a snapshot written against another
   * store is not read, even when a data folder is reused.
   */
  readonly scope: string;
  /**
   * The index's last snapshot, or null when there is none. The bytes are the caller's: it may write to
   * them (a memory map is private), and they stay as read when the snapshot is replaced or removed. With
   * `checksumFrom`, `checksum` is zlib's CRC-32 of the bytes from there to the end, computed where it does
   * not hold the caller's thread up (null without).
   */
  read(indexId: number, checksumFrom?: number): Promise<SnapshotBytes | null>;
  /**
   * Replaces the index's snapshot with these bytes, whole or not at all (a crash leaves the previous one).
   * With `seal`, the first chunk is replaced by `seal(crc)` (of the same length), `crc` being zlib's CRC-32 of
   * every byte after the first chunk, computed where it does not hold the caller's thread up.
   */
  write(indexId: number, chunks: readonly Uint8Array[], seal?: (crc: number) => Uint8Array): Promise<void>;
  remove(indexId: number): Promise<void>;
}
