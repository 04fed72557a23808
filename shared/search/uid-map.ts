import { randomInt } from 'node:crypto';
import { grown } from './grown.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from './snapshot/snapshot-codec.js';

const EMPTY = -1;
const DELETED = -2;
/** Slots in use (live and deleted) stay at most this share of the table: probes stay short. */
const MAX_LOAD = 0.5;

export interface UidMapSnapshot {
  seed: number;
  /**
   * The entries' keys, concatenated into one blob (Latin-1 bytes when every code unit fits, else UTF-16
   * code units as bytes), with each entry's end (in code units) and the entries deleted since the table
   * was rebuilt. As JSON arrays in the header, the uids of a million sections were most of the header's
   * 1.16 s parse at every start; cut at known ends out of one decoded string they skip the JSON parser
   * (loading that index took 3.82 s before, 3.01 s after).
   */
  keys: { text: number; utf16: boolean; ends: number; deleted: number[] };
  values: number;
  table: number;
  live: number;
  used: number;
}

/**
 * Document uid → number, as a `Map<string, number>` answers it (insertion order included), kept in a hash
 * table of typed arrays that a snapshot holds as they are: a start makes views of them instead of
 * inserting a million uids into a Map again (1.4 s of a 1M-section start went there). Open addressing
 * with linear probing over a power-of-two table; deleted entries leave a mark until the table is rebuilt.
 * The hash is seeded per table, so uids chosen to collide on one table do not collide on another.
 */
export class UidMap {
  private keys: (string | null)[] = [];
  private values = new Int32Array(16);
  /** Slot → entry, EMPTY or DELETED. */
  private table = new Int32Array(32).fill(EMPTY);
  private live = 0;
  private used = 0;
  private seed = randomInt(2 ** 31);

  get size(): number {
    return this.live;
  }

  get(key: string): number | undefined {
    const e = this.entryOf(key);
    return e < 0 ? undefined : this.values[e];
  }

  has(key: string): boolean {
    return this.entryOf(key) >= 0;
  }

  set(key: string, value: number): this {
    const mask = this.table.length - 1;
    let free = -1;
    for (let s = hash(key, this.seed) & mask; ; s = (s + 1) & mask) {
      const e = this.table[s];
      if (e === EMPTY) {
        if (free < 0) {
          free = s;
          this.used++;
        }
        break;
      }
      if (e === DELETED) {
        if (free < 0) free = s;
      } else if (this.keys[e] === key) {
        this.values[e] = value;
        return this;
      }
    }
    const entry = this.keys.length;
    this.keys.push(key);
    this.values = grown(this.values, entry + 1);
    this.values[entry] = value;
    this.table[free] = entry;
    this.live++;
    if (this.used > this.table.length * MAX_LOAD) this.rebuild();
    return this;
  }

  delete(key: string): boolean {
    const mask = this.table.length - 1;
    for (let s = hash(key, this.seed) & mask; ; s = (s + 1) & mask) {
      const e = this.table[s];
      if (e === EMPTY) return false;
      if (e !== DELETED && this.keys[e] === key) {
        this.table[s] = DELETED;
        this.keys[e] = null;
        this.live--;
        return true;
      }
    }
  }

  /** Live entries in the order their keys were first set (a key deleted and set again goes last). */
  forEach(fn: (value: number, key: string) => void): void {
    for (let e = 0; e < this.keys.length; e++) {
      const key = this.keys[e];
      if (key !== null) fn(this.values[e], key);
    }
  }

  *entries(): IterableIterator<[string, number]> {
    for (let e = 0; e < this.keys.length; e++) {
      const key = this.keys[e];
      if (key !== null) yield [key, this.values[e]];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, number]> {
    return this.entries();
  }

  *keysInOrder(): IterableIterator<string> {
    for (const key of this.keys) if (key !== null) yield key;
  }

  /** The map as it is now; values and table change in place later, so they are copied. */
  snapshot(w: SnapshotWriter): UidMapSnapshot {
    return {
      seed: this.seed, keys: keyTable(w, this.keys), values: w.add(this.values.slice(0, this.keys.length)), table: w.add(this.table.slice()),
      live: this.live, used: this.used,
    };
  }

  /** The map a snapshot holds: its arrays are views of the snapshot's bytes (copied once they must grow). */
  static restore(r: SnapshotReader, s: UidMapSnapshot): UidMap {
    const map = new UidMap();
    map.seed = s.seed;
    map.keys = keysOf(r, s.keys);
    map.values = r.blob(s.values, 'i32');
    map.table = r.blob(s.table, 'i32');
    map.live = s.live;
    map.used = s.used;
    return map;
  }

  private entryOf(key: string): number {
    const mask = this.table.length - 1;
    for (let s = hash(key, this.seed) & mask; ; s = (s + 1) & mask) {
      const e = this.table[s];
      if (e === EMPTY) return -1;
      if (e !== DELETED && this.keys[e] === key) return e;
    }
  }

  /** A table sized for the live entries (at most a quarter full), deleted entries dropped, order kept. */
  private rebuild(): void {
    let capacity = 32;
    while (capacity < this.live * 4) capacity *= 2;
    const keys: string[] = [];
    const values = new Int32Array(Math.max(16, this.live * 2));
    this.forEach((value, key) => {
      values[keys.length] = value;
      keys.push(key);
    });
    this.keys = keys;
    this.values = values;
    this.table = new Int32Array(capacity).fill(EMPTY);
    const mask = capacity - 1;
    for (let e = 0; e < keys.length; e++) {
      let s = hash(keys[e], this.seed) & mask;
      while (this.table[s] !== EMPTY) s = (s + 1) & mask;
      this.table[s] = e;
    }
    this.used = keys.length;
  }
}

function keyTable(w: SnapshotWriter, keys: (string | null)[]): UidMapSnapshot['keys'] {
  const ends = new Int32Array(keys.length);
  const deleted: number[] = [];
  let end = 0;
  keys.forEach((key, e) => {
    if (key === null) deleted.push(e);
    else end += key.length;
    ends[e] = end;
  });
  const joined = keys.join('');
  // Lone surrogates survive UTF-16 code units as they are; UTF-8 would replace them.
  const utf16 = /[^\0-\xff]/.test(joined);
  return { text: w.add(new Uint8Array(Buffer.from(joined, utf16 ? 'utf16le' : 'latin1'))), utf16, ends: w.add(ends), deleted };
}

function keysOf(r: SnapshotReader, t: UidMapSnapshot['keys']): (string | null)[] {
  const bytes = r.blob(t.text, 'u8');
  const joined = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(t.utf16 ? 'utf16le' : 'latin1');
  const ends = r.blob(t.ends, 'i32');
  const keys = new Array<string | null>(ends.length);
  let start = 0;
  for (let e = 0; e < ends.length; e++) {
    // Read before the file's checksum is known: damaged ends are an error, not a wrong key.
    if (!(ends[e] >= start && ends[e] <= joined.length)) throw new SnapshotFormatError('uid table out of order');
    keys[e] = joined.slice(start, ends[e]);
    start = ends[e];
  }
  for (const e of t.deleted) {
    if (!(e >= 0 && e < keys.length)) throw new SnapshotFormatError('uid table out of order');
    keys[e] = null;
  }
  return keys;
}

/** FNV-1a over UTF-16 code units, seeded, with a final mix so the low bits (the slot) depend on every unit. */
function hash(key: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) | 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}
