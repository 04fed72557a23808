import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PublishItem, SectionRow } from '../../shared/storage/ports/section-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { AdapterFeatures, MakeStorage, StorageHandle } from './harness.js';
import { sectionFeedContract } from './section-feed.contract.js';

export const MODEL = 'model-a';

export function section(ord: number, text: string, vector: number[] | null = [ord, 1, 0.5]): SectionRow {
  return { ord, field: 'content', title: `T ${text}`, anchor: ord ? `s${ord}` : null, text, hash: `h:${text}`, vector: vector ? Float32Array.from(vector) : null };
}

/** Version `version` of `uid`, with one section per text (a delete when texts is null). */
export function item(uid: string, version: number, texts: string[] | null = [`${uid}@${version}`]): PublishItem {
  return { uid, version, sections: texts === null ? null : texts.map((t, i) => section(i, t)) };
}

export function sectionStoreContract(name: string, make: MakeStorage, features: AdapterFeatures = { mirror: true }) {
  describe(`${name}: section store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;
    const index = 7;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('publishes sections whole and reads them by document and position', async () => {
      const r = await s.sections.publish(index, [item('b', 3, ['b1', 'b2']), item('a', 5)], MODEL);
      expect(r).toEqual({ published: [{ uid: 'b', version: 3 }, { uid: 'a', version: 5 }], removed: [], stale: 0 });
      const all = await s.sections.sections(index);
      expect(all.map((x) => [x.uid, x.version, x.ord, x.text])).toEqual([['a', 5, 0, 'a@5'], ['b', 3, 0, 'b1'], ['b', 3, 1, 'b2']]);
      expect(all[2]).toMatchObject({ field: 'content', title: 'T b2', anchor: 's1', vectorModel: MODEL });
      expect(all[2].vector).toEqual(Float32Array.from([1, 1, 0.5]));
      expect(new Set(all.map((x) => x.id)).size).toBe(3);
      expect(await s.sections.sections(index + 1)).toEqual([]);
      expect(await s.sections.publish(index, [], MODEL)).toEqual({ published: [], removed: [], stale: 0 });
    });

    it('reads some documents, in the order asked, with or without vectors', async () => {
      await s.sections.publish(index, [item('a', 1), item('b', 2, ['b1', 'b2']), item('c', 3)], MODEL);
      const some = await s.sections.sections(index, ['c', 'a', 'zz']);
      expect(some.map((x) => x.uid)).toEqual(['c', 'a']);
      const bare = await s.sections.sections(index, ['b'], { vectors: false });
      expect(bare.map((x) => [x.ord, x.text, x.vector])).toEqual([[0, 'b1', null], [1, 'b2', null]]);
      expect((await s.sections.sections(index, [])).length).toBe(0);
      const noVector: PublishItem = { uid: 'd', version: 4, sections: [section(0, 'plain', null)] };
      await s.sections.publish(index, [noVector], MODEL);
      expect(await s.sections.sections(index, ['d'])).toMatchObject([{ vector: null, vectorModel: null }]);
    });

    it('reads an index in parts of whole documents, in the order of reading it at once, with or without vectors', async () => {
      const uids = ['', 'a', 'B', 'b', 'é', 'z1', 'z10', 'z2', '日本', 'zz'];
      await s.sections.publish(index, uids.map((u, i) => item(u, i + 1, i % 3 === 0 ? [`${u}0`, `${u}1`, `${u}2`] : [`${u}0`])), MODEL);
      await s.sections.publish(index + 1, [item('other', 1)], MODEL);
      await s.sections.publish(index, [item('z1', 99, null)], MODEL);
      const whole = await s.sections.sections(index);
      for (const size of [1, 3, 100]) {
        const read: typeof whole = [];
        let pages = 0;
        for (let after: string | null = null; ;) {
          const page = await s.sections.sectionsPage(index, after, size);
          if (page.length === 0) break;
          pages++;
          expect(new Set(page.map((x) => x.uid)).size).toBeLessThanOrEqual(size);
          read.push(...page);
          after = page[page.length - 1].uid;
        }
        expect(read).toEqual(whole);
        expect(pages).toBe(Math.ceil(9 / size));
      }
      const bare = await s.sections.sectionsPage(index, null, 2, { vectors: false });
      expect(bare.map((x) => x.vector)).toEqual(bare.map(() => null));
      expect(bare.length).toBe(whole.filter((x) => x.uid === whole[0].uid || x.uid === whole.find((y) => y.uid !== whole[0].uid)!.uid).length);
      expect(await s.sections.sectionsPage(index + 2, null, 10)).toEqual([]);
    });

    it('reads sections at positions, without vectors, leaving out positions it does not have', async () => {
      await s.sections.publish(index, [item('a', 1, ['a0', 'a1', 'a2']), item('b', 2, ['b0', 'b1']), item('c', 3)], MODEL);
      const at = await s.sections.sectionsAt(index, [{ uid: 'b', ord: 1 }, { uid: 'a', ord: 2 }, { uid: 'a', ord: 7 }, { uid: 'zz', ord: 0 }]);
      const byKey = new Map(at.map((x) => [`${x.uid}/${x.ord}`, x]));
      expect([...byKey.keys()].sort()).toEqual(['a/2', 'b/1']);
      expect(byKey.get('b/1')).toMatchObject({ version: 2, text: 'b1', title: 'T b1', anchor: 's1', field: 'content', vector: null });
      expect(byKey.get('a/2')!.text).toBe('a2');
      expect(await s.sections.sectionsAt(index, [])).toEqual([]);
      expect(await s.sections.sectionsAt(index + 1, [{ uid: 'a', ord: 0 }])).toEqual([]);
      // More positions than one statement reads: every one is answered.
      const many = Array.from({ length: 150 }, (_, i) => item(`m${i}`, 1, [`m${i}-0`, `m${i}-1`]));
      await s.sections.publish(index, many, MODEL);
      const read = await s.sections.sectionsAt(index, many.map((m) => ({ uid: m.uid, ord: 1 })));
      expect(read.map((x) => x.text).sort()).toEqual(many.map((m) => `${m.uid}-1`).sort());
      // A newer version answers at the same position.
      await s.sections.publish(index, [item('b', 4, ['new0', 'new1'])], MODEL);
      expect(await s.sections.sectionsAt(index, [{ uid: 'b', ord: 1 }])).toMatchObject([{ version: 4, text: 'new1' }]);
    });

    it('reads sections by id, without vectors, leaving out ids it no longer has', async () => {
      await s.sections.publish(index, [item('a', 1, ['a0', 'a1']), item('b', 2, ['b0'])], MODEL);
      const all = await s.sections.sections(index);
      const id = (uid: string, ord: number) => all.find((x) => x.uid === uid && x.ord === ord)!.id;
      const read = await s.sections.sectionsById(index, [id('b', 0), id('a', 1)]);
      expect(read.map((x) => [x.uid, x.ord, x.text, x.vector]).sort()).toEqual([['a', 1, 'a1', null], ['b', 0, 'b0', null]]);
      expect(read.find((x) => x.uid === 'a')).toMatchObject({ id: id('a', 1), version: 1, title: 'T a1', anchor: 's1', field: 'content' });
      // Another index's id is not this index's section.
      expect(await s.sections.sectionsById(index + 1, [id('a', 0)])).toEqual([]);
      expect(await s.sections.sectionsById(index, [])).toEqual([]);
      // Published again: the old ids are gone (the engine then reads by position).
      await s.sections.publish(index, [item('a', 3, ['new0', 'new1'])], MODEL);
      expect(await s.sections.sectionsById(index, [id('a', 0), id('a', 1)])).toEqual([]);
      const many = Array.from({ length: 150 }, (_, i) => item(`m${i}`, 1));
      await s.sections.publish(index, many, MODEL);
      const ids = (await s.sections.sections(index)).filter((x) => x.uid.startsWith('m')).map((x) => x.id);
      expect((await s.sections.sectionsById(index, ids)).length).toBe(150);
    });

    it('replaces a document with a newer version only; the same version again is already live', async () => {
      await s.sections.publish(index, [item('a', 5, ['one', 'two'])], MODEL);
      const feed = await s.sections.lastChange(index);
      const r = await s.sections.publish(index, [item('a', 4, ['old']), item('a', 5, ['ignored'])], MODEL);
      expect(r).toEqual({ published: [{ uid: 'a', version: 5 }], removed: [], stale: 1 });
      expect((await s.sections.sections(index)).map((x) => x.text)).toEqual(['one', 'two']);
      expect(await s.sections.lastChange(index)).toBe(feed);
      await s.sections.publish(index, [item('a', 9, ['new'])], MODEL);
      expect((await s.sections.sections(index)).map((x) => [x.version, x.text])).toEqual([[9, 'new']]);
      expect(await s.sections.liveVersions(index, ['a', 'b'])).toEqual(new Map([['a', 9]]));
    });

    it('removes a deleted document but keeps its version, so an older write cannot return', async () => {
      await s.sections.publish(index, [item('a', 2), item('b', 2)], MODEL);
      const r = await s.sections.publish(index, [item('a', 6, null)], MODEL);
      expect(r).toEqual({ published: [], removed: [{ uid: 'a', version: 6 }], stale: 0 });
      expect((await s.sections.sections(index)).map((x) => x.uid)).toEqual(['b']);
      expect(await s.sections.liveVersions(index, ['a', 'b'])).toEqual(new Map([['a', 6], ['b', 2]]));
      expect(await s.sections.publish(index, [item('a', 5)], MODEL)).toEqual({ published: [], removed: [], stale: 1 });
      expect(await s.sections.publish(index, [item('a', 6, null)], MODEL)).toEqual({ published: [], removed: [{ uid: 'a', version: 6 }], stale: 0 });
      expect((await s.sections.sections(index, ['a'])).length).toBe(0);
    });

    it('offers the vectors already computed for section hashes by the same model', async () => {
      await s.sections.publish(index, [item('a', 1, ['x', 'y'])], MODEL);
      await s.sections.publish(index + 1, [{ uid: 'b', version: 2, sections: [section(0, 'z', null)] }], MODEL);
      await s.sections.publish(index + 1, [{ uid: 'c', version: 3, sections: [section(4, 'w')] }], 'model-b');
      const found = await s.sections.reusableVectors(['h:x', 'h:y', 'h:x', 'h:z', 'h:w', 'h:none'], MODEL);
      expect(found).toEqual(new Map([['h:x', Float32Array.from([0, 1, 0.5])], ['h:y', Float32Array.from([1, 1, 0.5])]]));
      expect(await s.sections.reusableVectors(['h:w'], 'model-b')).toEqual(new Map([['h:w', Float32Array.from([4, 1, 0.5])]]));
      expect(await s.sections.reusableVectors([], MODEL)).toEqual(new Map());
    });

    it('keeps the newest version live when two hosts publish interleaved versions at once', async () => {
      const other = await h.open();
      const versions = Array.from({ length: 16 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
      await Promise.all(versions.map((v, i) => (i % 2 ? other : s).sections.publish(index, [item('hot', v), item(`cold${v % 3}`, v)], MODEL)));
      const live = await s.sections.liveVersions(index, ['hot', 'cold0', 'cold1', 'cold2']);
      expect(live).toEqual(new Map([['hot', 16], ['cold0', 15], ['cold1', 16], ['cold2', 14]]));
      const hot = await other.sections.sections(index, ['hot']);
      expect(hot.map((x) => [x.version, x.text])).toEqual([[16, 'hot@16']]);
    });

    if (features.mirror) {
      it('writes the mirror with the accepted items while the old versions are still live', async () => {
        const other = await h.open();
        await s.sections.publish(index, [item('a', 5), item('b', 5)], MODEL);
        const seen: { accepted: string[]; liveDuring: Map<string, number> }[] = [];
        h.mirror!(async (accepted) => {
          seen.push({ accepted: accepted.map((i) => `${i.uid}@${i.version}`), liveDuring: await other.sections.liveVersions(index, ['a', 'b', 'c']) });
        });
        const r = await s.sections.publish(index, [item('a', 7), item('b', 3), item('b', 5), item('c', 1, null)], MODEL);
        expect(r).toEqual({ published: [{ uid: 'a', version: 7 }, { uid: 'b', version: 5 }], removed: [{ uid: 'c', version: 1 }], stale: 1 });
        expect(seen).toEqual([{ accepted: ['a@7', 'c@1'], liveDuring: new Map([['a', 5], ['b', 5]]) }]);
        expect(await s.sections.liveVersions(index, ['a', 'c'])).toEqual(new Map([['a', 7], ['c', 1]]));
      });

      it('leaves nothing live and the feed unchanged when the mirror fails', async () => {
        await s.sections.publish(index, [item('a', 1, ['kept'])], MODEL);
        const feed = await s.sections.changesSince(index, 0, 100);
        h.mirror!(async () => {
          throw new Error('vector index down');
        });
        const failing = s.sections.publish(index, [item('a', 2, ['lost']), item('b', 1)], MODEL);
        await expect(failing).rejects.toThrow('vector index down');
        expect(await s.sections.liveVersions(index, ['a', 'b'])).toEqual(new Map([['a', 1]]));
        expect((await s.sections.sections(index)).map((x) => x.text)).toEqual(['kept']);
        expect(await s.sections.changesSince(index, 0, 100)).toEqual(feed);
        h.mirror!(async () => {});
        const retry = await s.sections.publish(index, [item('a', 2, ['lost']), item('b', 1)], MODEL);
        expect(retry.published).toHaveLength(2);
      });
    }

    sectionFeedContract(() => h, index, features);
  });
}
