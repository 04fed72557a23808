import { VectorSet, type VectorSetSnapshot } from './vector-set.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-codec.js';
import { grown } from '../grown.js';
import { UidMap, type UidMapSnapshot } from '../uid-map.js';
import type { DocumentRef } from '../../storage/ports/document-store.js';
import type { FilterValue, FollowedVectorIndex, VectorFilter, VectorHit, VectorPoint } from '../../storage/ports/vector-index.js';

type Fields = Record<string, FilterValue | FilterValue[]>;

/** One index's points as a snapshot stores them (numbers name blobs). */
export interface IndexVectorsSnapshot {
  /** Slots held (free ones included); a slot's document is the one whose chain holds it. */
  slots: number;
  versions: number;
  ords: number;
  nextSlot: number;
  free: number[];
  /** Per document, its first slot. */
  docs: UidMapSnapshot;
  fields: [number, Fields][];
  set: VectorSetSnapshot;
}

/**
 * The vector index of the embedded mode: each API process holds the vectors of its indexes, fed
 * from the section store's change feed. One VectorSet per index uid (exact below 4,000 vectors, IVF
 * from there, trained by `train` in the background and searched exactly until then); every point gets a slot (a VectorSet unit, freed slots reused) that remembers its
 * document, version, position and filterable fields.
 *
 * Filters run inside the scan (VectorSet.top's `allow`): postings per field value mark the matching
 * slots first (cost: the number of matching points), so the scan only reads a typed array and a
 * filtered search costs about what an unfiltered one does. Below 4,000 vectors that is exact; above,
 * it searches the lists the IVF probes (32 × the root of the set's vectors, nearest first), so a filter
 * matching very few, far-away points can return fewer than `limit` hits: the approximation the
 * unfiltered search makes, not a post-filter of a fixed candidate list.
 */
export class MemoryVectorIndex implements FollowedVectorIndex {
  readonly external = false;
  private readonly indexes = new Map<string, IndexVectors>();

  async upsert(index: string, points: VectorPoint[]): Promise<void> {
    let ix = this.indexes.get(index);
    if (!ix) this.indexes.set(index, (ix = new IndexVectors()));
    for (const p of points) ix.put(p);
    if (ix.empty) this.indexes.delete(index);
  }

  async deleteOlder(index: string, refs: DocumentRef[]): Promise<void> {
    const ix = this.indexes.get(index);
    if (!ix) return;
    for (const r of refs) ix.deleteWhere(r.uid, (v) => v < r.version);
    if (ix.empty) this.indexes.delete(index);
  }

  async deleteVersions(index: string, refs: DocumentRef[]): Promise<void> {
    const ix = this.indexes.get(index);
    if (!ix) return;
    for (const r of refs) ix.deleteWhere(r.uid, (v) => v === r.version);
    if (ix.empty) this.indexes.delete(index);
  }

  async search(index: string, vector: Float32Array, limit: number, filter?: VectorFilter): Promise<VectorHit[]> {
    const ix = this.indexes.get(index);
    if (!ix || limit <= 0) return [];
    return ix.search(vector, limit, filter?.length ? filter : undefined);
  }

  /** Whole documents, in uid order, until the page holds at least `limit` versions (a document is never split across pages). */
  async versions(index: string, afterUid: string | null, limit: number): Promise<DocumentRef[]> {
    return this.indexes.get(index)?.versions(afterUid, limit) ?? [];
  }

  async dropIndex(index: string): Promise<void> {
    this.indexes.delete(index);
  }

  async close(): Promise<void> {
    this.indexes.clear();
  }

  byteLength(index: string): number {
    const ix = this.indexes.get(index);
    // Each point: its vector, its slot's version, position and chain, its uid reference; each document: a map entry.
    return ix ? ix.set.count * (4 * ix.set.dims + 28) + ix.documents * 64 : 0;
  }

  /** The index's points as blobs of `w` (null when it has none, or while its lists are being trained). */
  snapshot(index: string, w: SnapshotWriter): IndexVectorsSnapshot | null {
    return this.indexes.get(index)?.snapshot(w) ?? null;
  }

  /** Replaces the index's points with a snapshot's; true when its vector set was completed (VectorSet.restore). */
  restore(index: string, r: SnapshotReader, s: unknown): boolean {
    const ix = IndexVectors.restore(r, s as IndexVectorsSnapshot);
    this.indexes.set(index, ix);
    return ix.set.completedOnRestore;
  }

  adopt(index: string, from: string): void {
    const ix = this.indexes.get(from);
    this.indexes.delete(from);
    if (ix) this.indexes.set(index, ix);
    else this.indexes.delete(index);
  }

  /** Trains the index's IVF now if it is due, in one go. */
  prepare(index: string): void {
    this.indexes.get(index)?.set.prepare();
  }

  /**
   * Trains the index's IVF if it is due, a few milliseconds at a time between `pause`s: searches never
   * train (they scan what there is meanwhile), so the server trains in the background. `settled`: no
   * vector arrived since the last call (see VectorSet.trainingDue).
   */
  async train(index: string, pause: () => Promise<void>, settled: boolean): Promise<void> {
    await this.indexes.get(index)?.set.trainInSteps(pause, settled);
  }

  /** Points held for the index. */
  count(index: string): number {
    return this.indexes.get(index)?.set.count ?? 0;
  }
}

/**
 * One index's points. An index that becomes empty is dropped, so a later model's vectors (another size)
 * start afresh. Per slot its document, version and position sit in typed arrays, and a document's slots
 * are chained (`nextSlot`): a map of maps per document took ~350 bytes of heap per point.
 */
class IndexVectors {
  // Sampled by document and position: the lists do not depend on the order documents were applied in.
  set = new VectorSet(this.setOptions());
  private uidOf: string[] = [];
  private versionOf = new Float64Array(1024);
  private ordOf = new Int32Array(1024);
  /** The next slot of the same document, -1 at the end of its chain. */
  private nextSlot = new Int32Array(1024);
  /** Filterable fields, for the slots that have some. */
  private readonly fieldsOf = new Map<number, Fields>();
  private readonly postings = new FieldPostings();
  private free: number[] = [];
  /** document uid -> its first slot */
  private docs = new UidMap();
  /** The document uids in order, rebuilt when a document comes or goes. */
  private sorted: string[] | null = null;

  get empty(): boolean {
    return this.docs.size === 0;
  }

  get documents(): number {
    return this.docs.size;
  }

  private setOptions(): ConstructorParameters<typeof VectorSet>[0] {
    return { trainOnQuery: false, sampleOrder: (a, b) => compareUids(this.uidOf[a], this.uidOf[b]) || this.ordOf[a] - this.ordOf[b] || this.versionOf[a] - this.versionOf[b] };
  }

  snapshot(w: SnapshotWriter): IndexVectorsSnapshot | null {
    const set = this.set.snapshot(w);
    if (!set) return null;
    const slots = this.uidOf.length;
    return {
      slots, versions: w.add(this.versionOf.slice(0, slots)), ords: w.add(this.ordOf.slice(0, slots)), nextSlot: w.add(this.nextSlot.slice(0, slots)),
      free: [...this.free], docs: this.docs.snapshot(w), fields: [...this.fieldsOf], set,
    };
  }

  static restore(r: SnapshotReader, s: IndexVectorsSnapshot): IndexVectors {
    const ix = new IndexVectors();
    ix.versionOf = r.blob(s.versions, 'f64');
    ix.ordOf = r.blob(s.ords, 'i32');
    ix.nextSlot = r.blob(s.nextSlot, 'i32');
    ix.free = s.free;
    ix.docs = UidMap.restore(r, s.docs);
    // Each slot's uid from its document's chain, instead of a second copy of every uid in the header.
    // The chains are read before the file's checksum is known (it is computed meanwhile): a damaged one
    // must end in an error, not in a loop or a wild write.
    ix.uidOf = new Array<string>(s.slots).fill('');
    let steps = 0;
    ix.docs.forEach((head, uid) => {
      for (let slot = head; slot !== -1; slot = ix.nextSlot[slot]) {
        if (slot < 0 || slot >= s.slots || ++steps > s.slots) throw new SnapshotFormatError('vector slots out of order');
        ix.uidOf[slot] = uid;
      }
    });
    for (const [slot, fields] of s.fields) {
      ix.fieldsOf.set(slot, fields);
      ix.postings.add(slot, fields);
    }
    ix.set = VectorSet.restore(r, s.set, ix.setOptions());
    return ix;
  }

  put(p: VectorPoint): void {
    // Vectors of another size come from another model and cannot be compared: VectorSet leaves them out, so do we.
    if (this.set.dims !== 0 && p.vector.length !== this.set.dims) return;
    const head = this.docs.get(p.uid);
    let slot = head ?? -1;
    while (slot !== -1 && !(this.versionOf[slot] === p.version && this.ordOf[slot] === p.ord)) slot = this.nextSlot[slot];
    if (slot === -1) {
      slot = this.free.pop() ?? this.uidOf.length;
      this.versionOf = grown(this.versionOf, slot + 1);
      this.ordOf = grown(this.ordOf, slot + 1);
      this.nextSlot = grown(this.nextSlot, slot + 1);
      this.uidOf[slot] = p.uid;
      this.versionOf[slot] = p.version;
      this.ordOf[slot] = p.ord;
      this.nextSlot[slot] = head ?? -1;
      this.docs.set(p.uid, slot);
      if (head === undefined) this.sorted = null;
    }
    this.postings.remove(slot, this.fieldsOf.get(slot));
    this.postings.add(slot, p.fields);
    if (p.fields) this.fieldsOf.set(slot, p.fields);
    else this.fieldsOf.delete(slot);
    this.set.set(slot, p.vector);
  }

  deleteWhere(uid: string, drop: (version: number) => boolean): void {
    let slot = this.docs.get(uid) ?? -1;
    let head = -1;
    let tail = -1;
    while (slot !== -1) {
      const next = this.nextSlot[slot];
      if (drop(this.versionOf[slot])) {
        this.set.delete(slot);
        this.postings.remove(slot, this.fieldsOf.get(slot));
        this.fieldsOf.delete(slot);
        this.uidOf[slot] = '';
        this.free.push(slot);
      } else {
        if (tail === -1) head = slot;
        else this.nextSlot[tail] = slot;
        tail = slot;
      }
      slot = next;
    }
    if (tail !== -1) this.nextSlot[tail] = -1;
    if (head === -1) {
      if (this.docs.delete(uid)) this.sorted = null;
    } else this.docs.set(uid, head);
  }

  async search(vector: Float32Array, limit: number, filter: VectorFilter | undefined): Promise<VectorHit[]> {
    const allow = filter ? this.postings.matcher(filter, this.uidOf.length) : undefined;
    // Off the event loop where the addon is built; units are read after, as they are then.
    return (await this.set.topAsync(vector, limit, allow)).map(({ unit, score }) => ({
      uid: this.uidOf[unit],
      version: this.versionOf[unit],
      ord: this.ordOf[unit],
      score,
    }));
  }

  versions(afterUid: string | null, limit: number): DocumentRef[] {
    const uids = (this.sorted ??= [...this.docs.keysInOrder()].sort(compareUids));
    const out: DocumentRef[] = [];
    for (let i = afterUid === null ? 0 : firstAfter(uids, afterUid); i < uids.length && out.length < limit; i++) {
      const versions = new Set<number>();
      for (let slot = this.docs.get(uids[i])!; slot !== -1; slot = this.nextSlot[slot]) versions.add(this.versionOf[slot]);
      for (const version of [...versions].sort((a, b) => a - b)) out.push({ uid: uids[i], version });
    }
    return out;
  }
}

/** Code-unit order, as the Qdrant adapter pages too. */
const compareUids = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Index of the first uid greater than `after` in the sorted list. */
function firstAfter(uids: string[], after: string): number {
  let lo = 0;
  let hi = uids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (uids[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Slots by field and value. A filter becomes a mark per matching slot: a slot passes condition i
 * when one of its values is listed and it passed conditions 0..i-1 (stamps from one counter, so
 * nothing is cleared between searches).
 */
class FieldPostings {
  private readonly byField = new Map<string, Map<FilterValue, Set<number>>>();
  private stamps = new Uint32Array(0);
  private next = 1;

  add(slot: number, fields: Fields | undefined): void {
    for (const [field, value] of Object.entries(fields ?? {})) {
      let byValue = this.byField.get(field);
      if (!byValue) this.byField.set(field, (byValue = new Map()));
      for (const v of Array.isArray(value) ? value : [value]) {
        let slots = byValue.get(v);
        if (!slots) byValue.set(v, (slots = new Set()));
        slots.add(slot);
      }
    }
  }

  remove(slot: number, fields: Fields | undefined): void {
    for (const [field, value] of Object.entries(fields ?? {})) {
      const byValue = this.byField.get(field);
      for (const v of Array.isArray(value) ? value : [value]) {
        const slots = byValue?.get(v);
        if (!slots) continue;
        slots.delete(slot);
        if (slots.size === 0) byValue!.delete(v);
      }
      if (byValue?.size === 0) this.byField.delete(field);
    }
  }

  /** Whether a slot has, for every condition, one of the listed values (the same type: 1 is not "1"). */
  matcher(filter: VectorFilter, capacity: number): (slot: number) => boolean {
    if (this.stamps.length < capacity) this.stamps = new Uint32Array(Math.max(capacity, 2 * this.stamps.length));
    if (this.next + filter.length + 1 >= 0xffffffff) {
      this.stamps.fill(0);
      this.next = 1;
    }
    const stamps = this.stamps;
    const base = this.next;
    this.next += filter.length + 1;
    filter.forEach((c, i) => {
      const byValue = this.byField.get(c.field);
      for (const v of new Set(c.anyOf)) {
        for (const slot of byValue?.get(v) ?? []) {
          // Condition 0 accepts any stale stamp; a later one only slots that passed the one before.
          if (i === 0 ? stamps[slot] < base : stamps[slot] === base + i - 1) stamps[slot] = base + i;
        }
      }
    });
    const pass = base + filter.length - 1;
    return (slot) => stamps[slot] === pass;
  }
}
