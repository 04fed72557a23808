import { LRUCache } from 'lru-cache';
import type { SectionView } from '../../storage/ports/section-store.js';
import type { UnitRef } from './index-state.js';

/** Heap a cached section costs beyond its strings: the object, its key and the cache's entry. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * The sections searches returned lately, kept by the version and position they were ranked at, so
 * a result shown again is not read from the store again. Texts are not held by the engine; without
 * this, every result of every search is a store read. Bounded by bytes (QUARRY_ENGINE_SECTION_CACHE_MB),
 * not by the corpus. The key holds the version, so an update is a miss and never a stale hit; a section
 * read at a newer version than the one ranked is not kept (the engine has not caught up with it yet).
 */
export class RecentSections {
  private readonly cache: LRUCache<string, SectionView> | null;

  constructor(maxBytes: number) {
    this.cache = maxBytes > 0
      ? new LRUCache<string, SectionView>({ maxSize: maxBytes, sizeCalculation: (s, key) => sizeOf(s, key) })
      : null;
  }

  /** The sections at these refs: cached ones at once, the rest from `read`, in the order of `refs`. */
  async get(indexId: number, refs: readonly UnitRef[], read: (missing: UnitRef[]) => Promise<SectionView[]>): Promise<(SectionView | null)[]> {
    const out: (SectionView | null)[] = new Array(refs.length).fill(null);
    const missing: UnitRef[] = [];
    const missingAt: number[] = [];
    for (let i = 0; i < refs.length; i++) {
      const hit = this.cache?.get(keyOf(indexId, refs[i]));
      if (hit) out[i] = hit;
      else {
        missing.push(refs[i]);
        missingAt.push(i);
      }
    }
    if (missing.length === 0) return out;
    const rows = await read(missing);
    const byPosition = new Map(rows.map((s) => [`${s.ord}\u0000${s.uid}`, s]));
    for (let j = 0; j < missing.length; j++) {
      const ref = missing[j];
      const row = byPosition.get(`${ref.ord}\u0000${ref.uid}`) ?? null;
      out[missingAt[j]] = row;
      if (row && row.version === ref.version) this.cache?.set(keyOf(indexId, ref), row);
    }
    return out;
  }

  /** What the cache holds now, in bytes (as estimated). */
  get bytes(): number {
    return this.cache?.calculatedSize ?? 0;
  }
}

const keyOf = (indexId: number, r: UnitRef) => `${indexId}\u0000${r.version}\u0000${r.ord}\u0000${r.uid}`;

// Strings are counted at two bytes a character: what V8 takes for any text that is not pure Latin-1.
const sizeOf = (s: SectionView, key: string) =>
  ENTRY_OVERHEAD_BYTES + 2 * (key.length + s.text.length + s.title.length + (s.anchor?.length ?? 0) + s.uid.length + s.field.length);
