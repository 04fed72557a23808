import type { IndexRecord } from '../../indexes/index-schema.js';
import type { DocumentFields } from '../../storage/ports/document-store.js';
import type { SectionView } from '../../storage/ports/section-store.js';
import { createAnalyzer, type Analyzer } from '../analyzer/analyzer.js';
import { InvertedIndex, type InvertedIndexSnapshot, type UnitTerms } from '../rank/inverted-index.js';
import { PageFrequencies, type PageFrequenciesSnapshot } from '../rank/page-frequencies.js';
import type { CountedTerms } from '../rank/term-counts.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-codec.js';
import { own } from '../../records/own.js';
import { present } from '../filter/leaf-matchers.js';
import { grown } from '../grown.js';
import { UidMap, type UidMapSnapshot } from '../uid-map.js';
import { UnitTokens, type UnitTokensSnapshot } from './unit-tokens.js';
import { documentUnitTermIds } from './unit-terms.js';

export { HEADING_FIELD } from './unit-terms.js';

/** Where a unit's section is in the store: its document, the version it belongs to, its position. */
export interface UnitRef {
  uid: string;
  version: number;
  ord: number;
  /** The section's id in the store as loaded (a newer version of the document has other ids). */
  section: number;
}

/** Text fields past this many per index stay resident (one bit per field in a 32-bit mask). */
const MASK_BITS = 31;

/**
 * One index, in memory, laid out for size: the inverted index over its sections (units); per unit its
 * document, version and position in typed arrays and its analysed tokens in a packed buffer
 * (UnitTokens); per document its units (consecutive ids) and the stored fields filters read, without
 * the text fields, whose tokens are held instead. Section texts and stored fields of results are read
 * from the store for the few results returned (ContentEngine.sections, DocumentStore.fields). Units of
 * replaced or removed documents stay as dead ids until the index is loaded again.
 */
/** An index state as a snapshot stores it (numbers name blobs of the snapshot). */
export interface IndexStateSnapshot {
  seq: number;
  inverted: InvertedIndexSnapshot;
  pages: PageFrequenciesSnapshot;
  tokens: UnitTokensSnapshot;
  unitDoc: number;
  unitOrd: number;
  unitVersion: number;
  unitField: number;
  unitSection: number;
  sectionFields: string[];
  /** Document uid → document number, the live documents in the order they were set. */
  docNumbers: UidMapSnapshot;
  /** Document numbers handed out so far (removed ones included). */
  docCount: number;
  docFirstUnit: number;
  docUnitCount: number;
  docHasMetadata: number;
  docTokenOnly: number;
  docTextPresent: number;
  /** The stored filter fields of the documents that have any, by document number (most have none). */
  docResident: [number, DocumentFields][];
}

export class IndexState {
  inverted = new InvertedIndex();
  private tokens = new UnitTokens();
  /** Page-level document frequencies (the search interface's page scores), numbered by the tokens' dictionary. */
  pages = new PageFrequencies(this.tokens.terms);
  readonly analyzer: Analyzer;
  /** The change-feed entry this copy has applied up to. */
  seq = 0;
  /** Set when the feed was pruned past `seq`: this copy must be loaded again. */
  behindFeed = false;

  private unitDoc = new Int32Array(1024);
  private unitOrd = new Int32Array(1024);
  private unitVersion = new Float64Array(1024);
  /** Per unit, the id of its section's field (`sectionFields`). */
  private unitField = new Int32Array(1024);
  /** Per unit, its section's id in the store: results are read by it (one lookup instead of two). */
  private unitSection = new Float64Array(1024);
  private readonly sectionFieldIds = new Map<string, number>();

  /** Live documents by uid, in the order they were (last) set: uid -> document number. */
  private docNumbers = new UidMap();
  private docUids: string[] = [];
  private docFirstUnit = new Int32Array(1024);
  private docUnitCount = new Int32Array(1024);
  private docHasMetadata = new Uint8Array(1024);
  /** Per document, a bit per text field (`textFields`) whose value is held as tokens only, and whether it was present. */
  private docTokenOnly = new Int32Array(1024);
  private docTextPresent = new Int32Array(1024);
  /** Per document, the stored fields other than those held as tokens (undefined when none). */
  private docResident: (DocumentFields | undefined)[] = [];
  private readonly textFields: string[];

  /**
   * Per filter string, each unit's verdict (0 not yet known, 1 passes, -1 fails), filled lazily by
   * queries, like Solr's filterCache: apps send the same few filters again and again. Any change to
   * the index empties it. With each, the posting lists (field and term) whose units all have a
   * verdict: a query over those judges nothing, instead of walking them to find units without one.
   */
  private readonly filterCache = new Map<string, FilterVerdicts>();

  constructor(readonly index: IndexRecord) {
    this.analyzer = createAnalyzer(index.languageCode);
    this.textFields = Object.entries(index.fields)
      .filter(([, spec]) => spec.type === 'text' || spec.type === 'html')
      .map(([name]) => name)
      .slice(0, MASK_BITS);
  }

  /**
   * Everything this copy holds, as blobs of `w` and plain values, consistent at `seq` as long as the
   * copy is not changed until it returns (ContentEngine holds its catch-up meanwhile): arrays written only
   * past their end are taken as views, those changed in place are copied.
   */
  async snapshot(w: SnapshotWriter, pause: () => Promise<void>): Promise<IndexStateSnapshot> {
    const units = this.unitCount;
    const docs = this.docUids.length;
    return {
      seq: this.seq,
      inverted: await this.inverted.snapshot(w, pause),
      pages: this.pages.snapshot(w),
      tokens: this.tokens.snapshot(w, units),
      unitDoc: w.add(this.unitDoc.subarray(0, units)),
      unitOrd: w.add(this.unitOrd.subarray(0, units)),
      unitVersion: w.add(this.unitVersion.subarray(0, units)),
      unitField: w.add(this.unitField.subarray(0, units)),
      unitSection: w.add(this.unitSection.subarray(0, units)),
      sectionFields: [...this.sectionFieldIds.keys()],
      docNumbers: this.docNumbers.snapshot(w),
      docCount: docs,
      docFirstUnit: w.add(this.docFirstUnit.subarray(0, docs)),
      docUnitCount: w.add(this.docUnitCount.subarray(0, docs)),
      docHasMetadata: w.add(this.docHasMetadata.subarray(0, docs)),
      docTokenOnly: w.add(this.docTokenOnly.subarray(0, docs)),
      docTextPresent: w.add(this.docTextPresent.subarray(0, docs)),
      docResident: this.docResident.flatMap((f, doc) => (f ? [[doc, f] as [number, DocumentFields]] : [])),
    };
  }

  /** A copy of `index` as a snapshot holds it (its arrays are views of the snapshot until they grow). */
  static restore(index: IndexRecord, r: SnapshotReader, s: IndexStateSnapshot): IndexState {
    const state = new IndexState(index);
    state.seq = s.seq;
    state.inverted = InvertedIndex.restore(r, s.inverted);
    state.tokens = UnitTokens.restore(r, s.tokens);
    state.pages = PageFrequencies.restore(r, s.pages, state.tokens.terms);
    state.unitDoc = r.blob(s.unitDoc, 'i32');
    state.unitOrd = r.blob(s.unitOrd, 'i32');
    state.unitVersion = r.blob(s.unitVersion, 'f64');
    state.unitField = r.blob(s.unitField, 'i32');
    state.unitSection = r.blob(s.unitSection, 'f64');
    s.sectionFields.forEach((f, i) => state.sectionFieldIds.set(f, i));
    state.docNumbers = UidMap.restore(r, s.docNumbers);
    // Removed documents' numbers keep '' (as setDocument leaves them).
    state.docUids = new Array<string>(s.docCount).fill('');
    state.docNumbers.forEach((doc, uid) => {
      // Read before the file's checksum is known: a damaged number is an error, not a wild write.
      if (!(doc >= 0 && doc < s.docCount)) throw new SnapshotFormatError('document number out of range');
      state.docUids[doc] = uid;
    });
    state.docFirstUnit = r.blob(s.docFirstUnit, 'i32');
    state.docUnitCount = r.blob(s.docUnitCount, 'i32');
    state.docHasMetadata = r.blob(s.docHasMetadata, 'u8');
    state.docTokenOnly = r.blob(s.docTokenOnly, 'i32');
    state.docTextPresent = r.blob(s.docTextPresent, 'i32');
    state.docResident = new Array<DocumentFields | undefined>(s.docCount).fill(undefined);
    for (const [doc, fields] of s.docResident) {
      if (!(doc >= 0 && doc < s.docCount)) throw new SnapshotFormatError('document number out of range');
      state.docResident[doc] = fields;
    }
    return state;
  }

  /**
   * Bytes this copy holds, roughly: its typed arrays exactly, its heap by what each document, unit and
   * term costs there (uids, maps, stored filter fields, term strings).
   */
  byteLength(): number {
    const arrays = this.inverted.byteLength() + this.tokens.byteLength
      + this.unitDoc.byteLength + this.unitOrd.byteLength + this.unitVersion.byteLength + this.unitField.byteLength + this.unitSection.byteLength
      + this.docFirstUnit.byteLength + this.docUnitCount.byteLength + this.docHasMetadata.byteLength + this.docTokenOnly.byteLength + this.docTextPresent.byteLength;
    return arrays + this.docUids.length * 120 + this.inverted.termCount() * 200;
  }

  /** Unit ids handed out so far, dead ones included (arrays indexed by unit have this length). */
  get unitCount(): number {
    return this.inverted.unitCount;
  }

  /** Documents held. */
  get documentCount(): number {
    return this.docNumbers.size;
  }

  /**
   * Replaces a document's units; `sections` empty and `fields` null removes it. A document's units are
   * added together, so their ids are consecutive (page scores find a page's postings as one run).
   */
  setDocument(uid: string, sections: SectionView[], fields: DocumentFields | null, hasMetadata = false): void {
    this.filterCache.clear();
    const previous = this.docNumbers.get(uid);
    if (previous !== undefined) {
      const removed: CountedTerms[] = [];
      for (const u of this.unitRange(previous)) {
        const terms = this.tokens.counted(u);
        this.inverted.removeCounted(u, terms);
        removed.push(terms);
      }
      this.pages.removeCounted(removed);
      this.docNumbers.delete(uid);
      this.docUids[previous] = '';
      this.docResident[previous] = undefined;
    }
    if (!fields || sections.length === 0) return;

    const doc = this.docUids.length;
    this.docUids.push(uid);
    this.docNumbers.set(uid, doc);
    const unitTerms = documentUnitTermIds(this.analyzer, this.tokens.terms, this.index, sections, fields);
    const added: CountedTerms[] = [];
    const sectioned = new Set<string>();
    for (const [i, section] of sections.entries()) {
      // The unit id the inverted index hands out next: the stored tokens count the terms it takes.
      const unit = this.inverted.unitCount;
      const terms = this.tokens.set(unit, unitTerms[i]);
      this.inverted.addCounted(terms);
      this.unitDoc = grown(this.unitDoc, unit + 1);
      this.unitOrd = grown(this.unitOrd, unit + 1);
      this.unitVersion = grown(this.unitVersion, unit + 1);
      this.unitField = grown(this.unitField, unit + 1);
      this.unitSection = grown(this.unitSection, unit + 1);
      this.unitDoc[unit] = doc;
      this.unitOrd[unit] = section.ord;
      this.unitVersion[unit] = section.version;
      this.unitField[unit] = this.sectionFieldId(section.field);
      this.unitSection[unit] = section.id;
      if (section.field) sectioned.add(section.field);
      if (added.length === 0) {
        this.docFirstUnit = grown(this.docFirstUnit, doc + 1);
        this.docFirstUnit[doc] = unit;
      }
      added.push(terms);
    }
    this.pages.addCounted(added);
    this.docUnitCount = grown(this.docUnitCount, doc + 1);
    this.docUnitCount[doc] = added.length;
    this.docHasMetadata = grown(this.docHasMetadata, doc + 1);
    this.docHasMetadata[doc] = hasMetadata ? 1 : 0;
    this.keepFields(doc, fields, typeof fields.title === 'string' && Boolean(this.index.fields.title), sectioned);
  }

  /**
   * Keeps what filters need of the stored fields: every value but those of text fields whose tokens
   * the units hold (a sectioned field; the title, analysed onto every unit), of which only whether they
   * were present stays (`exists` filters ask).
   */
  private keepFields(doc: number, fields: DocumentFields, titleHeld: boolean, sectioned: ReadonlySet<string>): void {
    let tokenOnly = 0;
    let presentMask = 0;
    const resident: [string, unknown][] = [];
    for (const [name, value] of Object.entries(fields)) {
      const bit = this.textFields.indexOf(name);
      if (bit >= 0 && (name === 'title' ? titleHeld : sectioned.has(name))) {
        tokenOnly |= 1 << bit;
        if (present(value)) presentMask |= 1 << bit;
      } else {
        resident.push([name, value]);
      }
    }
    this.docTokenOnly = grown(this.docTokenOnly, doc + 1);
    this.docTextPresent = grown(this.docTextPresent, doc + 1);
    this.docTokenOnly[doc] = tokenOnly;
    this.docTextPresent[doc] = presentMask;
    // fromEntries keeps every name an own key: a field named `__proto__` stays a field.
    this.docResident[doc] = resident.length ? Object.fromEntries(resident) : undefined;
  }

  private sectionFieldId(field: string): number {
    let id = this.sectionFieldIds.get(field);
    if (id === undefined) this.sectionFieldIds.set(field, (id = this.sectionFieldIds.size));
    return id;
  }

  /** A document's units by its number (documentOf), in position order. */
  unitRange(doc: number): number[] {
    const first = this.docFirstUnit[doc];
    return Array.from({ length: this.docUnitCount[doc] }, (_, i) => first + i);
  }

  hasDocument(uid: string): boolean {
    return this.docNumbers.has(uid);
  }

  /** The number of a unit's document in this copy (a key for unitRange, cheaper than its uid). */
  documentOf(unit: number): number {
    return this.unitDoc[unit];
  }

  /** The document of a unit. */
  uidOf(unit: number): string {
    return this.docUids[this.unitDoc[unit]];
  }

  /** Where a unit's section is in the store. */
  unitRef(unit: number): UnitRef {
    return { uid: this.uidOf(unit), version: this.unitVersion[unit], ord: this.unitOrd[unit], section: this.unitSection[unit] };
  }

  /** A document's units, in position order ([] when it is not held). */
  unitsOf(uid: string): number[] {
    const doc = this.docNumbers.get(uid);
    return doc === undefined ? [] : this.unitRange(doc);
  }

  /** Every document held with its first unit, in the order they were set. */
  *documents(): Iterable<{ uid: string; firstUnit: number }> {
    for (const [uid, doc] of this.docNumbers) yield { uid, firstUnit: this.docFirstUnit[doc] };
  }

  /** Whether the document was written with metadata (page fragments; they stay in the document store). */
  hasMetadata(uid: string): boolean {
    const doc = this.docNumbers.get(uid);
    return doc !== undefined && this.docHasMetadata[doc] === 1;
  }

  /**
   * A stored field's value as filters see it. A text field held as tokens answers `true` when it was
   * present (exists filters ask; text leaves read `termsOf`); results read values from the store.
   */
  fieldValue(uid: string, field: string): unknown {
    const doc = this.docNumbers.get(uid);
    if (doc === undefined) return undefined;
    const bit = this.textFields.indexOf(field);
    if (bit >= 0 && this.docTokenOnly[doc] & (1 << bit)) return this.docTextPresent[doc] & (1 << bit) ? true : undefined;
    return own(this.docResident[doc], field);
  }

  /** The unit of a document's section at `ord`, if that version is the one held here. */
  unitAt(uid: string, version: number, ord: number): number | null {
    const doc = this.docNumbers.get(uid);
    if (doc === undefined) return null;
    const first = this.docFirstUnit[doc];
    const count = this.docUnitCount[doc];
    // Sections arrive in position order and positions count from 0, so the position is nearly always the slot.
    const direct = first + ord;
    if (ord < count && this.unitOrd[direct] === ord) return this.unitVersion[direct] === version ? direct : null;
    for (let u = first; u < first + count; u++) {
      if (this.unitOrd[u] === ord) return this.unitVersion[u] === version ? u : null;
    }
    return null;
  }

  /** Up to `n` live units spread over the index (what a warm-up reads the opening words of). */
  sampleUnits(n: number): number[] {
    const out: number[] = [];
    const count = this.unitCount;
    for (let i = 0; i < n && count > 0; i++) {
      for (let u = Math.floor(((i + 0.5) * count) / n); u < count; u++) {
        if (this.inverted.isAlive(u)) {
          out.push(u);
          break;
        }
      }
    }
    return out;
  }

  /** The verdicts for a filter, shared across queries (or fresh ones when `key` is null). */
  filterVerdicts(key: string | null): FilterVerdicts {
    if (key === null) return { verdicts: new Int8Array(this.inverted.unitCount), judgedLists: new Set() };
    let v = this.filterCache.get(key);
    if (!v) {
      if (this.filterCache.size >= 64) this.filterCache.delete(this.filterCache.keys().next().value!);
      this.filterCache.set(key, (v = { verdicts: new Int8Array(this.inverted.unitCount), judgedLists: new Set() }));
    }
    return v;
  }

  /** A document's analysed terms of a field: its sections' (markup already gone), else the field's value analysed. */
  termsOf(uid: string, field: string): string[] {
    const doc = this.docNumbers.get(uid);
    if (doc === undefined) return [];
    const units = this.unitRange(doc);
    const fieldId = this.sectionFieldIds.get(field);
    const own = fieldId === undefined ? [] : units.filter((u) => this.unitField[u] === fieldId);
    if (own.length) return own.flatMap((u) => this.tokens.field(u, field));
    const bit = this.textFields.indexOf(field);
    // The title, analysed onto every unit whose section is not itself a title.
    if (bit >= 0 && this.docTokenOnly[doc] & (1 << bit)) return this.tokens.field(units[0], field);
    const v = this.fieldValue(uid, field);
    return (Array.isArray(v) ? v : [v]).filter((t): t is string => typeof t === 'string').flatMap((t) => this.analyzer.analyze(t));
  }
}

/** A filter's verdict per unit (0 not yet known, 1 passes, -1 fails), and the lists ("field\0term") whose units all have one. */
export interface FilterVerdicts {
  verdicts: Int8Array;
  judgedLists: Set<string>;
}
