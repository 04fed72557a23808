import { LENGTH_OF_CODE, lengthCode } from './lucene-length.js';
import { countTerms, type CountedTerms } from './term-counts.js';
import type { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-codec.js';

/** Postings per block of a list; each block keeps its own score bound (block-max pruning, dismax.ts). */
export const BLOCK_SHIFT = 7;
const BLOCK = 1 << BLOCK_SHIFT;

/**
 * An in-memory inverted index over units (sections), one posting list per field and term. Built
 * for scoring speed: postings are parallel typed arrays (unit ids ascending, term frequencies), field
 * lengths are a typed array per field. Removal marks a unit dead; its postings stay until compact().
 */
class PostingList {
  units = new Int32Array(4);
  /** Two bytes per posting: a list switches to four once a section holds a term more than 65,535 times. */
  freqs: Uint16Array | Int32Array = new Uint16Array(4);
  length = 0;
  /** Live postings, the document frequency BM25 needs. */
  df = 0;
  /**
   * The highest frequency and the shortest field length among the postings ever added (not lowered
   * by removals): with them a score bound holds for every posting, whatever the average length.
   */
  maxFreq = 0;
  minLength = Infinity;
  /**
   * The same per block of BLOCK postings (block i: postings i * BLOCK ..), so a bound holds for each block;
   * null while the list has one block, whose bounds are then maxFreq and minLength. Most lists never
   * outgrow one (a word in a few sections): two typed arrays fewer each was a third of an index state's
   * heap on SciFact, and of the garbage collector's work while documents are taken in.
   */
  blockMaxFreq: Int32Array | null = null;
  blockMinLength: Int32Array | null = null;

  add(unit: number, freq: number, length: number) {
    const block = this.length >> BLOCK_SHIFT;
    if (this.blockMaxFreq !== null && this.blockMinLength !== null) {
      if ((this.length & (BLOCK - 1)) === 0) {
        if (block === this.blockMaxFreq.length) {
          const maxFreq = new Int32Array(block * 2);
          maxFreq.set(this.blockMaxFreq);
          this.blockMaxFreq = maxFreq;
          const minLength = new Int32Array(block * 2);
          minLength.set(this.blockMinLength);
          this.blockMinLength = minLength;
        }
        this.blockMaxFreq[block] = freq;
        this.blockMinLength[block] = length;
      } else {
        if (freq > this.blockMaxFreq[block]) this.blockMaxFreq[block] = freq;
        if (length < this.blockMinLength[block]) this.blockMinLength[block] = length;
      }
    } else if (block > 0) {
      // Outgrowing the first block (this posting opens the second): its bounds are the list's so far.
      this.blockMaxFreq = Int32Array.of(this.maxFreq, freq);
      this.blockMinLength = Int32Array.of(this.minLength, length);
    }
    if (freq > this.maxFreq) this.maxFreq = freq;
    if (length < this.minLength) this.minLength = length;
    if (this.length === this.units.length || (freq > 0xffff && this.freqs instanceof Uint16Array)) {
      const units = new Int32Array(Math.max(4, this.units.length * (this.length === this.units.length ? 2 : 1)));
      units.set(this.units);
      this.units = units;
      const freqs = freq > 0xffff || this.freqs instanceof Int32Array ? new Int32Array(units.length) : new Uint16Array(units.length);
      freqs.set(this.freqs);
      this.freqs = freqs;
    }
    this.units[this.length] = unit;
    this.freqs[this.length] = freq;
    this.length++;
    this.df++;
  }

  /** Per block, the highest frequency and the shortest length (blockMaxFreq and blockMinLength, made for a list of one block). */
  blockBounds(): { maxFreq: Int32Array; minLength: Int32Array } {
    if (this.blockMaxFreq !== null && this.blockMinLength !== null) return { maxFreq: this.blockMaxFreq, minLength: this.blockMinLength };
    return { maxFreq: Int32Array.of(this.maxFreq), minLength: Int32Array.of(this.minLength) };
  }
}

export interface FieldStats {
  /** Units that have the field (Lucene's docCount). */
  docCount: number;
  sumLength: number;
}

class FieldIndex {
  readonly terms = new Map<string, PostingList>();
  /**
   * The same lists by term number (TermDictionary), filled as units counted with numbers come in:
   * adding a unit then indexes an array per term instead of hashing its string.
   */
  private readonly byId: (PostingList | undefined)[] = [];
  /** By unit: the code of its length in this field (lengthCode; 0 without the field). */
  lengths = new Uint8Array(1024);
  readonly stats: FieldStats = { docCount: 0, sumLength: 0 };

  ensure(unit: number) {
    if (unit < this.lengths.length) return;
    let n = this.lengths.length;
    while (n <= unit) n *= 2;
    const next = new Uint8Array(n);
    next.set(this.lengths);
    this.lengths = next;
  }

  /** The list of `term` (number `id` when known), made when there is none. */
  list(term: string, id: number | undefined): PostingList {
    let list = id === undefined ? undefined : this.byId[id];
    if (list) return list;
    list = this.terms.get(term);
    if (!list) this.terms.set(term, (list = new PostingList()));
    if (id !== undefined) {
      // Filled in order up to `id` so the array stays a dense one rather than a dictionary of holes.
      while (this.byId.length < id) this.byId.push(undefined);
      this.byId[id] = list;
    }
    return list;
  }

  /** The list of `term` if any, without making one. */
  existing(term: string, id: number | undefined): PostingList | undefined {
    return (id === undefined ? undefined : this.byId[id]) ?? this.terms.get(term);
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
      for (let i = 0; i < distinct.length; i++) field.list(distinct[i], ids?.[i]).add(unit, freqs[i], length);
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
        if (list) list.df--;
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
    return this.fields.get(field)?.terms.get(term);
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
    for (const field of this.fields.values()) {
      bytes += field.lengths.byteLength;
      for (const list of field.terms.values()) bytes += list.units.byteLength + list.freqs.byteLength + (list.blockMaxFreq?.byteLength ?? 0) + (list.blockMinLength?.byteLength ?? 0);
    }
    return bytes;
  }

  /** Posting lists held (one per field and term). */
  termCount(): number {
    let n = 0;
    for (const field of this.fields.values()) n += field.terms.size;
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
      const field = new FieldIndex();
      // Stored as lengths (format 6), held as their codes.
      const lengths = r.blob(f.lengths, 'i32');
      field.lengths = new Uint8Array(Math.max(1024, s.next));
      for (let u = 0; u < lengths.length; u++) field.lengths[u] = lengthCode(lengths[u]);
      Object.assign(field.stats, f.stats);
      const lists = r.blob(f.lists, 'i32');
      const units = r.blob(f.units, 'i32');
      const freqs = r.blob(f.freqs, f.wideFreqs ? 'i32' : 'u16');
      const blockMaxFreq = r.blob(f.blockMaxFreq, 'i32');
      const blockMinLength = r.blob(f.blockMinLength, 'i32');
      let b = 0;
      f.terms.forEach((term, i) => {
        const [first, length, df, maxFreq, minLength] = lists.subarray(i * 5, i * 5 + 5);
        const list = new PostingList();
        list.units = units.subarray(first, first + length);
        list.freqs = freqs.subarray(first, first + length);
        list.length = length;
        list.df = df;
        list.maxFreq = maxFreq;
        list.minLength = minLength;
        const n = blockCount(length);
        // A full last block makes the next posting open a new one, which grows these arrays first. A list of
        // one block keeps its bounds as maxFreq and minLength, unless the snapshot's block bound is tighter.
        if (n > 1 || blockMaxFreq[b] !== maxFreq || blockMinLength[b] !== minLength) {
          list.blockMaxFreq = blockMaxFreq.slice(b, b + n);
          list.blockMinLength = blockMinLength.slice(b, b + n);
        }
        b += n;
        field.terms.set(term, list);
      });
      index.fields.set(f.name, field);
    }
    return index;
  }
}

/** Posting lists copied between two turns of the event loop while a snapshot is taken. */
const PAUSE_EVERY_LISTS = 4096;

/** One field of a snapshot; the index must not change until it returns (ContentEngine freezes it). */
async function snapshotField(w: SnapshotWriter, name: string, field: FieldIndex, units: number, pause: () => Promise<void>): Promise<InvertedIndexSnapshot['fields'][number]> {
  const entries = [...field.terms];
  const terms = entries.map(([t]) => t);
  const lists = new Int32Array(entries.length * 5);
  let postings = 0;
  let blocks = 0;
  for (let i = 0; i < entries.length; i++) {
    const list = entries[i][1];
    lists[i * 5] = postings;
    lists[i * 5 + 1] = list.length;
    lists[i * 5 + 2] = list.df;
    lists[i * 5 + 3] = list.maxFreq;
    lists[i * 5 + 4] = list.minLength;
    postings += list.length;
    blocks += blockCount(list.length);
  }
  const unitIds = new Int32Array(postings);
  const wide = entries.some(([, list]) => list.freqs instanceof Int32Array);
  const freqs = wide ? new Int32Array(postings) : new Uint16Array(postings);
  const blockMaxFreq = new Int32Array(blocks);
  const blockMinLength = new Int32Array(blocks);
  let at = 0;
  let b = 0;
  for (let i = 0; i < entries.length; i++) {
    // Copying the lists takes a while at a million sections: other requests get turns in between.
    if (i % PAUSE_EVERY_LISTS === PAUSE_EVERY_LISTS - 1) await pause();
    const list = entries[i][1];
    // The length as counted above: the caller keeps the index unchanged until this returns, but a list
    // that grew meanwhile must not shift every list after it.
    const length = lists[i * 5 + 1];
    unitIds.set(list.units.subarray(0, length), at);
    freqs.set(list.freqs.subarray(0, length), at);
    const n = blockCount(length);
    const bounds = list.blockBounds();
    blockMaxFreq.set(bounds.maxFreq.subarray(0, n), b);
    blockMinLength.set(bounds.minLength.subarray(0, n), b);
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

export type { PostingList };
