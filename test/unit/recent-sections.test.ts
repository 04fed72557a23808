import { describe, expect, it } from 'vitest';
import { RecentSections } from '../../shared/search/engine/recent-sections.js';
import type { SectionView } from '../../shared/storage/ports/section-store.js';
import type { UnitRef } from '../../shared/search/engine/index-state.js';

const view = (uid: string, version: number, ord: number, text = `${uid}@${version}#${ord}`): SectionView =>
  ({ id: 1, uid, version, ord, field: 'body', title: 't', anchor: null, text, vector: null, vectorModel: null });

/** A store of sections at their current versions that counts what it is asked for. */
function store(current: Map<string, number>) {
  const asked: UnitRef[][] = [];
  const read = async (missing: UnitRef[]) => {
    asked.push(missing);
    return missing.flatMap((r) => (current.has(r.uid) ? [view(r.uid, current.get(r.uid)!, r.ord)] : []));
  };
  return { asked, read };
}

describe('recent sections', () => {
  it('answers a section shown before without reading it again, in the order asked', async () => {
    const s = store(new Map([['a', 1], ['b', 1]]));
    const cache = new RecentSections(1 << 20);
    const first = await cache.get(7, [{ uid: 'a', version: 1, ord: 0, section: 0 }, { uid: 'b', version: 1, ord: 2, section: 0 }], s.read);
    expect(first.map((x) => x?.text)).toEqual(['a@1#0', 'b@1#2']);
    const again = await cache.get(7, [{ uid: 'b', version: 1, ord: 2, section: 0 }, { uid: 'a', version: 1, ord: 0, section: 0 }, { uid: 'a', version: 1, ord: 1, section: 0 }], s.read);
    expect(again.map((x) => x?.text)).toEqual(['b@1#2', 'a@1#0', 'a@1#1']);
    expect(s.asked.map((m) => m.map((r) => `${r.uid}#${r.ord}`))).toEqual([['a#0', 'b#2'], ['a#1']]);
    // Another index's section at the same position is another section.
    await cache.get(8, [{ uid: 'a', version: 1, ord: 0, section: 0 }], s.read);
    expect(s.asked).toHaveLength(3);
  });

  it('misses on a new version, keeps nothing read at a version newer than ranked, and answers null for what the store lost', async () => {
    const current = new Map([['a', 2]]);
    const s = store(current);
    const cache = new RecentSections(1 << 20);
    // Ranked at version 1, the store has 2 already: answered with 2, not kept under 1.
    expect((await cache.get(1, [{ uid: 'a', version: 1, ord: 0, section: 0 }], s.read))[0]?.text).toBe('a@2#0');
    await cache.get(1, [{ uid: 'a', version: 1, ord: 0, section: 0 }], s.read);
    expect(s.asked).toHaveLength(2);
    await cache.get(1, [{ uid: 'a', version: 2, ord: 0, section: 0 }], s.read);
    await cache.get(1, [{ uid: 'a', version: 2, ord: 0, section: 0 }], s.read);
    expect(s.asked).toHaveLength(3);
    current.delete('a');
    expect(await cache.get(1, [{ uid: 'a', version: 3, ord: 0, section: 0 }], s.read)).toEqual([null]);
  });

  it('stays within its byte budget by dropping the least recently shown, and keeps nothing at 0', async () => {
    const current = new Map(Array.from({ length: 100 }, (_, i) => [`d${i}`, 1] as const));
    const s = store(current);
    const cache = new RecentSections(20_000);
    for (let i = 0; i < 100; i++) await cache.get(1, [{ uid: `d${i}`, version: 1, ord: 0, section: 0 }], s.read);
    expect(cache.bytes).toBeGreaterThan(0);
    expect(cache.bytes).toBeLessThanOrEqual(20_000);
    const before = s.asked.length;
    await cache.get(1, [{ uid: 'd99', version: 1, ord: 0, section: 0 }], s.read);
    expect(s.asked.length).toBe(before);
    await cache.get(1, [{ uid: 'd0', version: 1, ord: 0, section: 0 }], s.read);
    expect(s.asked.length).toBe(before + 1);

    const none = new RecentSections(0);
    const t = store(current);
    await none.get(1, [{ uid: 'd1', version: 1, ord: 0, section: 0 }], t.read);
    await none.get(1, [{ uid: 'd1', version: 1, ord: 0, section: 0 }], t.read);
    expect(t.asked).toHaveLength(2);
    expect(none.bytes).toBe(0);
  });
});
