import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InsightsOptions, SearchEvent } from '../../shared/storage/ports/event-store.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';
import { prng } from '../helpers/prng.js';
import { apply, DAY, EventModel, randomOps, ranges, type Op } from './event-model.js';
import type { MakeStorage, StorageHandle } from './harness.js';

const T0 = Date.UTC(2024, 2, 10);
/** Suggestion minimums with no address required: events recorded without one (tools, imports). */
const min = (sessions: number) => ({ sessions, clients: 0 });
const CFGS = ['cfg-a', 'cfg-b'];

const search = (id: string, at: number, session: string, normalized: string, resultCount = 3, cfg = 'cfg-a'): SearchEvent => ({
  id, at, configurationUid: cfg, variant: 'ui', session, device: 'desktop', query: normalized, normalized, resultCount,
});
const click = (searchEventId: string, at: number, session: string, position: number, target = 'idx\u0000d1', cfg = 'cfg-a', normalized = 'q') => ({
  at, configurationUid: cfg, searchEventId, session, normalized, position, target,
});

/** UTC, a zone with DST, a half-hour zone (days cut at the whole hour) and a short top list. */
const VIEWS: InsightsOptions[] = [{}, { timeZone: 'America/New_York', limit: 3 }, { timeZone: 'Asia/Kolkata', limit: 1000 }];

async function expectLikeModel(s: BackendStorage, model: EventModel, windows: [number, number][]) {
  for (const cfg of CFGS) {
    for (const [from, to] of windows) {
      for (const view of VIEWS) {
        const got = await s.events.insights(cfg, from, to, view);
        expect({ cfg, from, to, view, ...got }).toEqual({ cfg, from, to, view, ...model.insights(cfg, from, to, view) });
      }
    }
  }
}

export function eventStoreContract(name: string, make: MakeStorage) {
  describe(`${name}: event store`, () => {
    let h: StorageHandle;
    let s: BackendStorage;

    beforeEach(async () => {
      h = await make();
      s = h.storage;
    });
    afterEach(() => h.cleanup());

    it('counts queries and suggests those enough sessions asked, most asked first', async () => {
      await s.events.recordSearches([
        search('1', T0, 'h1', 'install'), search('2', T0, 'h1', 'install'), search('3', T0, 'h2', 'install'),
        search('4', T0, 'h1', 'instant'), search('5', T0, 'h2', 'instant guide'), search('6', T0, 'h3', 'instant guide'),
        search('7', T0, 'h4', 'other'), search('8', T0, 'h4', 'install', 0, 'cfg-b'),
      ]);
      await s.events.recordSearches([search('1', T0, 'h9', 'install'), search('9', T0, 'h5', 'instant guide')]);
      await s.events.recordSearches([]);
      expect(await s.events.queryCount('cfg-a')).toBe(8);
      expect(await s.events.queryCount('cfg-b')).toBe(1);
      expect(await s.events.queryCount('cfg-c')).toBe(0);
      expect(await s.events.suggestions('cfg-a', 'inst', min(2), 10)).toEqual(['install', 'instant guide']);
      expect(await s.events.suggestions('cfg-a', 'inst', min(3), 10)).toEqual(['instant guide']);
      expect(await s.events.suggestions('cfg-a', 'inst', min(1), 2)).toEqual(['install', 'instant guide']);
      expect(await s.events.suggestions('cfg-a', '', min(1), 10)).toEqual(['install', 'instant guide', 'instant', 'other']);
      expect(await s.events.suggestions('cfg-a', 'x', min(1), 10)).toEqual([]);
    });

    it('counts distinct client addresses beside sessions: suggestions need both minimums, blocked ones never show', async () => {
      const from = (e: SearchEvent, client?: string) => ({ ...e, ...(client ? { client } : {}) });
      await s.events.recordSearches([
        // One address, many invented sessions.
        ...Array.from({ length: 6 }, (_, i) => from(search(`spam-${i}`, T0 + i, `bot-${i}`, 'buy pills'), 'ip-bot')),
        from(search('v1', T0 + 10, 'h1', 'buy shoes'), 'ip-1'), from(search('v2', T0 + 11, 'h2', 'buy shoes'), 'ip-2'),
        from(search('v3', T0 + 12, 'h3', 'buy shoes'), 'ip-3'), from(search('v4', T0 + 13, 'h3', 'buy shoes'), 'ip-3'),
        from(search('w1', T0 + 14, 'h1', 'buy socks'), 'ip-1'), from(search('w2', T0 + 15, 'h2', 'buy socks'), 'ip-2'),
        from(search('w3', T0 + 16, 'h4', 'buy socks'), 'ip-2'), search('w4', T0 + 17, 'h5', 'buy socks'),
      ]);
      // The same event again (a retried batch) counts nothing twice.
      await s.events.recordSearches([from(search('v1', T0 + 10, 'h9', 'buy shoes'), 'ip-9')]);
      expect(await s.events.suggestions('cfg-a', 'buy', { sessions: 2, clients: 1 }, 10)).toEqual(['buy shoes', 'buy socks', 'buy pills']);
      expect(await s.events.suggestions('cfg-a', 'buy', { sessions: 2, clients: 2 }, 10)).toEqual(['buy shoes', 'buy socks']);
      expect(await s.events.suggestions('cfg-a', 'buy', { sessions: 2, clients: 3 }, 10)).toEqual(['buy shoes']);
      expect(await s.events.suggestions('cfg-a', 'buy', { sessions: 4, clients: 2 }, 10)).toEqual(['buy socks']);

      await s.events.blockSuggestion('cfg-a', 'buy shoes', T0);
      await s.events.blockSuggestion('cfg-a', 'buy shoes', T0 + 1);
      await s.events.blockSuggestion('cfg-a', 'another', T0);
      expect(await s.events.blockedSuggestions('cfg-a')).toEqual(['another', 'buy shoes']);
      expect(await s.events.blockedSuggestions('cfg-b')).toEqual([]);
      // A page at a time, by code point.
      await s.events.blockSuggestion('cfg-a', 'Zebra', T0);
      expect(await s.events.blockedSuggestions('cfg-a', { limit: 2 })).toEqual(['Zebra', 'another']);
      expect(await s.events.blockedSuggestions('cfg-a', { limit: 2, after: 'another' })).toEqual(['buy shoes']);
      await s.events.unblockSuggestion('cfg-a', 'Zebra');
      expect(await s.events.suggestions('cfg-a', 'buy', { sessions: 2, clients: 2 }, 10)).toEqual(['buy socks']);
      expect(await s.events.unblockSuggestion('cfg-a', 'buy shoes')).toBe(true);
      expect(await s.events.unblockSuggestion('cfg-a', 'buy shoes')).toBe(false);
      expect(await s.events.suggestions('cfg-a', 'buy', { sessions: 2, clients: 2 }, 10)).toEqual(['buy shoes', 'buy socks']);
    });

    it('retention drops what was learnt from queries and clicks not repeated since the cut', async () => {
      const from = (e: SearchEvent, client: string) => ({ ...e, client });
      const both = { sessions: 1, clients: 1 };
      await s.events.recordSearches([
        from(search('o1', T0, 'h1', 'old query'), 'ip-1'), from(search('o2', T0, 'h1', 'renewed query'), 'ip-1'),
        from(search('n1', T0 + 2 * DAY, 'h2', 'renewed query'), 'ip-2'),
      ]);
      await s.events.recordClick({ ...click('o1', T0 + 1, 'h1', 1, 'idx\u0000d1', 'cfg-a', 'old query'), client: 'ip-1' });
      await s.events.recordClick({ ...click('o2', T0 + 1, 'h1', 1, 'idx\u0000d1', 'cfg-a', 'renewed query'), client: 'ip-1' });
      await s.events.recordClick({ ...click('n1', T0 + 2 * DAY, 'h2', 1, 'idx\u0000d1', 'cfg-a', 'renewed query'), client: 'ip-2' });
      await s.events.prune(T0 + DAY);
      expect(await s.events.suggestions('cfg-a', '', both, 10)).toEqual(['renewed query']);
      // Kept statistics keep their counts: both sessions and addresses, the pruned day's too.
      expect(await s.events.suggestions('cfg-a', '', { sessions: 2, clients: 2 }, 10)).toEqual(['renewed query']);
      expect(await s.events.clickEvidence('cfg-a', 'old query')).toEqual(new Map());
      expect(await s.events.clickEvidence('cfg-a', 'renewed query')).toEqual(new Map([['idx\u0000d1', { sessions: 2, clients: 2 }]]));
      // Learnt afresh, the old query counts its sessions and addresses from nothing.
      await s.events.recordSearches([from(search('o3', T0 + 3 * DAY, 'h1', 'old query'), 'ip-1')]);
      expect(await s.events.suggestions('cfg-a', 'old', both, 10)).toEqual(['old query']);
      expect(await s.events.suggestions('cfg-a', 'old', { sessions: 1, clients: 2 }, 10)).toEqual([]);
    });

    it('learns distinct sessions and distinct client addresses per clicked target', async () => {
      await s.events.recordSearches([search('s1', T0, 'h1', 'q'), search('s2', T0, 'h2', 'q'), search('s3', T0, 'h3', 'q')]);
      const at = (id: string, session: string, client?: string) => ({ ...click(id, T0 + 5, session, 1), ...(client ? { client } : {}) });
      expect(await s.events.recordClick(at('s1', 'h1', 'ip-1'))).toBe(true);
      expect(await s.events.recordClick(at('s2', 'h2', 'ip-1'))).toBe(true);
      expect(await s.events.recordClick(at('s3', 'h3', 'ip-2'))).toBe(true);
      expect(await s.events.recordClick(at('s3', 'h3', 'ip-3'))).toBe(false);
      expect(await s.events.clickEvidence('cfg-a', 'q')).toEqual(new Map([['idx\u0000d1', { sessions: 3, clients: 2 }]]));
    });

    it('records a click once per search, session and position, and learns distinct sessions per target', async () => {
      await s.events.recordSearches([search('s1', T0, 'h1', 'q'), search('s2', T0, 'h2', 'q')]);
      expect(await s.events.recordClick(click('s1', T0 + 5, 'h1', 1))).toBe(true);
      expect(await s.events.recordClick(click('s1', T0 + 6, 'h1', 1))).toBe(false);
      expect(await s.events.recordClick(click('s1', T0 + 7, 'h1', 2))).toBe(true);
      expect(await s.events.recordClick(click('s2', T0 + 8, 'h2', 1))).toBe(true);
      expect(await s.events.recordClick(click('s2', T0 + 9, 'h2', 3, 'idx\u0000d2'))).toBe(true);
      expect(await s.events.clickEvidence('cfg-a', 'q')).toEqual(new Map([['idx\u0000d1', { sessions: 2, clients: 0 }], ['idx\u0000d2', { sessions: 1, clients: 0 }]]));
      expect(await s.events.clickEvidence('cfg-a', 'other')).toEqual(new Map());
    });

    it('aggregates insights over a range', async () => {
      const d1 = T0 + 3_600_000;
      const d2 = T0 + DAY + 3_600_000;
      await s.events.recordSearches([
        search('s1', d1, 'h1', 'install'), search('s2', d1, 'h1', 'install', 0), search('s3', d2, 'h2', 'pricing', 0),
        search('s4', d2, 'h1', 'install'), search('s5', T0 + 9 * DAY, 'h3', 'late'), search('s6', d1, 'h4', 'install', 3, 'cfg-b'),
      ]);
      await s.events.recordClick(click('s1', d1 + 10, 'h1', 1));
      await s.events.recordClick(click('s1', d1 + 11, 'h1', 2));
      await s.events.recordClick(click('s4', d2 + 10, 'h1', 1));
      await s.events.recordSupportForward({ at: d2, configurationUid: 'cfg-a', url: 'https://help', session: 'h1', device: 'mobile' });
      const gen = { configurationUid: 'cfg-a', session: null, device: 'desktop' as const, query: 'q', latencyMs: 12.6, references: [] };
      await s.events.recordGeneration({ ...gen, id: 'g1', at: d1, kind: 'summary', status: 'success' });
      await s.events.recordGeneration({ ...gen, id: 'g1', at: d1, kind: 'summary', status: 'success' });
      await s.events.recordGeneration({ ...gen, id: 'g2', at: d2, kind: 'chat', status: 'no-relevant-results' });
      expect(await s.events.insights('cfg-a', T0, T0 + 2 * DAY)).toEqual({
        searches: 4, sessions: 2, clicks: 3, searchesWithClick: 2, ctr: 0.5, noResultSearches: 2,
        topQueries: [{ query: 'install', searches: 3, clicks: 3 }, { query: 'pricing', searches: 1, clicks: 0 }],
        noResultQueries: [{ query: 'install', searches: 1 }, { query: 'pricing', searches: 1 }],
        clickPositions: [{ position: 1, clicks: 2 }, { position: 2, clicks: 1 }],
        supportForwards: 1, summaries: 1, chats: 1, unansweredGenerations: 1, summariesUnanswered: 0, chatsUnanswered: 1,
        byDay: [
          { day: '2024-03-10', searches: 2, clicks: 2, noResults: 1, sessions: 1 },
          { day: '2024-03-11', searches: 2, clicks: 1, noResults: 1, sessions: 2 },
        ],
        devices: [{ device: 'desktop', searches: 4 }],
        supportForwardUrls: [{ url: 'https://help', forwards: 1 }],
      });
      // New York: 01:00 UTC on the 10th is the evening of the 9th there.
      expect((await s.events.insights('cfg-a', T0 - DAY, T0 + 3 * DAY, { timeZone: 'America/New_York', limit: 1 }))).toMatchObject({
        topQueries: [{ query: 'install', searches: 3, clicks: 3 }],
        noResultQueries: [{ query: 'install', searches: 1 }],
        byDay: [
          { day: '2024-03-09', searches: 2, clicks: 2, noResults: 1, sessions: 1 },
          { day: '2024-03-10', searches: 2, clicks: 1, noResults: 1, sessions: 2 },
        ],
      });
      const none = await s.events.insights('cfg-a', T0 + 20 * DAY, T0 + 21 * DAY);
      expect(none).toMatchObject({ searches: 0, sessions: 0, clicks: 0, ctr: 0, topQueries: [], byDay: [] });
    });

    it('matches the raw events for any range, clicks arriving before or long after their search', async () => {
      const rand = prng(7);
      const model = new EventModel();
      for (const op of randomOps(rand, T0, 6, CFGS, 'r')) {
        await apply(s, op);
        model.add(op);
      }
      // A century: days are listed around the events only, clicks on days without searches left out.
      await expectLikeModel(s, model, [...ranges(rand, T0, 6), [Date.UTC(2000, 0, 1), Date.UTC(2100, 0, 1)]]);
    });

    it('matches the raw events when two hosts record at once', async () => {
      const rand = prng(11);
      const model = new EventModel();
      const ops = randomOps(rand, T0, 4, CFGS, 'c');
      const hosts = [s, await h.open()];
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async (_, w) => {
        for (let op: Op | undefined; (op = ops[next++]);) {
          await apply(hosts[w % 2], op);
          model.add(op);
        }
      }));
      await expectLikeModel(s, model, ranges(rand, T0, 4));
    });

    it('ranks top queries exactly over long tails, skewed or flat', async () => {
      const model = new EventModel();
      const record = async (events: SearchEvent[]) => {
        await s.events.recordSearches(events);
        model.add({ kind: 'searches', events });
      };
      for (let d = 0; d < 3; d++) {
        const at = T0 + d * DAY + 7_200_000;
        // Skewed: 25 head queries asked 3-27 times a day above a tail of 150 asked once.
        const skewed = Array.from({ length: 25 }, (_, q) => Array.from({ length: 3 + q - d }, (_, i) => `k${q}`)).flat()
          .concat(Array.from({ length: 150 }, (_, q) => `tail${d}-${q}`));
        await record(skewed.map((q, i) => search(`k${d}-${i}`, at + i, `h${i % 40}`, q, i % 3 ? 2 : 0)));
        // Flat: 1,200 queries asked once a day, so the 20th and the bound tie.
        const flat = Array.from({ length: 1200 }, (_, q) => `f${String(q).padStart(4, '0')}`);
        await record(flat.map((q, i) => search(`f${d}-${i}`, at + i, `h${i % 40}`, q, 3, 'cfg-b')));
      }
      await expectLikeModel(s, model, [[T0, T0 + 3 * DAY], [T0 + DAY, T0 + 2 * DAY], [T0 + 3_600_000, T0 + 3 * DAY - 1]]);
    });

    it('prunes raw events before a moment, and insights follow what remains', async () => {
      const rand = prng(5);
      const model = new EventModel();
      // A click days before its search (a host's clock), pruned while the search stays.
      const skewed: Op[] = [
        { kind: 'searches', events: [search('skew', T0 + 4.5 * DAY, 'h1', 'install')] },
        { kind: 'click', event: click('skew', T0 + DAY, 'h1', 1) },
      ];
      for (const op of [...skewed, ...randomOps(rand, T0, 6, CFGS, 'p')]) {
        await apply(s, op);
        model.add(op);
      }
      for (const before of [T0 + 1.3 * DAY, T0 + 2 * DAY, T0 + 3.7 * DAY]) {
        const expected = model.prune(before);
        expect(await s.events.prune(before)).toBe(expected);
        await expectLikeModel(s, model, ranges(rand, T0, 6).slice(0, 7));
      }
      expect(await s.events.prune(T0)).toBe(0);
      for (const op of randomOps(rand, T0 + 3 * DAY, 3, CFGS, 'q', 80)) {
        await apply(s, op);
        model.add(op);
      }
      await expectLikeModel(s, model, ranges(rand, T0, 6).slice(0, 7));
    });

    it('forgets everything of one configuration', async () => {
      await s.events.recordSearches([search('a1', T0, 'h1', 'q'), search('b1', T0, 'h1', 'q', 1, 'cfg-b')]);
      await s.events.recordClick(click('a1', T0 + 1, 'h1', 1));
      await s.events.recordClick(click('b1', T0 + 1, 'h1', 1, 'idx\u0000d1', 'cfg-b'));
      await s.events.recordSupportForward({ at: T0, configurationUid: 'cfg-a', url: 'u', session: null, device: 'desktop' });
      await s.events.blockSuggestion('cfg-a', 'gone', T0);
      await s.events.blockSuggestion('cfg-b', 'kept', T0);
      await s.events.forget('cfg-a');
      expect(await s.events.queryCount('cfg-a')).toBe(0);
      expect(await s.events.suggestions('cfg-a', '', min(1), 10)).toEqual([]);
      expect(await s.events.clickEvidence('cfg-a', 'q')).toEqual(new Map());
      expect(await s.events.blockedSuggestions('cfg-a')).toEqual([]);
      expect(await s.events.blockedSuggestions('cfg-b')).toEqual(['kept']);
      expect(await s.events.insights('cfg-a', T0 - DAY, T0 + DAY)).toMatchObject({ searches: 0, sessions: 0, clicks: 0, supportForwards: 0, byDay: [] });
      expect(await s.events.insights('cfg-b', T0 - DAY, T0 + DAY)).toMatchObject({ searches: 1, sessions: 1, clicks: 1 });
      expect(await s.events.recordClick(click('a1', T0 + 1, 'h1', 1))).toBe(true);
    });
  });
}
