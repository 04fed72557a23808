import type { SectionPosition, SectionView } from '../../storage/ports/section-store.js';

/** Sections read from the store, matched back to the positions asked for, in their order; null where the store had none. */
export function atPositions(rows: readonly SectionView[], at: readonly SectionPosition[]): (SectionView | null)[] {
  const byPosition = new Map(rows.map((r) => [`${r.ord}\u0000${r.uid}`, r]));
  return at.map((p) => byPosition.get(`${p.ord}\u0000${p.uid}`) ?? null);
}
