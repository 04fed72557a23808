import type pg from 'pg';
import type {
  ClickEvent, EventStore, Evidence, GenerationEvent, Insights, InsightsOptions, SearchEvent, SupportForwardEvent,
} from '../ports/event-store.js';
import { HOUR_MS } from '../local-days.js';
import type { ListPage } from '../ports/list-page.js';
import { DISTINCT_CLICKED_SEARCHES, DISTINCT_SESSION_HOURS, DISTINCT_SESSIONS, recordDistinct } from './pg-distinct-days.js';
import { pgInsights } from './pg-event-insights.js';
import { pgPruneEvents } from './pg-event-prune.js';
import { inTransaction, pgText } from './pg-transaction.js';

export const DAY_MS = 86_400_000;
const dayOf = (at: number) => Math.floor(at / DAY_MS);
const hourOf = (at: number) => Math.floor(at / HOUR_MS);
const FORGET_TABLES = [
  'searches', 'clicks', 'support_forwards', 'generations', 'query_stats', 'query_sessions', 'query_clients', 'query_totals', 'click_stats',
  'click_sessions', 'click_clients', 'blocked_suggestions', 'event_hours', 'click_hours', 'query_days', 'distinct_keys', 'distinct_pairs',
];

/** Adds to the counters of one event_hours row (created when missing). */
async function addToHour(c: pg.PoolClient, configurationUid: string, at: number, device: string, counts: Record<string, number>) {
  const columns = Object.keys(counts);
  await c.query(
    `INSERT INTO event_hours AS t (configuration_uid, hour, device, ${columns.join(', ')}) VALUES ($1, $2, $3, ${columns.map((_, i) => `$${i + 4}`).join(', ')})
     ON CONFLICT (configuration_uid, hour, device) DO UPDATE SET ${columns.map((k) => `${k} = t.${k} + excluded.${k}`).join(', ')}`,
    [configurationUid, hourOf(at), device, ...Object.values(counts)],
  );
}

/** Adds (configuration, query, member) rows to a per-query set table; how many were new per (configuration, query). */
async function addMembers(c: pg.PoolClient, table: 'query_sessions' | 'query_clients', column: 'session' | 'client', rows: { c: string; query: string; member: string }[]) {
  const { rows: added } = await c.query<{ c: string; query: string; n: number }>(
    `WITH ins AS (
       INSERT INTO ${table} (configuration_uid, query, ${column})
       SELECT DISTINCT * FROM unnest($1::text[], $2::text[], $3::text[]) ORDER BY 1, 2, 3
       ON CONFLICT DO NOTHING RETURNING configuration_uid, query)
     SELECT configuration_uid AS c, query, count(*) AS n FROM ins GROUP BY 1, 2`,
    [rows.map((r) => r.c), rows.map((r) => r.query), rows.map((r) => r.member)],
  );
  return added;
}

/**
 * Usage events in PostgreSQL.
 *
 * Insights read rollups, not raw events. Design choice: rollup tables maintained in the transaction
 * that records the events, rather than time-partitioned raw tables — partitions make retention
 * cheap but a 90-day range would still aggregate every raw row (10^7), and distinct sessions over
 * those rows take seconds. Counters by UTC hour and device (event_hours, click_hours) serve totals
 * and the local days of any zone (days start on whole hours, see localDays); top queries read
 * query_days by UTC day. Distinct counts (sessions, searches with a click) cannot be added up, so
 * they use the pair counts of pg-distinct-days.ts: by UTC day for range totals, by hour for
 * sessions per local day. A range that does not start or end on a rollup's boundary reads its
 * partial first and last hours (days) from the raw events (indexed by configuration and time), so
 * results equal a scan of the raw events. Retention deletes raw events by time (BRIN-indexed) and
 * rebuilds the one partially pruned day's and hour's rollups from what remains.
 *
 * Every transaction touches tables in one order (raw, stats, distinct, query_days, event_hours,
 * click_hours) and rows in key order, so concurrent recorders on many hosts do not deadlock.
 */
export class PgEventStore implements EventStore {
  constructor(private readonly pool: pg.Pool) {}

  async recordSearches(events: SearchEvent[]): Promise<void> {
    const seen = new Set<string>();
    const list = events.filter((e) => !seen.has(e.id) && seen.add(e.id));
    if (list.length === 0) return;
    await inTransaction(this.pool, async (c) => {
      const { rows } = await c.query<{ id: string; at: number; c: string; session: string; device: string; normalized: string; result_count: number }>(
        `INSERT INTO searches (id, at, configuration_uid, variant, session, device, query, normalized, result_count)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[])
         ORDER BY 1
         ON CONFLICT (id) DO NOTHING
         RETURNING id, at, configuration_uid AS c, session, device, normalized, result_count`,
        [list.map((e) => e.id), list.map((e) => e.at), list.map((e) => e.configurationUid), list.map((e) => e.variant),
          list.map((e) => pgText(e.session)), list.map((e) => e.device), list.map((e) => pgText(e.query)),
          list.map((e) => pgText(e.normalized)), list.map((e) => e.resultCount)],
      );
      if (rows.length === 0) return;
      // Clicks recorded before their search (a search batch waits a moment before it is written).
      const early = await c.query<{ search_id: string; n: number }>(
        `SELECT search_id, count(*) AS n FROM clicks WHERE search_id = ANY($1::text[]) GROUP BY search_id`,
        [rows.map((r) => r.id)],
      );
      const earlyClicks = new Map(early.rows.map((r) => [r.search_id, r.n]));

      const newSessions = await addMembers(c, 'query_sessions', 'session', rows.map((r) => ({ c: r.c, query: r.normalized, member: r.session })));
      const clientOf = new Map(list.map((e) => [e.id, e.client]));
      const newClients = await addMembers(c, 'query_clients', 'client',
        rows.filter((r) => clientOf.get(r.id)).map((r) => ({ c: r.c, query: r.normalized, member: clientOf.get(r.id)! })));
      const stats = new Map<string, { c: string; query: string; searches: number; sessions: number; clients: number; last: number }>();
      for (const r of rows) {
        const k = `${r.c}\u0000${r.normalized}`;
        const s = stats.get(k) ?? { c: r.c, query: r.normalized, searches: 0, sessions: 0, clients: 0, last: 0 };
        s.searches++;
        s.last = Math.max(s.last, Number(r.at));
        stats.set(k, s);
      }
      for (const r of newSessions) stats.get(`${r.c}\u0000${r.query}`)!.sessions += Number(r.n);
      for (const r of newClients) stats.get(`${r.c}\u0000${r.query}`)!.clients += Number(r.n);
      const s = [...stats.values()];
      await c.query(
        `INSERT INTO query_stats AS t (configuration_uid, query, searches, sessions, clients, last_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) ORDER BY 1, 2
         ON CONFLICT (configuration_uid, query) DO UPDATE SET searches = t.searches + excluded.searches, sessions = t.sessions + excluded.sessions,
           clients = t.clients + excluded.clients, last_at = greatest(t.last_at, excluded.last_at)`,
        [s.map((x) => x.c), s.map((x) => x.query), s.map((x) => x.searches), s.map((x) => x.sessions), s.map((x) => x.clients), s.map((x) => x.last)],
      );
      await c.query(
        `INSERT INTO query_totals AS t (configuration_uid, searches)
         SELECT c, count(*) FROM unnest($1::text[]) AS c GROUP BY c ORDER BY c
         ON CONFLICT (configuration_uid) DO UPDATE SET searches = t.searches + excluded.searches`,
        [rows.map((r) => r.c)],
      );
      await recordDistinct(c, DISTINCT_SESSIONS, rows.map((r) => ({ configurationUid: r.c, key: r.session, day: dayOf(r.at) })));
      await recordDistinct(c, DISTINCT_SESSION_HOURS, rows.map((r) => ({ configurationUid: r.c, key: r.session, day: hourOf(r.at) })));
      await c.query(
        `INSERT INTO query_days AS t (configuration_uid, day, query, searches, no_results, clicks)
         SELECT c, d, q, count(*), count(*) FILTER (WHERE n = 0), sum(k)
         FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::bigint[]) AS u(c, d, q, n, k)
         GROUP BY c, d, q ORDER BY c, d, q
         ON CONFLICT (configuration_uid, day, query) DO UPDATE
           SET searches = t.searches + excluded.searches, no_results = t.no_results + excluded.no_results, clicks = t.clicks + excluded.clicks`,
        [rows.map((r) => r.c), rows.map((r) => dayOf(r.at)), rows.map((r) => r.normalized), rows.map((r) => r.result_count),
          rows.map((r) => earlyClicks.get(r.id) ?? 0)],
      );
      await c.query(
        `INSERT INTO event_hours AS t (configuration_uid, hour, device, searches, no_results)
         SELECT c, h, v, count(*), count(*) FILTER (WHERE n = 0) FROM unnest($1::text[], $2::int[], $3::text[], $4::int[]) AS u(c, h, v, n)
         GROUP BY c, h, v ORDER BY c, h, v
         ON CONFLICT (configuration_uid, hour, device) DO UPDATE SET searches = t.searches + excluded.searches, no_results = t.no_results + excluded.no_results`,
        [rows.map((r) => r.c), rows.map((r) => hourOf(r.at)), rows.map((r) => r.device), rows.map((r) => r.result_count)],
      );
    });
  }

  async recordClick(e: ClickEvent): Promise<boolean> {
    const target = Buffer.from(e.target, 'utf8');
    const session = pgText(e.session);
    const normalized = pgText(e.normalized);
    return inTransaction(this.pool, async (c) => {
      const ins = await c.query(
        `INSERT INTO clicks (search_id, session, position, at, configuration_uid, target) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING`,
        [e.searchEventId, session, e.position, e.at, e.configurationUid, target],
      );
      if (ins.rowCount === 0) return false;
      const search = await this.searchOf(c, e.searchEventId);
      const learnt = await c.query(
        `INSERT INTO click_sessions (configuration_uid, query, target, session) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        [e.configurationUid, normalized, target, session],
      );
      const fromNewClient = e.client
        ? await c.query(
          `INSERT INTO click_clients (configuration_uid, query, target, client) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
          [e.configurationUid, normalized, target, e.client],
        )
        : { rowCount: 0 };
      await c.query(
        `INSERT INTO click_stats AS t (configuration_uid, query, target, sessions, clients, last_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (configuration_uid, query, target) DO UPDATE
           SET sessions = t.sessions + excluded.sessions, clients = t.clients + excluded.clients, last_at = greatest(t.last_at, excluded.last_at)`,
        [e.configurationUid, normalized, target, learnt.rowCount ?? 0, fromNewClient.rowCount ?? 0, e.at],
      );
      await recordDistinct(c, DISTINCT_CLICKED_SEARCHES, [{ configurationUid: e.configurationUid, key: e.searchEventId, day: dayOf(e.at) }]);
      if (search) {
        await c.query(
          `INSERT INTO query_days AS t (configuration_uid, day, query, searches, no_results, clicks) VALUES ($1, $2, $3, 0, 0, 1)
           ON CONFLICT (configuration_uid, day, query) DO UPDATE SET clicks = t.clicks + 1`,
          [search.c, dayOf(search.at), search.normalized],
        );
      }
      await c.query(
        `INSERT INTO click_hours AS t (configuration_uid, hour, position, clicks) VALUES ($1, $2, $3, 1)
         ON CONFLICT (configuration_uid, hour, position) DO UPDATE SET clicks = t.clicks + 1`,
        [e.configurationUid, hourOf(e.at), e.position],
      );
      return true;
    });
  }

  /**
   * The clicked search, for its query and day. When it is not (visibly) recorded, a placeholder
   * insert of its id waits for a recorder that is writing it right now: then either that recorder
   * committed first (its search is found now) or it will commit after us and count our click.
   */
  private async searchOf(c: pg.PoolClient, id: string) {
    const find = async () => (await c.query<{ c: string; at: number; normalized: string }>(
      `SELECT configuration_uid AS c, at, normalized FROM searches WHERE id = $1`, [id])).rows[0] ?? null;
    const found = await find();
    if (found) return found;
    const mine = await c.query(
      `INSERT INTO searches (id, at, configuration_uid, variant, session, device, query, normalized, result_count)
       VALUES ($1, 0, '', '', '', '', '', '', 0) ON CONFLICT DO NOTHING`,
      [id],
    );
    if (mine.rowCount === 0) return find();
    await c.query(`DELETE FROM searches WHERE id = $1`, [id]);
    return null;
  }

  async recordSupportForward(e: SupportForwardEvent): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query(
        `INSERT INTO support_forwards (at, configuration_uid, url, session, device) VALUES ($1, $2, $3, $4, $5)`,
        [e.at, e.configurationUid, pgText(e.url), e.session === null ? null : pgText(e.session), e.device],
      );
      await addToHour(c, e.configurationUid, e.at, e.device, { support_forwards: 1 });
    });
  }

  async recordGeneration(e: GenerationEvent): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      const ins = await c.query(
        `INSERT INTO generations (id, at, configuration_uid, kind, session, device, query, status, latency_ms, refs)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
        [e.id, e.at, e.configurationUid, e.kind, e.session === null ? null : pgText(e.session), e.device, pgText(e.query), e.status,
          Math.round(e.latencyMs), JSON.stringify(e.references)],
      );
      if (ins.rowCount === 0) return;
      const unanswered = e.status === 'no-relevant-results' ? 1 : 0;
      await addToHour(c, e.configurationUid, e.at, e.device, e.kind === 'summary'
        ? { summaries: 1, summaries_unanswered: unanswered }
        : { chats: 1, chats_unanswered: unanswered });
    });
  }

  async queryCount(configurationUid: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(`SELECT searches AS n FROM query_totals WHERE configuration_uid = $1`, [configurationUid]);
    return rows[0]?.n ?? 0;
  }

  async suggestions(configurationUid: string, prefix: string, min: Evidence, limit: number): Promise<string[]> {
    const p = pgText(prefix);
    const { rows } = await this.pool.query<{ query: string }>(
      `SELECT query FROM query_stats s WHERE configuration_uid = $1 AND query >= $2 AND query < $3 AND sessions >= $4 AND clients >= $5
         AND NOT EXISTS (SELECT 1 FROM blocked_suggestions b WHERE b.configuration_uid = s.configuration_uid AND b.query = s.query)
       ORDER BY clients DESC, searches DESC, query LIMIT $6`,
      [configurationUid, p, p + '\u{10ffff}', min.sessions, min.clients, limit],
    );
    return rows.map((r) => r.query);
  }

  async clickEvidence(configurationUid: string, normalized: string): Promise<Map<string, Evidence>> {
    const { rows } = await this.pool.query<{ target: Buffer; sessions: string; clients: string }>(
      `SELECT target, sessions, clients FROM click_stats WHERE configuration_uid = $1 AND query = $2`,
      [configurationUid, pgText(normalized)],
    );
    return new Map(rows.map((r) => [r.target.toString('utf8'), { sessions: Number(r.sessions), clients: Number(r.clients) }]));
  }

  async blockedSuggestions(configurationUid: string, page?: ListPage<string>): Promise<string[]> {
    const { rows } = await this.pool.query<{ query: string }>(
      `SELECT query FROM blocked_suggestions WHERE configuration_uid = $1 AND ($3::text IS NULL OR query > $3) ORDER BY query LIMIT $2`,
      [configurationUid, page?.limit ?? null, page?.after === undefined ? null : pgText(page.after)]);
    return rows.map((r) => r.query);
  }

  async blockSuggestion(configurationUid: string, normalized: string, at: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO blocked_suggestions (configuration_uid, query, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [configurationUid, pgText(normalized), at],
    );
  }

  async unblockSuggestion(configurationUid: string, normalized: string): Promise<boolean> {
    const r = await this.pool.query(`DELETE FROM blocked_suggestions WHERE configuration_uid = $1 AND query = $2`, [configurationUid, pgText(normalized)]);
    return (r.rowCount ?? 0) > 0;
  }

  insights(configurationUid: string, from: number, to: number, options: InsightsOptions = {}): Promise<Insights> {
    return pgInsights(this.pool, configurationUid, from, to, options);
  }

  async forget(configurationUid: string): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      for (const table of FORGET_TABLES) await c.query(`DELETE FROM ${table} WHERE configuration_uid = $1`, [configurationUid]);
    });
  }

  prune(before: number): Promise<number> {
    return pgPruneEvents(this.pool, before);
  }
}
