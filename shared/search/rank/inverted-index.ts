import { LENGTH_OF_CODE, lengthCode } from './lucene-length.js';
import { countTerms, type CountedTerms } from './term-counts.js';
import type { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-codec.js';
import { grown } from '../grown.js';

/** Postings per block of a list; each block keeps its own score bound (block-max pruning, dismax.ts). */
export const BLOCK_SHIFT = 7;
const BLOCK = 1 << BLOCK_SHIFT;

/** Per block of a list, the highest frequency and the shortest length among its postings. */
export interface BlockBounds {
  maxFreq: Int32Array;
  minLength: Int32Array;
}

/**
 * A posting list as a query reads it: views of its postings (unit ids ascending, term frequencies)
 * and its statistics as they were when it was taken. Postings a list gains later go to slots past
 * `length` or to a new region, so a view taken stays valid while the index keeps growing.
 */
export class PostingList {
  constructor(
    readonly units: Int32Array,
    readonly freqs: Uint16Array | Int32Array,
    readonly length: number,
    /** Live postings, the document frequency BM25 needs. */
    readonly df: number,
    /**
     * The highest frequency and the shortest field length among the postings ever added (not lowered
     * by removals): with them a score bound holds for every posting, whatever the average length.
     */
    readonly maxFreq: number,
    readonly minLength: number,
    private readonly bounds: BlockBounds | undefined,
  ) {}

  /** Whether the list keeps bounds per block (it outgrew its first): otherwise maxFreq and minLength are its one block's. */
  get hasBlockBounds(): boolean {
    return this.bounds !== undefined;
  }

  /** Per block, the highest frequency and the shortest length (for a list of one block, made from maxFreq and minLength). */
  blockBounds(): BlockBounds {
    return this.bounds ?? { maxFreq: Int32Array.of(this.maxFreq), minLength: Int32Array.of(this.minLength) };
  }
}

export interface FieldStats {
  /** Units that have the field (Lucene's docCount). */
  docCount: number;
  sumLength: number;
}

/** A list's slots in FieldIndex.meta (8 per list, so one list's numbers share a cache line). */
const START = 0;
const LENGTH = 1;
const CAPACITY = 2;
const DF = 3;
const MAX_FREQ = 4;
const MIN_LENGTH = 5;
const BLOCKED = 6;
const META = 8;

/** Room a new list gets: most lists hold one or two postings (a word in a few sections). */
const FIRST_CAPACITY = 2;
/** From this many postings a list's region grows by half rather than doubling: long lists hold most postings. */
const LARGE_LIST = 1024;

/**
 * One field's posting lists, laid out for size: every list's postings in two shared pools (unit ids,
 * frequencies), a list being a region of them, and each list's numbers in one typed array, so a list
 * costs no heap object of its own (an object and two typed arrays per list were most of an index
 * state's heap and of the collector's work while documents are taken in). A list that fills its
 * region moves to a larger one at the end of the pool (twice its size, half again for long lists); a
 * pool that is full is copied to one with half again the room its lists take, leaving behind the
 * regions they left. Lists restored from a snapshot stay in its bytes (the base pool, a negative
 * start) until they first grow. Nothing written to a region is
 * ever overwritten, so the views queries hold stay valid.
 */
class FieldIndex {
  /** List number by term, in the order the lists were made (a snapshot's order). */
  readonly terms = new Map<string, number>();
  /**
   * List number + 1 by term number (TermDictionary), 0 for none, filled as units counted with numbers
   * come in: adding a unit then indexes an array per term instead of hashing its string.
   */
  private byId = new Int32Array(1024);
  private meta = new Int32Array(1024 * META);
  /** Block bounds of the lists that outgrew one block (BLOCKED set). */
  private readonly blocks = new Map<number, BlockBounds>();
  private units = new Int32Array(4096);
  /** Two bytes per posting: the pool switches to four once a section holds a term more than 65,535 times. */
  private freqs: Uint16Array | Int32Array = new Uint16Array(4096);
  /** Slots of the pool handed out to regions, and of those the regions lists are in now. */
  private used = 0;
  private held = 0;
  private baseUnits = new Int32Array(0);
  private baseFreqs: Uint16Array | Int32Array = new Uint16Array(0);
  /** By unit: the code of its length in this field (lengthCode; 0 without the field). */
  lengths = new Uint8Array(1024);
  readonly stats: FieldStats = { docCount: 0, sumLength: 0 };

  get listCount(): number {
    return this.terms.size;
  }

  ensure(unit: number) {
    if (unit < this.lengths.length) return;
    let n = this.lengths.length;
    while (n <= unit) n *= 2;
    const next = new Uint8Array(n);
    next.set(this.lengths);
    this.lengths = next;
  }

  /** The number of the list of `term` (number `id` when known), made when there is none. */
  list(term: string, id: number | undefined): number {
    if (id !== undefined && id < this.byId.length && this.byId[id] > 0) return this.byId[id] - 1;
    let list = this.terms.get(term);
    if (list === undefined) {
      list = this.terms.size;
      // A new list's slots were never written (lists are only added, arrays grow zeroed): all 0 but its shortest length.
      this.meta = grown(this.meta, (list + 1) * META);
      this.meta[list * META + MIN_LENGTH] = 0x7fffffff;
      this.terms.set(term, list);
    }
    if (id !== undefined) {
      this.byId = grown(this.byId, id + 1);
      this.byId[id] = list + 1;
    }
    return list;
  }

  /** The number of the list of `term` if there is one, without making one. */
  existing(term: string, id: number | undefined): number | undefined {
    if (id !== undefined && id < this.byId.length && this.byId[id] > 0) return this.byId[id] - 1;
    return this.terms.get(term);
  }

  add(list: number, unit: number, freq: number, length: number): void {
    const meta = this.meta;
    const m = list * META;
    const n = meta[m + LENGTH];
    const block = n >> BLOCK_SHIFT;
    if (meta[m + BLOCKED] === 1) {
      const bounds = this.blocks.get(list)!;
      if ((n & (BLOCK - 1)) === 0) {
        bounds.maxFreq = grown(bounds.maxFreq, block + 1);
        bounds.minLength = grown(bounds.minLength, block + 1);
        bounds.maxFreq[block] = freq;
        bounds.minLength[block] = length;
      } else {
        if (freq > bounds.maxFreq[block]) bounds.maxFreq[block] = freq;
        if (length < bounds.minLength[block]) bounds.minLength[block] = length;
      }
    } else if (block > 0) {
      // Outgrowing the first block (this posting opens the second): its bounds are the list's so far.
      this.blocks.set(list, { maxFreq: Int32Array.of(meta[m + MAX_FREQ], freq), minLength: Int32Array.of(meta[m + MIN_LENGTH], length) });
      meta[m + BLOCKED] = 1;
    }
    if (freq > meta[m + MAX_FREQ]) meta[m + MAX_FREQ] = freq;
    if (length < meta[m + MIN_LENGTH]) meta[m + MIN_LENGTH] = length;
    if (freq > 0xffff && this.freqs instanceof Uint16Array) this.freqs = Int32Array.from(this.freqs);
    if (n === meta[m + CAPACITY]) this.move(list, n === 0 ? FIRST_CAPACITY : n < LARGE_LIST ? n * 2 : n + (n >> 1));
    const at = this.meta[m + START] + n;
    this.units[at] = unit;
    this.freqs[at] = freq;
    this.meta[m + LENGTH] = n + 1;
    this.meta[m + DF]++;
  }

  /** Drops a removed unit's posting from the list's document frequency (the posting stays until a reload). */
  removed(list: number): void {
    this.meta[list * META + DF]--;
  }

  /** The list as a query reads it. */
  view(list: number): PostingList {
    const m = list * META;
    const start = this.meta[m + START];
    const length = this.meta[m + LENGTH];
    const base = start < 0;
    const units = base ? this.baseUnits : this.units;
    const freqs = base ? this.baseFreqs : this.freqs;
    const at = base ? -1 - start : start;
    return new PostingList(
      units.subarray(at, at + length), freqs.subarray(at, at + length), length,
      this.meta[m + DF], this.meta[m + MAX_FREQ], this.meta[m + MIN_LENGTH],
      this.meta[m + BLOCKED] === 1 ? this.blocks.get(list) : undefined,
    );
  }

  /** Gives the list a region of `capacity` slots at the end of the pool, its postings copied there. */
  private move(list: number, capacity: number): void {
    if (this.used + capacity > this.units.length) this.compact(capacity);
    const m = list * META;
    const start = this.meta[m + START];
    const length = this.meta[m + LENGTH];
    const to = this.used;
    if (start < 0) {
      copy(this.baseUnits, this.baseFreqs, -1 - start, this.units, this.freqs, to, length);
    } else {
      copy(this.units, this.freqs, start, this.units, this.freqs, to, length);
      this.held -= this.meta[m + CAPACITY];
    }
    this.meta[m + START] = to;
    this.meta[m + CAPACITY] = capacity;
    this.used += capacity;
    this.held += capacity;
  }

  /**
   * New pools twice the room the lists' regions take (and room for `more`), the regions copied in list
   * order. The old pools stay as they are for the views that hold them.
   */
  private compact(more: number): void {
    const size = Math.max(4096, this.held + more + ((this.held + more) >> 1));
    const units = new Int32Array(size);
    const freqs = this.freqs instanceof Int32Array ? new Int32Array(size) : new Uint16Array(size);
    const meta = this.meta;
    let to = 0;
    for (let list = 0, lists = this.terms.size; list < lists; list++) {
      const m = list * META;
      const start = meta[m + START];
      if (start < 0 || meta[m + CAPACITY] === 0) continue;
      copy(this.units, this.freqs, start, units, freqs, to, meta[m + LENGTH]);
      meta[m + START] = to;
      to += meta[m + CAPACITY];
    }
    this.units = units;
    this.freqs = freqs;
    this.used = to;
  }

  /** Bytes of the pools, the lists' numbers, their block bounds and the lengths. */
  byteLength(): number {
    let bytes = this.lengths.byteLength + this.units.byteLength + this.freqs.byteLength + this.baseUnits.byteLength + this.baseFreqs.byteLength
      + this.meta.byteLength + this.byId.byteLength;
    for (const b of this.blocks.values()) bytes += b.maxFreq.byteLength + b.minLength.byteLength;
    return bytes;
  }

  /** Whether some frequency is kept in four bytes. */
  get wideFreqs(): boolean {
    return this.freqs instanceof Int32Array || this.baseFreqs instanceof Int32Array;
  }

  /** List `list`'s numbers for a snapshot: [length, df, maxFreq, minLength]. */
  numbers(list: number): [number, number, number, number] {
    const m = list * META;
    return [this.meta[m + LENGTH], this.meta[m + DF], this.meta[m + MAX_FREQ], this.meta[m + MIN_LENGTH]];
  }

  /** Copies the list's first `length` postings to `units` and `freqs` at `to`. */
  copyPostings(list: number, units: Int32Array, freqs: Uint16Array | Int32Array, to: number, length: number): void {
    const start = this.meta[list * META + START];
    if (start < 0) copy(this.baseUnits, this.baseFreqs, -1 - start, units, freqs, to, length);
    else copy(this.units, this.freqs, start, units, freqs, to, length);
  }

  /** The list's bounds per block when it keeps them (it outgrew one block). */
  blockBounds(list: number): BlockBounds | undefined {
    return this.meta[list * META + BLOCKED] === 1 ? this.blocks.get(list) : undefined;
  }

  /** A field whose lists are the snapshot's: their postings read from its bytes until they grow. */
  static restore(r: SnapshotReader, f: InvertedIndexSnapshot['fields'][number], units: number): FieldIndex {
    const field = new FieldIndex();
    // Stored as lengths (format 6), held as their codes.
    const lengths = r.blob(f.lengths, 'i32');
    field.lengths = new Uint8Array(Math.max(1024, units));
    for (let u = 0; u < lengths.length; u++) field.lengths[u] = lengthCode(lengths[u]);
    Object.assign(field.stats, f.stats);
    const lists = r.blob(f.lists, 'i32');
    field.baseUnits = r.blob(f.units, 'i32');
    field.baseFreqs = r.blob(f.freqs, f.wideFreqs ? 'i32' : 'u16');
    // Lists moving out of the snapshot's bytes keep their frequencies' width.
    if (f.wideFreqs) field.freqs = new Int32Array(field.units.length);
    const blockMaxFreq = r.blob(f.blockMaxFreq, 'i32');
    const blockMinLength = r.blob(f.blockMinLength, 'i32');
    const count = f.terms.length;
    field.meta = new Int32Array(Math.max(1024, count) * META);
    const meta = field.meta;
    let b = 0;
    for (let i = 0; i < count; i++) {
      const first = lists[i * 5];
      const length = lists[i * 5 + 1];
      const maxFreq = lists[i * 5 + 3];
      const minLength = lists[i * 5 + 4];
      const m = i * META;
      meta[m + START] = -1 - first;
      meta[m + LENGTH] = length;
      // As long as the list: the first posting it gains moves it out of the snapshot's bytes.
      meta[m + CAPACITY] = length;
      meta[m + DF] = lists[i * 5 + 2];
      meta[m + MAX_FREQ] = maxFreq;
      meta[m + MIN_LENGTH] = minLength;
      const n = blockCount(length);
      // A full last block makes the next posting open a new one, which grows these arrays first. A list of
      // one block keeps its bounds as maxFreq and minLength, unless the snapshot's block bound is tighter.
      if (n > 1 || blockMaxFreq[b] !== maxFreq || blockMinLength[b] !== minLength) {
        field.blocks.set(i, { maxFreq: blockMaxFreq.slice(b, b + n), minLength: blockMinLength.slice(b, b + n) });
        meta[m + BLOCKED] = 1;
      }
      b += n;
      field.terms.set(f.terms[i], i);
    }
    return field;
  }
}

/** Copies `n` postings (a loop for the many short lists: subarray and set make two objects a call). */
function copy(fromUnits: Int32Array, fromFreqs: Uint16Array | Int32Array, from: number, toUnits: Int32Array, toFreqs: Uint16Array | Int32Array, to: number, n: number): void {
  if (n > 32) {
    toUnits.set(fromUnits.subarray(from, from + n), to);
    toFreqs.set(fromFreqs.subarray(from, from + n), to);
    return;
  }
  for (let i = 0; i < n; i++) {
    toUnits[to + i] = fromUnits[from + i];
    toFreqs[to + i] = fromFreqs[from + i];
  }
}

export type UnitTerms = Record<string, string[]>;

/** An inverted index as a snapshot stores it: per field, every list's postings concatenated. */
export interface InvertedIndexSnapshot {
  next: number;
  liveUnits: number;
  alive: number;
  fields: {
    name: string;
    lengths: number;
    stats: FieldStats;
    terms: string[];
    /** Per list: [first posting, length, df, maxFreq, minLength] (Int32). */
    lists: number;
    units: number;
    freqs: number;
    /** Whether freqs are Int32 (some frequency above 65,535) rather than Uint16. */
    wideFreqs: boolean;
    blockMaxFreq: number;
    blockMinLength: number;
  }[];
}

/**
 * An in-memory inverted index over units (sections), one posting list per field and term, built for
 * scoring speed: postings in typed arrays (FieldIndex), field lengths a typed array per field. Removal
 * marks a unit dead; its postings stay until the index is loaded again.
 */
export class InvertedIndex {
  private readonly fields = new Map<string, FieldIndex>();
  private alive = new Uint8Array(1024);
  private next = 0;
  liveUnits = 0;

  /** Adds a unit with its analyzed terms per field; returns its unit id. */
  add(terms: UnitTerms): number {
    return this.addCounted(countTerms(terms));
  }

  /** add() for terms already counted (see countTerms). */
  addCounted(terms: CountedTerms): number {
    const unit = this.next++;
    if (unit >= this.alive.length) {
      const a = new Uint8Array(this.alive.length * 2);
      a.set(this.alive);
      this.alive = a;
    }
    this.alive[unit] = 1;
    this.liveUnits++;
    for (const { field: name, length: tokens, terms: distinct, freqs, ids } of terms) {
      let field = this.fields.get(name);
      if (!field) this.fields.set(name, (field = new FieldIndex()));
      field.ensure(unit);
      // BM25 sees Lucene's one-byte length; the average stays exact, as in Lucene.
      const code = (field.lengths[unit] = lengthCode(tokens));
      const length = LENGTH_OF_CODE[code];
      field.stats.docCount++;
      field.stats.sumLength += tokens;
      for (let i = 0; i < distinct.length; i++) field.add(field.list(distinct[i], ids?.[i]), unit, freqs[i], length);
    }
    return unit;
  }

  /** Removes a unit; `terms` must be what it was added with, to keep df and lengths exact. */
  remove(unit: number, terms: UnitTerms): void {
    this.removeCounted(unit, countTerms(terms));
  }

  /** remove() for terms already counted (see countTerms). */
  removeCounted(unit: number, terms: CountedTerms): void {
    if (!this.alive[unit]) return;
    this.alive[unit] = 0;
    this.liveUnits--;
    for (const { field: name, length, terms: distinct, ids } of terms) {
      const field = this.fields.get(name);
      if (!field) continue;
      field.stats.docCount--;
      field.stats.sumLength -= length;
      for (let i = 0; i < distinct.length; i++) {
        const list = field.existing(distinct[i], ids?.[i]);
        if (list !== undefined) field.removed(list);
      }
    }
  }

  isAlive(unit: number): boolean {
    return this.alive[unit] === 1;
  }

  /** No unit was removed since the last compaction: scoring can skip the per-posting isAlive (one memory read less each). */
  allAlive(): boolean {
    return this.liveUnits === this.next;
  }

  postings(field: string, term: string): PostingList | undefined {
    const f = this.fields.get(field);
    const list = f?.terms.get(term);
    return list === undefined ? undefined : f!.view(list);
  }

  /** By unit, the code of its length in `field` (LENGTH_OF_CODE gives the length). */
  fieldLengths(field: string): Uint8Array | undefined {
    return this.fields.get(field)?.lengths;
  }

  fieldStats(field: string): FieldStats {
    return this.fields.get(field)?.stats ?? { docCount: 0, sumLength: 0 };
  }

  get unitCount(): number {
    return this.next;
  }

  /** Bytes of the postings, lengths and marks (typed arrays). */
  byteLength(): number {
    let bytes = this.alive.byteLength;
    for (const field of this.fields.values()) bytes += field.byteLength();
    return bytes;
  }

  /** Posting lists held (one per field and term). */
  termCount(): number {
    let n = 0;
    for (const field of this.fields.values()) n += field.listCount;
    return n;
  }

  /**
   * The index as blobs of `w`, its posting lists concatenated per field, handing the event loop over
   * (`pause`) every few thousand lists; the caller keeps the index unchanged until it returns.
   */
  async snapshot(w: SnapshotWriter, pause: () => Promise<void>): Promise<InvertedIndexSnapshot> {
    const fields: InvertedIndexSnapshot['fields'] = [];
    const head = { next: this.next, liveUnits: this.liveUnits, alive: w.add(this.alive.slice(0, this.next)), fields };
    for (const [name, field] of this.fields) {
      fields.push(await snapshotField(w, name, field, this.next, pause));
    }
    return head;
  }

  /** An index from a snapshot; its postings are views of the snapshot's bytes until they grow. */
  static restore(r: SnapshotReader, s: InvertedIndexSnapshot): InvertedIndex {
    const index = new InvertedIndex();
    index.next = s.next;
    index.liveUnits = s.liveUnits;
    index.alive = new Uint8Array(Math.max(1024, s.next));
    index.alive.set(r.blob(s.alive, 'u8'));
    for (const f of s.fields) {
      const field = FieldIndex.restore(r, f, s.next);
      index.fields.set(f.name, field);
    }
    return index;
  }
}

/** Posting lists copied between two turns of the event loop while a snapshot is taken. */
const PAUSE_EVERY_LISTS = 4096;

/** One field of a snapshot; the index must not change until it returns (ContentEngine freezes it). */
async function snapshotField(w: SnapshotWriter, name: string, field: FieldIndex, units: number, pause: () => Promise<void>): Promise<InvertedIndexSnapshot['fields'][number]> {
  // Lists are numbered in the order their terms were added: the terms' order in the map.
  const terms = [...field.terms.keys()];
  const count = terms.length;
  const lists = new Int32Array(count * 5);
  let postings = 0;
  let blocks = 0;
  for (let i = 0; i < count; i++) {
    const [length, df, maxFreq, minLength] = field.numbers(i);
    lists[i * 5] = postings;
    lists[i * 5 + 1] = length;
    lists[i * 5 + 2] = df;
    lists[i * 5 + 3] = maxFreq;
    lists[i * 5 + 4] = minLength;
    postings += length;
    blocks += blockCount(length);
  }
  const unitIds = new Int32Array(postings);
  const wide = field.wideFreqs;
  const freqs = wide ? new Int32Array(postings) : new Uint16Array(postings);
  const blockMaxFreq = new Int32Array(blocks);
  const blockMinLength = new Int32Array(blocks);
  let at = 0;
  let b = 0;
  for (let i = 0; i < count; i++) {
    // Copying the lists takes a while at a million sections: other requests get turns in between.
    if (i % PAUSE_EVERY_LISTS === PAUSE_EVERY_LISTS - 1) await pause();
    // The length as counted above: the caller keeps the index unchanged until this returns, but a list
    // that grew meanwhile must not shift every list after it.
    const length = lists[i * 5 + 1];
    field.copyPostings(i, unitIds, freqs, at, length);
    const n = blockCount(length);
    const bounds = field.blockBounds(i);
    if (bounds) {
      blockMaxFreq.set(bounds.maxFreq.subarray(0, n), b);
      blockMinLength.set(bounds.minLength.subarray(0, n), b);
    } else {
      blockMaxFreq[b] = lists[i * 5 + 3];
      blockMinLength[b] = lists[i * 5 + 4];
    }
    at += length;
    b += n;
  }
  return {
    name, terms, stats: { ...field.stats },
    lengths: w.add(decodedLengths(field.lengths, units)),
    lists: w.add(lists), units: w.add(unitIds), freqs: w.add(freqs), wideFreqs: wide,
    blockMaxFreq: w.add(blockMaxFreq), blockMinLength: w.add(blockMinLength),
  };
}

/** Each unit's length as its code stands for (a loop: Int32Array.from with a map costs ~40 ns a unit). */
function decodedLengths(codes: Uint8Array, units: number): Int32Array {
  const out = new Int32Array(units);
  for (let u = 0; u < units; u++) out[u] = LENGTH_OF_CODE[codes[u]];
  return out;
}

const blockCount = (postings: number) => (postings + BLOCK - 1) >> BLOCK_SHIFT;

