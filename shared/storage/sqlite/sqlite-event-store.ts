import type {
  ClickEvent, Device, EventStore, Evidence, GenerationEvent, Insights, InsightsOptions, SearchEvent, SupportForwardEvent,
} from '../ports/event-store.js';
import { dayIndex, HOUR_MS, localDaysAround } from '../local-days.js';
import type Database from 'better-sqlite3';
import type { ListPage } from '../ports/list-page.js';
import type { Db } from './open-database.js';
import { uidPageParams, type UidPageParams } from './list-page-params.js';

export class SqliteEventStore implements EventStore {
  private readonly q;
  private readonly insertSearches: Database.Transaction<(events: SearchEvent[]) => void>;
  private readonly insertClick: Database.Transaction<(e: ClickEvent) => boolean>;

  constructor(private readonly db: Db) {
    this.q = {
      search: db.prepare(
        `INSERT OR IGNORE INTO searches (id, at, configuration_uid, variant, session, device, query, normalized, result_count)
         VALUES (@id, @at, @configurationUid, @variant, @session, @device, @query, @normalized, @resultCount)`,
      ),
      querySession: db.prepare(`INSERT OR IGNORE INTO query_sessions (configuration_uid, query, session) VALUES (?, ?, ?)`),
      queryClient: db.prepare(`INSERT OR IGNORE INTO query_clients (configuration_uid, query, client) VALUES (?, ?, ?)`),
      queryStat: db.prepare(
        `INSERT INTO query_stats (configuration_uid, query, searches, sessions, clients, last_at) VALUES (?, ?, 1, ?, ?, ?)
         ON CONFLICT DO UPDATE SET searches = searches + 1, sessions = sessions + excluded.sessions, clients = clients + excluded.clients,
           last_at = max(last_at, excluded.last_at)`,
      ),
      total: db.prepare(
        `INSERT INTO query_totals (configuration_uid, searches) VALUES (?, 1) ON CONFLICT DO UPDATE SET searches = searches + 1`,
      ),
      click: db.prepare(
        `INSERT OR IGNORE INTO clicks (search_id, session, position, at, configuration_uid, target) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      clickSession: db.prepare(`INSERT OR IGNORE INTO click_sessions (configuration_uid, query, target, session) VALUES (?, ?, ?, ?)`),
      clickClient: db.prepare(`INSERT OR IGNORE INTO click_clients (configuration_uid, query, target, client) VALUES (?, ?, ?, ?)`),
      clickStat: db.prepare(
        `INSERT INTO click_stats (configuration_uid, query, target, sessions, clients, last_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET sessions = sessions + excluded.sessions, clients = clients + excluded.clients,
           last_at = max(last_at, excluded.last_at)`,
      ),
      generation: db.prepare(
        `INSERT OR IGNORE INTO generations (id, at, configuration_uid, kind, session, device, query, status, latency_ms, refs)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      support: db.prepare(`INSERT INTO support_forwards (at, configuration_uid, url, session, device) VALUES (?, ?, ?, ?, ?)`),
      count: db.prepare<[string], number>(`SELECT coalesce((SELECT searches FROM query_totals WHERE configuration_uid = ?), 0)`).pluck(),
      suggest: db.prepare<[string, string, string, number, number, number], string>(
        `SELECT query FROM query_stats s WHERE configuration_uid = ? AND query >= ? AND query < ? AND sessions >= ? AND clients >= ?
           AND NOT EXISTS (SELECT 1 FROM blocked_suggestions b WHERE b.configuration_uid = s.configuration_uid AND b.query = s.query)
         ORDER BY clients DESC, searches DESC, query LIMIT ?`,
      ).pluck(),
      clickEvidence: db.prepare<[string, string], { target: string; sessions: number; clients: number }>(
        `SELECT target, sessions, clients FROM click_stats WHERE configuration_uid = ? AND query = ?`,
      ),
      blocked: db.prepare<[UidPageParams & { uid: string }], string>(
        `SELECT query FROM blocked_suggestions WHERE configuration_uid = @uid AND (@after IS NULL OR query > @after) ORDER BY query LIMIT @limit`,
      ).pluck(),
      block: db.prepare(`INSERT OR IGNORE INTO blocked_suggestions (configuration_uid, query, created_at) VALUES (?, ?, ?)`),
      unblock: db.prepare(`DELETE FROM blocked_suggestions WHERE configuration_uid = ? AND query = ?`),
    };
    this.insertSearches = db.transaction((events: SearchEvent[]) => {
      for (const e of events) {
        if (this.q.search.run(e).changes === 0) continue;
        const newSession = this.q.querySession.run(e.configurationUid, e.normalized, e.session).changes;
        const newClient = e.client ? this.q.queryClient.run(e.configurationUid, e.normalized, e.client).changes : 0;
        this.q.queryStat.run(e.configurationUid, e.normalized, newSession, newClient, e.at);
        this.q.total.run(e.configurationUid);
      }
    });
    this.insertClick = db.transaction((e: ClickEvent) => {
      if (this.q.click.run(e.searchEventId, e.session, e.position, e.at, e.configurationUid, e.target).changes === 0) return false;
      const newSession = this.q.clickSession.run(e.configurationUid, e.normalized, e.target, e.session).changes;
      const newClient = e.client ? this.q.clickClient.run(e.configurationUid, e.normalized, e.target, e.client).changes : 0;
      this.q.clickStat.run(e.configurationUid, e.normalized, e.target, newSession, newClient, e.at);
      return true;
    });
  }

  async recordSearches(events: SearchEvent[]) {
    if (events.length) this.insertSearches.immediate(events);
  }

  async recordClick(e: ClickEvent) {
    return this.insertClick.immediate(e);
  }

  async recordSupportForward(e: SupportForwardEvent) {
    this.q.support.run(e.at, e.configurationUid, e.url, e.session, e.device);
  }

  async recordGeneration(e: GenerationEvent) {
    this.q.generation.run(e.id, e.at, e.configurationUid, e.kind, e.session, e.device, e.query, e.status, Math.round(e.latencyMs), JSON.stringify(e.references));
  }

  async queryCount(configurationUid: string) {
    return this.q.count.get(configurationUid) as number;
  }

  async suggestions(configurationUid: string, prefix: string, min: Evidence, limit: number) {
    return this.q.suggest.all(configurationUid, prefix, prefix + '\u{10ffff}', min.sessions, min.clients, limit);
  }

  async clickEvidence(configurationUid: string, normalized: string) {
    return new Map(this.q.clickEvidence.all(configurationUid, normalized).map((r) => [r.target, { sessions: r.sessions, clients: r.clients }]));
  }

  async blockedSuggestions(configurationUid: string, page?: ListPage<string>) {
    return this.q.blocked.all({ uid: configurationUid, ...uidPageParams(page) });
  }

  async blockSuggestion(configurationUid: string, normalized: string, at: number) {
    this.q.block.run(configurationUid, normalized, at);
  }

  async unblockSuggestion(configurationUid: string, normalized: string) {
    return this.q.unblock.run(configurationUid, normalized).changes > 0;
  }

  async insights(uid: string, from: number, to: number, options: InsightsOptions = {}): Promise<Insights> {
    const limit = options.limit ?? 20;
    const one = <T>(sql: string, ...args: unknown[]) => this.db.prepare(sql).get(...args) as T;
    const all = <T>(sql: string, ...args: unknown[]) => this.db.prepare(sql).all(...args) as T[];
    const range = [uid, from, to];
    const s = one<{ searches: number; sessions: number; empty: number }>(
      `SELECT count(*) AS searches, count(DISTINCT session) AS sessions, coalesce(sum(result_count = 0), 0) AS empty
       FROM searches WHERE configuration_uid = ? AND at >= ? AND at < ?`, ...range);
    const c = one<{ clicks: number; searches: number }>(
      `SELECT count(*) AS clicks, count(DISTINCT search_id) AS searches FROM clicks WHERE configuration_uid = ? AND at >= ? AND at < ?`, ...range);
    const topQueries = all<{ query: string; searches: number; clicks: number }>(
      `SELECT s.normalized AS query, count(DISTINCT s.id) AS searches, count(k.search_id) AS clicks
       FROM searches s LEFT JOIN clicks k ON k.search_id = s.id
       WHERE s.configuration_uid = ? AND s.at >= ? AND s.at < ?
       GROUP BY s.normalized ORDER BY searches DESC, query LIMIT ?`, ...range, limit);
    const noResultQueries = all<{ query: string; searches: number }>(
      `SELECT normalized AS query, count(*) AS searches FROM searches
       WHERE configuration_uid = ? AND at >= ? AND at < ? AND result_count = 0
       GROUP BY normalized ORDER BY searches DESC, query LIMIT ?`, ...range, limit);
    const clickPositions = all<{ position: number; clicks: number }>(
      `SELECT position, count(*) AS clicks FROM clicks WHERE configuration_uid = ? AND at >= ? AND at < ? GROUP BY position ORDER BY position`, ...range);
    const supportForwardUrls = all<{ url: string; forwards: number }>(
      `SELECT url, count(*) AS forwards FROM support_forwards WHERE configuration_uid = ? AND at >= ? AND at < ?
       GROUP BY url ORDER BY forwards DESC, url LIMIT 20`, ...range);
    const devices = all<{ device: Device; searches: number }>(
      `SELECT device, count(*) AS searches FROM searches WHERE configuration_uid = ? AND at >= ? AND at < ?
       GROUP BY device ORDER BY searches DESC, device`, ...range);
    const g = one<{ summaries: number; chats: number; summariesUnanswered: number; chatsUnanswered: number }>(
      `SELECT coalesce(sum(kind = 'summary'), 0) AS summaries, coalesce(sum(kind = 'chat'), 0) AS chats,
              coalesce(sum(kind = 'summary' AND status = 'no-relevant-results'), 0) AS summariesUnanswered,
              coalesce(sum(kind = 'chat' AND status = 'no-relevant-results'), 0) AS chatsUnanswered
       FROM generations WHERE configuration_uid = ? AND at >= ? AND at < ?`, ...range);
    return {
      searches: s.searches,
      sessions: s.sessions,
      clicks: c.clicks,
      searchesWithClick: c.searches,
      ctr: s.searches ? c.searches / s.searches : 0,
      noResultSearches: s.empty,
      topQueries,
      noResultQueries,
      clickPositions,
      supportForwards: one<{ n: number }>(`SELECT count(*) AS n FROM support_forwards WHERE configuration_uid = ? AND at >= ? AND at < ?`, ...range).n,
      summaries: g.summaries,
      chats: g.chats,
      unansweredGenerations: g.summariesUnanswered + g.chatsUnanswered,
      summariesUnanswered: g.summariesUnanswered,
      chatsUnanswered: g.chatsUnanswered,
      byDay: s.searches ? this.byDay(uid, from, to, options.timeZone ?? 'UTC') : [],
      devices,
      supportForwardUrls,
    };
  }

  /** Per local day, from hourly groups (days start on whole hours, see localDays). */
  private byDay(uid: string, from: number, to: number, timeZone: string): Insights['byDay'] {
    const range = [uid, from, to];
    const searches = this.db.prepare(
      `SELECT at / ${HOUR_MS} AS hour, session, count(*) AS searches, sum(result_count = 0) AS noResults FROM searches
       WHERE configuration_uid = ? AND at >= ? AND at < ? GROUP BY hour, session ORDER BY hour`,
    ).all(...range) as { hour: number; session: string; searches: number; noResults: number }[];
    const days = localDaysAround(from, to, timeZone, searches[0].hour * HOUR_MS, searches[searches.length - 1].hour * HOUR_MS);
    const out = days.map((d) => ({ day: d.day, searches: 0, clicks: 0, noResults: 0, sessions: new Set<string>() }));
    const at = (hour: number) => out[dayIndex(days, Math.max(from, hour * HOUR_MS))];
    for (const r of searches) {
      const d = at(r.hour);
      d.searches += r.searches;
      d.noResults += r.noResults;
      d.sessions.add(r.session);
    }
    for (const r of this.db.prepare(
      `SELECT at / ${HOUR_MS} AS hour, count(*) AS clicks FROM clicks WHERE configuration_uid = ? AND at >= ? AND at < ? GROUP BY hour`,
    ).all(...range) as { hour: number; clicks: number }[]) {
      const d = at(r.hour);
      if (d) d.clicks += r.clicks;
    }
    return out.filter((d) => d.searches > 0).map((d) => ({ ...d, sessions: d.sessions.size }));
  }

  async forget(uid: string) {
    this.db.transaction(() => {
      for (const table of [
        'searches', 'clicks', 'support_forwards', 'generations', 'query_stats', 'query_sessions', 'query_clients', 'query_totals', 'click_stats',
        'click_sessions', 'click_clients', 'blocked_suggestions',
      ]) {
        this.db.prepare(`DELETE FROM ${table} WHERE configuration_uid = ?`).run(uid);
      }
    }).immediate();
  }

  async prune(before: number) {
    return this.db.transaction(() => {
      let n = 0;
      for (const table of ['searches', 'clicks', 'support_forwards', 'generations']) {
        n += this.db.prepare(`DELETE FROM ${table} WHERE at < ?`).run(before).changes;
      }
      // What was learnt from queries and clicks nobody repeated since: its sessions and addresses too.
      const staleQueries = `SELECT configuration_uid, query FROM query_stats WHERE last_at < ?`;
      for (const table of ['query_sessions', 'query_clients']) {
        this.db.prepare(`DELETE FROM ${table} WHERE (configuration_uid, query) IN (${staleQueries})`).run(before);
      }
      this.db.prepare(`DELETE FROM query_stats WHERE last_at < ?`).run(before);
      const staleClicks = `SELECT configuration_uid, query, target FROM click_stats WHERE last_at < ?`;
      for (const table of ['click_sessions', 'click_clients']) {
        this.db.prepare(`DELETE FROM ${table} WHERE (configuration_uid, query, target) IN (${staleClicks})`).run(before);
      }
      this.db.prepare(`DELETE FROM click_stats WHERE last_at < ?`).run(before);
      return n;
    }).immediate();
  }
}
