import { crc32 } from 'node:zlib';

/**
 * The file format of an engine snapshot: a fixed head, a JSON header, then the typed arrays (blobs)
 * the header refers to by number, each 8-byte aligned so a reader makes views of them in place, with
 * no copy (a loaded index's postings are views of the file's bytes until they grow).
 *
 *   bytes 0-7    magic "QRYSNAP\n"
 *   bytes 8-11   format version (u32, little-endian)
 *   bytes 12-15  header length in bytes (u32)
 *   bytes 16-19  CRC-32 of everything from byte 24 to the end (u32)
 *   bytes 20-23  CRC-32 of the header (u32): checked before anything is read from it, while the whole
 *                file's checksum may still be under way in another thread (a start restores meanwhile)
 *   header       JSON: { blobs: [kind, offset, length][], body } (offsets from the first blob), zero padded to 8
 *   blobs
 *
 * A snapshot that fails any check (magic, version, length, checksum, a blob out of bounds) is
 * refused with SnapshotFormatError; the engine then loads the index from the store.
 */
const MAGIC = Buffer.from('QRYSNAP\n', 'latin1');
const HEAD = 24;
/** Bytes checksummed between two turns of the event loop, so a large snapshot never holds requests up. */
const CRC_SLICE = 8 << 20;

type BlobKind = 'u8' | 'u16' | 'i32' | 'u32' | 'f32' | 'f64';
export type Blob = Uint8Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;
const CONSTRUCTORS = { u8: Uint8Array, u16: Uint16Array, i32: Int32Array, u32: Uint32Array, f32: Float32Array, f64: Float64Array } as const;

function kindOf(a: Blob): BlobKind {
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Uint16Array) return 'u16';
  if (a instanceof Int32Array) return 'i32';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Float32Array) return 'f32';
  return 'f64';
}

export class SnapshotFormatError extends Error {}

/** Collects the blobs of a snapshot; `add` returns the number the header refers to a blob by. */
export class SnapshotWriter {
  private readonly blobs: Blob[] = [];

  add(blob: Blob): number {
    this.blobs.push(blob);
    return this.blobs.length - 1;
  }

  /** The file's bytes as chunks (views of the blobs, not copies), with the checksum computed in slices between `pause`s. */
  async encode(format: number, body: unknown, pause: () => Promise<void>): Promise<Uint8Array[]> {
    const { chunks, seal } = this.encodeUnsealed(format, body);
    let crc = 0;
    for (const c of chunks.slice(1)) {
      for (let at = 0; at < c.length; at += CRC_SLICE) {
        crc = crc32(c.subarray(at, at + CRC_SLICE), crc);
        await pause();
      }
    }
    return [seal(crc), ...chunks.slice(1)];
  }

  /**
   * The file's bytes as chunks, the first (the fixed head) without the checksum of the rest: `seal` gives the
   * head that carries it. A store that computes the checksum of what it wrote off the caller's thread
   * (SnapshotStore.write) spares the caller a second of CRC-32 at a million sections.
   */
  encodeUnsealed(format: number, body: unknown): { chunks: Uint8Array[]; seal: (checksumOfRest: number) => Uint8Array } {
    const table: [BlobKind, number, number][] = [];
    let offset = 0;
    for (const b of this.blobs) {
      table.push([kindOf(b), offset, b.length]);
      offset += align(b.byteLength);
    }
    const json = Buffer.from(JSON.stringify({ blobs: table, body }), 'utf8');
    const chunks: Uint8Array[] = [json, new Uint8Array(align(json.length) - json.length)];
    for (const b of this.blobs) {
      chunks.push(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
      if (align(b.byteLength) !== b.byteLength) chunks.push(new Uint8Array(align(b.byteLength) - b.byteLength));
    }
    const head = Buffer.alloc(HEAD);
    MAGIC.copy(head, 0);
    head.writeUInt32LE(format, 8);
    head.writeUInt32LE(json.length, 12);
    head.writeUInt32LE(crc32(json) >>> 0, 20);
    const seal = (checksumOfRest: number) => {
      const sealed = Buffer.from(head);
      sealed.writeUInt32LE(checksumOfRest >>> 0, 16);
      return sealed;
    };
    return { chunks: [head, ...chunks], seal };
  }
}

/** Reads a snapshot's header and makes views of its blobs. */
export class SnapshotReader {
  readonly body: unknown;
  /**
   * Settles once the checksum is known: rejects with SnapshotFormatError when it does not match. Nothing
   * read from this snapshot may be used before (a start restores the index meanwhile, then waits for it).
   */
  readonly verified: Promise<void>;
  private readonly table: [BlobKind, number, number][];
  private readonly bytes: Uint8Array;
  private readonly base: number;

  /** Where the checksummed bytes begin: give it to SnapshotStore.read for a checksum computed off this thread. */
  static readonly CHECKSUM_FROM = HEAD;

  private constructor(bytes: Uint8Array, header: { blobs: [BlobKind, number, number][]; body: unknown }, base: number, verified: Promise<void>) {
    this.bytes = bytes;
    this.table = header.blobs;
    this.body = header.body;
    this.base = base;
    this.verified = verified;
  }

  /**
   * Checks the head and the version, then parses the header. The checksum: `checksum`, the store's CRC-32
   * of the bytes from CHECKSUM_FROM on, is compared once it comes (see `verified`); without it the bytes
   * are checksummed here first, in slices between `pause`s.
   */
  static async open(file: Uint8Array, format: number, pause: () => Promise<void>, checksum: Promise<number> | null = null): Promise<SnapshotReader> {
    // Views need the blobs aligned in memory: a buffer from Node's small pool may not start at 8.
    const bytes = file.byteOffset % 8 === 0 ? file : new Uint8Array(file);
    if (bytes.length < HEAD || !Buffer.from(bytes.buffer, bytes.byteOffset, MAGIC.length).equals(MAGIC)) throw new SnapshotFormatError('not an engine snapshot');
    const view = new DataView(bytes.buffer, bytes.byteOffset, HEAD);
    const version = view.getUint32(8, true);
    if (version !== format) throw new SnapshotFormatError(`format ${version}, this engine reads ${format}`);
    const headerLength = view.getUint32(12, true);
    if (HEAD + headerLength > bytes.length) throw new SnapshotFormatError('truncated header');
    const headerBytes = Buffer.from(bytes.buffer, bytes.byteOffset + HEAD, headerLength);
    // Sizes and offsets come from the header: it is checked before anything is made of them.
    if (crc32(headerBytes) >>> 0 !== view.getUint32(20, true)) throw new SnapshotFormatError('header checksum mismatch');
    const expected = view.getUint32(16, true);
    const matches = (crc: number) => {
      if (crc >>> 0 !== expected) throw new SnapshotFormatError('checksum mismatch');
    };
    let verified: Promise<void>;
    if (checksum) {
      verified = checksum.then(matches);
      // Observed by whoever restores from this reader; a header that fails first leaves it unawaited.
      verified.catch(() => {});
    } else {
      let crc = 0;
      for (let at = HEAD; at < bytes.length; at += CRC_SLICE) {
        crc = crc32(bytes.subarray(at, Math.min(at + CRC_SLICE, bytes.length)), crc);
        await pause();
      }
      matches(crc);
      verified = Promise.resolve();
    }
    let header: { blobs: [BlobKind, number, number][]; body: unknown };
    try {
      header = JSON.parse(headerBytes.toString('utf8'));
    } catch {
      throw new SnapshotFormatError('unreadable header');
    }
    if (!header || !Array.isArray(header.blobs)) throw new SnapshotFormatError('header without blobs');
    return new SnapshotReader(bytes, header, HEAD + align(headerLength), verified);
  }

  /** Blob `n` as a view of the file's bytes, checked to be of `kind`. */
  blob<K extends BlobKind>(n: number, kind: K): InstanceType<(typeof CONSTRUCTORS)[K]> {
    const entry = this.table[n];
    if (!entry || entry[0] !== kind) throw new SnapshotFormatError(`blob ${n} is not ${kind}`);
    const Ctor = CONSTRUCTORS[kind];
    const [, offset, length] = entry;
    const start = this.bytes.byteOffset + this.base + offset;
    if (this.base + offset + length * Ctor.BYTES_PER_ELEMENT > this.bytes.length) throw new SnapshotFormatError(`blob ${n} out of bounds`);
    return new Ctor(this.bytes.buffer as ArrayBuffer, start, length) as InstanceType<(typeof CONSTRUCTORS)[K]>;
  }
}

const align = (n: number) => (n + 7) & ~7;
