import type { UnitTermIds } from './unit-terms.js';
import type { CountedTerms, FieldTerms } from '../rank/term-counts.js';
import { grown } from '../grown.js';
import { TermDictionary } from '../rank/term-dictionary.js';
import type { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-codec.js';

export interface UnitTokensSnapshot {
  bytes: number;
  offsets: number;
  terms: string[];
  fields: string[];
}

/**
 * The analysed tokens of every unit, per field and in order, packed in one byte buffer: a unit is
 * `[fields] ([field id] [count] [term id] × count) × fields`, every number a LEB128 varint, term
 * ids from one dictionary of the index. Phrases and text filters read a unit's tokens back; removing
 * a unit reads the tokens it was added with. Held as JS arrays of strings, tokens took ~1 KB of heap
 * per SciFact-size section; here they take ~2 bytes each outside the heap (ids are handed out in the
 * order terms first appear, so frequent terms get short ids).
 */
export class UnitTokens {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private offsets = new Float64Array(1024);
  private readonly fieldIds = new Map<string, number>();
  private readonly fields: string[] = [];
  /** Scratch for set(): occurrences per term id in the field being stored, zero between calls. */
  private tally = new Int32Array(1024);

  /** `terms`: the index's dictionary, which the posting lists and page frequencies share. */
  constructor(readonly terms = new TermDictionary()) {}

  /**
   * Stores the tokens of unit `unit` (units come in ascending order, each once), as numbers of `terms`,
   * and returns them counted per field, as countTerms would: the numbers count them, with no map per unit.
   */
  set(unit: number, tokens: UnitTermIds): CountedTerms {
    this.offsets = grown(this.offsets, unit + 1);
    this.offsets[unit] = this.used;
    const entries = Object.entries(tokens);
    this.write(entries.length);
    const counted: FieldTerms[] = [];
    for (const [field, list] of entries) {
      let f = this.fieldIds.get(field);
      if (f === undefined) {
        this.fieldIds.set(field, (f = this.fields.length));
        this.fields.push(field);
      }
      this.write(f);
      this.write(list.length);
      const ids: number[] = [];
      this.tally = grown(this.tally, this.terms.size);
      for (const id of list) {
        this.write(id);
        if (this.tally[id]++ === 0) ids.push(id);
      }
      if (list.length === 0) continue;
      counted.push(this.countedField(field, list.length, ids));
    }
    return counted;
  }

  /** The terms of unit `unit` counted per field, as set() returned them when it was stored. */
  counted(unit: number): CountedTerms {
    const read = this.reader(unit);
    this.tally = grown(this.tally, this.terms.size);
    const counted: FieldTerms[] = [];
    for (let fields = read(); fields > 0; fields--) {
      const field = this.fields[read()];
      const count = read();
      const ids: number[] = [];
      for (let i = 0; i < count; i++) {
        const id = read();
        if (this.tally[id]++ === 0) ids.push(id);
      }
      if (count > 0) counted.push(this.countedField(field, count, ids));
    }
    return counted;
  }

  /** Reads unit `unit`'s LEB128 varints one after the other. */
  private reader(unit: number): () => number {
    const bytes = this.bytes;
    let at = this.offsets[unit];
    return () => {
      let n = 0;
      let shift = 1;
      for (;;) {
        const b = bytes[at++];
        n += (b & 0x7f) * shift;
        if (b < 0x80) return n;
        shift *= 0x80;
      }
    };
  }

  /** One field's distinct terms with their counts from the tally, which it leaves at zero again. */
  private countedField(field: string, length: number, ids: number[]): FieldTerms {
    const terms = new Array<string>(ids.length);
    const freqs = new Array<number>(ids.length);
    for (let i = 0; i < ids.length; i++) {
      terms[i] = this.terms.term(ids[i]);
      freqs[i] = this.tally[ids[i]];
      this.tally[ids[i]] = 0;
    }
    return { field, length, terms, freqs, ids };
  }

  /** One field's tokens of unit `unit`, or [] when it has none (the other fields are skipped, not built). */
  field(unit: number, field: string): string[] {
    const read = this.reader(unit);
    for (let fields = read(); fields > 0; fields--) {
      const name = this.fields[read()];
      const count = read();
      if (name !== field) {
        for (let i = 0; i < count; i++) read();
        continue;
      }
      const list = new Array<string>(count);
      for (let i = 0; i < count; i++) list[i] = this.terms.term(read());
      return list;
    }
    return [];
  }

  /** The tokens of units 0 .. units - 1; the buffer is only appended to, so views of it hold. */
  snapshot(w: SnapshotWriter, units: number): UnitTokensSnapshot {
    return { bytes: w.add(this.bytes.subarray(0, this.used)), offsets: w.add(this.offsets.subarray(0, units)), terms: this.terms.list(), fields: [...this.fields] };
  }

  static restore(r: SnapshotReader, s: UnitTokensSnapshot): UnitTokens {
    const out = new UnitTokens(TermDictionary.from(s.terms));
    out.bytes = r.blob(s.bytes, 'u8');
    out.used = out.bytes.length;
    out.offsets = r.blob(s.offsets, 'f64');
    s.fields.forEach((f, i) => {
      out.fields.push(f);
      out.fieldIds.set(f, i);
    });
    return out;
  }

  /** Bytes held outside the heap (the buffers' lengths). */
  get byteLength(): number {
    return this.bytes.byteLength + this.offsets.byteLength;
  }

  private write(n: number): void {
    if (this.used + 10 > this.bytes.length) {
      const next = new Uint8Array(Math.max(1 << 16, this.bytes.length * 2));
      next.set(this.bytes.subarray(0, this.used));
      this.bytes = next;
    }
    while (n >= 0x80) {
      this.bytes[this.used++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.bytes[this.used++] = n;
  }
}
