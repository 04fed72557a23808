import { expect, it } from 'vitest';
import type { ChangeEntry } from '../../shared/storage/ports/section-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { AdapterFeatures, StorageHandle } from './harness.js';
import { item, MODEL } from './section-store.contract.js';

/** Reads the whole feed of an index after `seq`, in pages, checking entries only ever ascend. */
async function drain(s: BackendStorage, index: number, seq: number, page = 3): Promise<ChangeEntry[]> {
  const out: ChangeEntry[] = [];
  for (;;) {
    const batch = await s.sections.changesSince(index, seq, page);
    if (batch.length === 0) return out;
    for (const c of batch) {
      expect(c.seq).toBeGreaterThan(seq);
      seq = c.seq;
    }
    out.push(...batch);
  }
}

/** The change feed of the section store (run inside its describe, with a fresh handle per test). */
export function sectionFeedContract(handle: () => StorageHandle, index: number, features: AdapterFeatures) {
  it('logs each document that goes live or is removed, per index, in order', async () => {
    const s = handle().storage;
    expect([await s.sections.lastChange(index), await s.sections.firstChange(index)]).toEqual([0, 0]);
    expect(await s.sections.changesSince(index, 0, 10)).toEqual([]);
    await s.sections.publish(index, [item('a', 1), item('b', 1)], MODEL);
    await s.sections.publish(index + 1, [item('x', 1)], MODEL);
    await s.sections.publish(index, [item('a', 2, null), item('b', 1), item('c', 1)], MODEL);
    const feed = await drain(s, index, 0);
    expect(feed.map((c) => c.uid)).toEqual(['a', 'b', 'a', 'c']);
    expect(await s.sections.lastChange(index)).toBe(feed[3].seq);
    expect(await s.sections.firstChange(index)).toBe(feed[0].seq);
    expect((await s.sections.changesSince(index, feed[1].seq, 1)).map((c) => c.uid)).toEqual(['a']);
    expect((await drain(s, index + 1, 0)).map((c) => c.uid)).toEqual(['x']);
    expect(await s.sections.changesSince(index, feed[3].seq, 10)).toEqual([]);
  });

  it('prunes the feed to the newest entries, always keeping the newest', async () => {
    const s = handle().storage;
    for (let v = 1; v <= 5; v++) await s.sections.publish(index, [item(`d${v}`, v)], MODEL);
    const feed = await drain(s, index, 0);
    expect(await s.sections.pruneChanges(10)).toBe(0);
    expect(await s.sections.pruneChanges(2)).toBe(3);
    expect(await drain(s, index, 0)).toEqual(feed.slice(3));
    expect(await s.sections.firstChange(index)).toBe(feed[3].seq);
    expect(await s.sections.pruneChanges(0)).toBe(1);
    expect(await drain(s, index, 0)).toEqual(feed.slice(4));
    expect([await s.sections.firstChange(index), await s.sections.lastChange(index)]).toEqual([feed[4].seq, feed[4].seq]);
    await s.sections.publish(index, [item('d6', 6)], MODEL);
    expect((await drain(s, index, feed[4].seq)).map((c) => c.uid)).toEqual(['d6']);
  });

  it('keeps the newest entry of every index when pruning', async () => {
    const s = handle().storage;
    await s.sections.publish(index, [item('a', 1), item('b', 1)], MODEL);
    await s.sections.publish(index + 1, [item('x', 1), item('y', 1)], MODEL);
    await s.sections.pruneChanges(0);
    expect((await drain(s, index, 0)).map((c) => c.uid)).toEqual(['b']);
    expect((await drain(s, index + 1, 0)).map((c) => c.uid)).toEqual(['y']);
  });

  it('tells a reader that just heard "nothing new" of a publish from another process at once, and of its own', async () => {
    const h = handle();
    const other = await h.open();
    const reader = h.storage;
    const seq = await reader.sections.lastChange(index);
    for (let i = 0; i < 3; i++) expect(await reader.sections.changesSince(index, seq, 10)).toEqual([]);
    await other.sections.publish(index, [item('from-other', 1)], MODEL);
    expect((await reader.sections.changesSince(index, seq, 10)).map((c) => c.uid)).toEqual(['from-other']);
    const after = await reader.sections.lastChange(index);
    expect(await reader.sections.changesSince(index, after, 10)).toEqual([]);
    await reader.sections.publish(index, [item('own', 1)], MODEL);
    expect((await reader.sections.changesSince(index, after, 10)).map((c) => c.uid)).toEqual(['own']);
  });

  it('never lets a reader polling during concurrent publishes from two hosts miss an entry', async () => {
    const h = handle();
    const hosts = [h.storage, await h.open()];
    const reader = await h.open();
    // Publishers whose mirror writes finish at random moments commit in a different order than they began.
    if (features.mirror) h.mirror!(async () => new Promise<void>((r) => setTimeout(r, Math.random() * 15)));
    const published: string[] = [];
    const seen: string[] = [];
    let done = false;
    let seq = 0;
    const poll = async () => {
      while (!done) {
        const batch = await reader.sections.changesSince(index, seq, 7);
        for (const c of batch) {
          expect(c.seq).toBeGreaterThan(seq);
          seq = c.seq;
          seen.push(c.uid);
        }
        if (batch.length === 0) await new Promise((r) => setTimeout(r, 1));
      }
    };
    const polling = poll();
    await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const uids = [`p${i}-a`, `p${i}-b`, `p${i}-c`].slice(0, 1 + (i % 3));
      await hosts[i % 2].sections.publish(index, uids.map((u) => item(u, i + 1)), MODEL);
      published.push(...uids);
    }));
    done = true;
    await polling;
    seen.push(...(await drain(reader, index, seq)).map((c) => c.uid));
    expect(seen.sort()).toEqual(published.sort());
  });
}
