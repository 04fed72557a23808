import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const ref = (url?: string) => ({ index: 1, title: 't', ...(url ? { url } : {}), content: 'c' });

export function conversationStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: conversation store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('keeps turns in order and lists conversations by latest activity', async () => {
      await s.conversations.append('cfg', 'c1', 'h', { question: 'q1', reply: 'r1 [1]', references: [ref('https://a/1')], at: 1000 });
      await s.conversations.append('cfg', 'c1', 'h', { question: 'q2', reply: 'r2 [1]', references: [ref('https://a/2'), ref()], at: 2000 });
      await s.conversations.append('cfg', 'c2', 'h', { question: 'q', reply: 'none', references: [], at: 1500 });
      await s.conversations.append('cfg', 'c3', 'h', { question: 'q', reply: 'r', references: [ref('https://a/3')], at: 1200 });
      await s.conversations.append('cfg', 'c3', 'h', { question: 'q', reply: 'r', references: [ref()], at: 1300 });
      const turns = await s.conversations.turns('cfg', 'c1', 10);
      expect(turns).toEqual([
        { seq: 1, question: 'q1', reply: 'r1 [1]', references: [ref('https://a/1')], at: 1000 },
        { seq: 2, question: 'q2', reply: 'r2 [1]', references: [ref('https://a/2'), ref()], at: 2000 },
      ]);
      expect((await s.conversations.turns('cfg', 'c1', 1)).map((t) => t.question)).toEqual(['q2']);
      expect(await s.conversations.list('cfg', 0, 3000)).toEqual([
        { id: 'c1', latestUrl: 'https://a/2', updatedAt: 2000, turns: 2 },
        { id: 'c2', latestUrl: null, updatedAt: 1500, turns: 1 },
        // A reply without a url keeps the conversation's last known topic.
        { id: 'c3', latestUrl: 'https://a/3', updatedAt: 1300, turns: 2 },
      ]);
      expect((await s.conversations.list('cfg', 1500, 1501)).map((c) => c.id)).toEqual(['c2']);
      // The count is of the whole conversation, whatever part of it the range holds.
      expect(await s.conversations.list('cfg', 1900, 2100)).toEqual([{ id: 'c1', latestUrl: 'https://a/2', updatedAt: 2000, turns: 2 }]);
      expect(await s.conversations.list('cfg', 1600, 1700)).toEqual([]);
      // Pages follow the same order, each continuing after the last of the one before.
      const first = await s.conversations.list('cfg', 0, 3000, { limit: 2 });
      expect(first.map((c) => c.id)).toEqual(['c1', 'c2']);
      const last = first[first.length - 1];
      expect((await s.conversations.list('cfg', 0, 3000, { limit: 2, after: { updatedAt: last.updatedAt, id: last.id } })).map((c) => c.id)).toEqual(['c3']);
      expect(await s.conversations.exists('cfg', 'c1')).toBe(true);
      expect(await s.conversations.exists('other', 'c1')).toBe(false);
      expect(await s.conversations.turns('other', 'c1', 10)).toEqual([]);
    });

    it('keeps a conversation to the session that started it, also when two sessions race for a new id', async () => {
      expect(await s.conversations.owner('cfg', 'mine')).toBeNull();
      expect(await s.conversations.append('cfg', 'mine', 'h1', { question: 'q1', reply: 'r', references: [ref('https://a/1')], at: 1000 })).toBe(true);
      expect(await s.conversations.owner('cfg', 'mine')).toBe('h1');
      expect(await s.conversations.owner('other-cfg', 'mine')).toBeNull();
      expect(await s.conversations.append('cfg', 'mine', 'h2', { question: 'stolen', reply: 'r', references: [ref('https://evil/')], at: 2000 })).toBe(false);
      expect(await s.conversations.append('cfg', 'mine', 'h1', { question: 'q2', reply: 'r', references: [], at: 3000 })).toBe(true);
      expect((await s.conversations.turns('cfg', 'mine', 10)).map((t) => t.question)).toEqual(['q1', 'q2']);
      expect(await s.conversations.list('cfg', 0, 5000)).toEqual([{ id: 'mine', latestUrl: 'https://a/1', updatedAt: 3000, turns: 2 }]);

      const other = await h.open();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? other : s).conversations.append('cfg', 'race', `s${i}`, { question: `q${i}`, reply: 'r', references: [], at: 1000 + i })));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = await s.conversations.owner('cfg', 'race');
      expect((await s.conversations.turns('cfg', 'race', 10)).map((t) => t.question)).toEqual([`q${winner!.slice(1)}`]);
    });

    it('retention drops conversations whose latest turn is older than the cut, with their turns', async () => {
      await s.conversations.append('cfg', 'old', 'h', { question: 'q1', reply: 'r', references: [ref('https://a/1')], at: 1000 });
      await s.conversations.append('cfg', 'old', 'h', { question: 'q2', reply: 'r', references: [], at: 1500 });
      await s.conversations.append('cfg', 'revived', 'h', { question: 'q1', reply: 'r', references: [], at: 1000 });
      await s.conversations.append('cfg', 'revived', 'h', { question: 'q2', reply: 'r', references: [], at: 5000 });
      await s.conversations.append('other', 'old', 'h', { question: 'q', reply: 'r', references: [], at: 1200 });
      await s.conversations.append('other', 'new', 'h', { question: 'q', reply: 'r', references: [], at: 4000 });
      expect(await s.conversations.prune(1000)).toBe(0);
      expect(await s.conversations.prune(2000)).toBe(2);
      expect(await s.conversations.prune(2000)).toBe(0);
      expect(await s.conversations.exists('cfg', 'old')).toBe(false);
      expect(await s.conversations.turns('cfg', 'old', 10)).toEqual([]);
      expect(await s.conversations.exists('other', 'old')).toBe(false);
      // A conversation with a recent turn keeps all of its turns.
      expect((await s.conversations.turns('cfg', 'revived', 10)).map((t) => t.question)).toEqual(['q1', 'q2']);
      expect((await s.conversations.list('other', 0, 10_000)).map((c) => c.id)).toEqual(['new']);
      // The id is free again: a new conversation under it starts from turn 1, for whichever session.
      expect(await s.conversations.append('cfg', 'old', 'h2', { question: 'again', reply: 'r', references: [], at: 6000 })).toBe(true);
      expect(await s.conversations.turns('cfg', 'old', 10)).toEqual([{ seq: 1, question: 'again', reply: 'r', references: [], at: 6000 }]);
    });

    it('numbers turns one after another when two hosts append at once', async () => {
      const other = await h.open();
      await Promise.all(Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? other : s).conversations.append('cfg', 'busy', 'h', { question: `q${i}`, reply: 'r', references: [], at: 1000 + i })));
      const turns = await s.conversations.turns('cfg', 'busy', 100);
      expect(turns.map((t) => t.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(new Set(turns.map((t) => t.question)).size).toBe(12);
    });
  });
}
