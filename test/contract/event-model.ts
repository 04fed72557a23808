import type { ClickEvent, Device, GenerationEvent, Insights, InsightsOptions, SearchEvent, SupportForwardEvent } from '../../shared/storage/ports/event-store.js';
import { dayIndex, localDays } from '../../shared/storage/local-days.js';
import type { BackendStorage } from '../../shared/storage/ports/storage.js';

export const DAY = 86_400_000;

/** The events an event store holds, kept in memory: the reference its insights must equal. */
export class EventModel {
  searches = new Map<string, SearchEvent>();
  clicks = new Map<string, ClickEvent>();
  supports: SupportForwardEvent[] = [];
  generations = new Map<string, GenerationEvent>();

  /** Mirrors what the store keeps: the first of duplicate ids (or clicks of one search, session and position). */
  add(op: Op) {
    if (op.kind === 'searches') for (const e of op.events) if (!this.searches.has(e.id)) this.searches.set(e.id, e);
    if (op.kind === 'click') {
      const k = `${op.event.searchEventId}\u0001${op.event.session}\u0001${op.event.position}`;
      if (!this.clicks.has(k)) this.clicks.set(k, op.event);
    }
    if (op.kind === 'support') this.supports.push(op.event);
    if (op.kind === 'generation' && !this.generations.has(op.event.id)) this.generations.set(op.event.id, op.event);
  }

  /** Forgets events before `before`; returns how many. */
  prune(before: number): number {
    let n = 0;
    const drop = <T extends { at: number }>(m: Map<string, T>) => {
      for (const [k, e] of m) if (e.at < before) m.delete(k), n++;
    };
    drop(this.searches);
    drop(this.clicks);
    drop(this.generations);
    const kept = this.supports.filter((e) => e.at >= before);
    n += this.supports.length - kept.length;
    this.supports = kept;
    return n;
  }

  insights(cfg: string, from: number, to: number, options: InsightsOptions = {}): Insights {
    const limit = options.limit ?? 20;
    const inRange = (e: { configurationUid: string; at: number }) => e.configurationUid === cfg && e.at >= from && e.at < to;
    const S = [...this.searches.values()].filter(inRange);
    const C = [...this.clicks.values()].filter(inRange);
    const allClicks = [...this.clicks.values()];
    const clicksOf = new Map<string, number>();
    for (const k of allClicks) clicksOf.set(k.searchEventId, (clicksOf.get(k.searchEventId) ?? 0) + 1);
    const top = new Map<string, { query: string; searches: number; clicks: number }>();
    const empty = new Map<string, { query: string; searches: number }>();
    const localDay = localDays(from, to, options.timeZone ?? 'UTC');
    const dayOf = (at: number) => localDay[dayIndex(localDay, at)].day;
    const days = new Map<string, { searches: number; noResults: number; sessions: Set<string> }>();
    for (const s of S) {
      const t = top.get(s.normalized) ?? { query: s.normalized, searches: 0, clicks: 0 };
      t.searches++;
      t.clicks += clicksOf.get(s.id) ?? 0;
      top.set(s.normalized, t);
      if (s.resultCount === 0) {
        const e = empty.get(s.normalized) ?? { query: s.normalized, searches: 0 };
        e.searches++;
        empty.set(s.normalized, e);
      }
      const d = days.get(dayOf(s.at)) ?? { searches: 0, noResults: 0, sessions: new Set<string>() };
      d.searches++;
      if (s.resultCount === 0) d.noResults++;
      d.sessions.add(s.session);
      days.set(dayOf(s.at), d);
    }
    const dayClicks = count(C.map((k) => dayOf(k.at)));
    const byCount = <T extends { query: string; searches: number }>(a: T, b: T) => b.searches - a.searches || (a.query < b.query ? -1 : 1);
    const searchesWithClick = new Set(C.map((k) => k.searchEventId)).size;
    const G = [...this.generations.values()].filter(inRange);
    const unanswered = (kind: string) => G.filter((g) => g.kind === kind && g.status === 'no-relevant-results').length;
    const supports = this.supports.filter(inRange);
    return {
      searches: S.length,
      sessions: new Set(S.map((s) => s.session)).size,
      clicks: C.length,
      searchesWithClick,
      ctr: S.length ? searchesWithClick / S.length : 0,
      noResultSearches: S.filter((s) => s.resultCount === 0).length,
      topQueries: [...top.values()].sort(byCount).slice(0, limit),
      noResultQueries: [...empty.values()].sort(byCount).slice(0, limit),
      clickPositions: [...count(C.map((k) => k.position))].sort((a, b) => a[0] - b[0]).map(([position, clicks]) => ({ position, clicks })),
      supportForwards: supports.length,
      summaries: G.filter((g) => g.kind === 'summary').length,
      chats: G.filter((g) => g.kind === 'chat').length,
      unansweredGenerations: G.filter((g) => g.status === 'no-relevant-results').length,
      summariesUnanswered: unanswered('summary'),
      chatsUnanswered: unanswered('chat'),
      byDay: [...days].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, d]) => ({
        day, searches: d.searches, clicks: dayClicks.get(day) ?? 0, noResults: d.noResults, sessions: d.sessions.size,
      })),
      devices: [...count(S.map((s) => s.device))].map(([device, searches]) => ({ device, searches }))
        .sort((a, b) => b.searches - a.searches || (a.device < b.device ? -1 : 1)),
      supportForwardUrls: [...count(supports.map((f) => f.url))].map(([url, forwards]) => ({ url, forwards }))
        .sort((a, b) => b.forwards - a.forwards || (a.url < b.url ? -1 : 1)).slice(0, 20),
    };
  }
}

function count<T>(xs: T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

export type Op =
  | { kind: 'searches'; events: SearchEvent[] }
  | { kind: 'click'; event: ClickEvent }
  | { kind: 'support'; event: SupportForwardEvent }
  | { kind: 'generation'; event: GenerationEvent };

export async function apply(s: BackendStorage, op: Op): Promise<void> {
  if (op.kind === 'searches') await s.events.recordSearches(op.events);
  else if (op.kind === 'click') await s.events.recordClick(op.event);
  else if (op.kind === 'support') await s.events.recordSupportForward(op.event);
  else await s.events.recordGeneration(op.event);
}

/**
 * Random usage of two configurations over `days` days from `t0`: search batches, clicks (some
 * before their search is recorded, some the next day, some of unknown searches, some repeated),
 * support forwards and generations, in a shuffled order.
 */
const DEVICES: Device[] = ['desktop', 'mobile', 'unknown'];
const URLS = ['https://support/x', 'https://support/y', 'https://help/a'];

export function randomOps(rand: () => number, t0: number, days: number, cfgs: string[], tag: string, n = 240): Op[] {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const time = () => t0 + Math.floor(rand() * days * DAY);
  const queries = ['install', 'install guide', 'pricing', 'price', 'login', 'logout', 'api key', 'zebra', 'a', 'b', 'c', 'delete account'];
  const sessions = Array.from({ length: 14 }, (_, i) => `sess-${i}`);
  const searches: SearchEvent[] = Array.from({ length: n }, (_, i) => {
    const q = pick(queries);
    return {
      id: `${tag}-s${i}`, at: time(), configurationUid: pick(cfgs), variant: 'ui', session: pick(sessions), device: pick(DEVICES),
      query: q.toUpperCase(), normalized: q, resultCount: rand() < 0.25 ? 0 : 1 + Math.floor(rand() * 9),
    };
  });
  const ops: Op[] = [];
  for (let i = 0; i < searches.length;) {
    const size = 1 + Math.floor(rand() * 12);
    const batch = searches.slice(i, i + size);
    if (rand() < 0.2) batch.push(pick(searches));
    ops.push({ kind: 'searches', events: batch });
    i += size;
  }
  for (let i = 0; i < n / 2; i++) {
    const s = pick(searches);
    const known = rand() > 0.1;
    // Mostly minutes after the search; sometimes the next day, sometimes before it (a host's clock).
    const skew = rand() < 0.06 ? -2 * rand() : (rand() - 0.1) * (rand() < 0.2 ? 1.5 : 0.05);
    const at = Math.max(t0, s.at + Math.floor(skew * DAY));
    const event: ClickEvent = {
      at, configurationUid: rand() < 0.95 ? s.configurationUid : pick(cfgs), searchEventId: known ? s.id : `${tag}-unknown-${i % 5}`,
      session: rand() < 0.8 ? s.session : pick(sessions), normalized: s.normalized, position: 1 + Math.floor(rand() * 5),
      target: `idx\u0000doc-${Math.floor(rand() * 6)}`,
    };
    ops.push({ kind: 'click', event });
    if (rand() < 0.1) ops.push({ kind: 'click', event: { ...event } });
  }
  for (let i = 0; i < n / 8; i++) {
    ops.push({ kind: 'support', event: { at: time(), configurationUid: pick(cfgs), url: pick(URLS), session: rand() < 0.5 ? null : pick(sessions), device: pick(DEVICES) } });
    const g: GenerationEvent = {
      id: `${tag}-g${i}`, at: time(), configurationUid: pick(cfgs), kind: rand() < 0.5 ? 'summary' : 'chat', session: pick(sessions),
      device: 'unknown', query: pick(queries), status: rand() < 0.3 ? 'no-relevant-results' : 'success', latencyMs: rand() * 900, references: ['https://r/1'],
    };
    ops.push({ kind: 'generation', event: g });
    if (rand() < 0.2) ops.push({ kind: 'generation', event: { ...g } });
  }
  for (let i = ops.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ops[i], ops[j]] = [ops[j], ops[i]];
  }
  return ops;
}

/** Ranges to compare over: aligned days, the whole span, and random ones that start and end mid-day. */
export function ranges(rand: () => number, t0: number, days: number): [number, number][] {
  const out: [number, number][] = [[t0, t0 + days * DAY], [t0 - DAY, t0 + (days + 1) * DAY], [t0 + DAY, t0 + 3 * DAY], [t0 + 5000, t0 + 9000]];
  for (let i = 0; i < 8; i++) {
    const from = t0 + Math.floor(rand() * days * DAY);
    out.push([from, from + 1 + Math.floor(rand() * (days * DAY - (from - t0)))]);
  }
  return out;
}
