// UidMap answers as a Map<string, number> does, through any mix of sets, deletes and snapshots.
import { describe, expect, it } from 'vitest';
import { SnapshotFormatError, SnapshotReader, SnapshotWriter } from '../../shared/search/snapshot/snapshot-codec.js';
import { UidMap } from '../../shared/search/uid-map.js';
import { prng } from '../helpers/prng.js';

const noPause = async () => {};

async function roundTrip(map: UidMap): Promise<UidMap> {
  const w = new SnapshotWriter();
  const body = map.snapshot(w);
  const r = await SnapshotReader.open(Buffer.concat(await w.encode(1, body, noPause)), 1, noPause);
  return UidMap.restore(r, r.body as typeof body);
}

describe('UidMap', () => {
  it('matches a Map through random sets, deletes, re-sets and snapshot round trips', async () => {
    for (const seed of [1, 2, 3]) {
      const rand = prng(seed);
      let map = new UidMap();
      const model = new Map<string, number>();
      const keyOf = () => `doc-${Math.floor(rand() * 3000)}${rand() < 0.05 ? '-é' : ''}`;
      for (let step = 0; step < 20_000; step++) {
        const r = rand();
        const key = keyOf();
        if (r < 0.6) {
          const v = Math.floor(rand() * 1e6);
          map.set(key, v);
          model.set(key, v);
        } else if (r < 0.9) {
          expect(map.delete(key)).toBe(model.delete(key));
        } else {
          expect(map.get(key)).toBe(model.get(key));
          expect(map.has(key)).toBe(model.has(key));
        }
        if (step % 5000 === 4999) map = await roundTrip(map);
      }
      expect(map.size).toBe(model.size);
      expect([...map.entries()]).toEqual([...model.entries()]);
      expect([...map.keysInOrder()]).toEqual([...model.keys()]);
      expect([...map.entries()].map(([, value]) => value)).toEqual([...model.values()]);
    }
  });

  it('a restored map keeps changing like the original, and its snapshot is what it was when taken', async () => {
    const map = new UidMap();
    for (let i = 0; i < 1000; i++) map.set(`u${i}`, i);
    const w = new SnapshotWriter();
    const body = map.snapshot(w);
    map.set('u1', -1);
    map.delete('u2');
    const r = await SnapshotReader.open(Buffer.concat(await w.encode(1, body, noPause)), 1, noPause);
    const restored = UidMap.restore(r, r.body as typeof body);
    expect(restored.get('u1')).toBe(1);
    expect(restored.get('u2')).toBe(2);
    for (let i = 1000; i < 5000; i++) restored.set(`u${i}`, i);
    restored.delete('u3');
    expect(restored.size).toBe(4999);
    expect(restored.get('u4999')).toBe(4999);
    expect(restored.get('u3')).toBeUndefined();
  });

  it('keeps any uid exactly through a snapshot: Latin-1, other scripts, lone surrogates, the empty string', async () => {
    for (const keys of [['a', 'é', '', 'zz'], ['a', '漢字', '\ud800x', '', 'é', '\udfff']]) {
      const map = new UidMap();
      keys.forEach((k, i) => map.set(k, i));
      map.delete(keys[1]);
      const restored = await roundTrip(map);
      expect([...restored.entries()]).toEqual([...map.entries()]);
      for (const k of keys) expect(restored.get(k)).toBe(map.get(k));
    }
  });

  it('a damaged key table is a format error, not wrong keys', async () => {
    const map = new UidMap();
    for (let i = 0; i < 100; i++) map.set(`u${i}`, i);
    const w = new SnapshotWriter();
    const body = map.snapshot(w);
    const bytes = Buffer.concat(await w.encode(1, body, noPause));
    // The ends blob is the second added: make one end run past the text. The header's checksum still
    // holds (only a blob changed), as when a start restores before the whole file's checksum is known.
    const r = await SnapshotReader.open(bytes, 1, noPause, Promise.resolve(0));
    const ends = r.blob(body.keys.ends, 'i32');
    ends[50] = 1e6;
    expect(() => UidMap.restore(r, r.body as typeof body)).toThrow(SnapshotFormatError);
  });

  it('two tables hash the same uids differently (seeded), so uids made to collide on one do not on the other', () => {
    const a = new UidMap();
    const b = new UidMap();
    for (let i = 0; i < 64; i++) {
      a.set(`k${i}`, i);
      b.set(`k${i}`, i);
    }
    const slots = (m: UidMap) => [...(m as unknown as { table: Int32Array }).table].join(',');
    expect(slots(a)).not.toBe(slots(b));
  });
});
