import type pg from 'pg';
import type { Insights } from '../ports/event-store.js';
import { countDistinctSql, DISTINCT_CLICKED_SEARCHES, DISTINCT_SESSIONS } from './pg-distinct-days.js';
import { topQueries } from './pg-top-queries.js';

const DAY_MS = 86_400_000;

/**
 * Parameters shared by every insights query: $1 configuration, [$2, $3) the whole days read from
 * rollups, [$4, $5) and [$6, $7) the partial days at either end read from raw events.
 */
function split(configurationUid: string, from: number, to: number): unknown[] {
  const first = Math.ceil(from / DAY_MS);
  const end = Math.floor(to / DAY_MS);
  if (first >= end) return [configurationUid, 0, 0, from, to, 0, 0];
  return [configurationUid, first, end, from, first * DAY_MS, end * DAY_MS, to];
}

const EDGES = `((at >= $4 AND at < $5) OR (at >= $6 AND at < $7))`;
const WHOLE_DAYS = `configuration_uid = $1 AND day >= $2 AND day < $3`;
const DAY = `(at / ${DAY_MS})::int`;

const SEARCH_DAYS = `
  SELECT day, sum(searches) AS searches, sum(no_results) AS "noResults" FROM (
    SELECT day, searches, no_results FROM event_days WHERE ${WHOLE_DAYS}
    UNION ALL
    SELECT ${DAY}, 1, (result_count = 0)::int FROM searches WHERE configuration_uid = $1 AND ${EDGES}
  ) x GROUP BY day HAVING sum(searches) > 0 ORDER BY day`;

const CLICK_DAYS = `
  SELECT day, position, sum(clicks) AS clicks FROM (
    SELECT day, position, clicks FROM click_days WHERE ${WHOLE_DAYS}
    UNION ALL
    SELECT ${DAY}, position, 1 FROM clicks WHERE configuration_uid = $1 AND ${EDGES}
  ) x GROUP BY day, position HAVING sum(clicks) > 0`;

const OTHERS = `
  SELECT (SELECT coalesce(sum(support_forwards), 0) FROM event_days WHERE ${WHOLE_DAYS})
           + (SELECT count(*) FROM support_forwards WHERE configuration_uid = $1 AND ${EDGES}) AS "supportForwards",
         d.summaries + g.summaries AS summaries, d.chats + g.chats AS chats, d.unanswered + g.unanswered AS unanswered
  FROM (SELECT coalesce(sum(summaries), 0) AS summaries, coalesce(sum(chats), 0) AS chats, coalesce(sum(unanswered), 0) AS unanswered
        FROM event_days WHERE ${WHOLE_DAYS}) d,
       (SELECT count(*) FILTER (WHERE kind = 'summary') AS summaries, count(*) FILTER (WHERE kind = 'chat') AS chats,
               count(*) FILTER (WHERE status = 'no-relevant-results') AS unanswered
        FROM generations WHERE configuration_uid = $1 AND ${EDGES}) g`;

const SESSIONS = countDistinctSql(DISTINCT_SESSIONS, `SELECT DISTINCT session FROM searches WHERE configuration_uid = $1 AND ${EDGES}`);
const CLICKED = countDistinctSql(DISTINCT_CLICKED_SEARCHES, `SELECT DISTINCT search_id FROM clicks WHERE configuration_uid = $1 AND ${EDGES}`);

/** The statistics of [from, to), equal to aggregating the raw events of that range (see PgEventStore). */
export async function pgInsights(pool: pg.Pool, configurationUid: string, from: number, to: number): Promise<Insights> {
  const params = split(configurationUid, from, to);
  // Independent reads: run them side by side on several pooled connections.
  const [days, clickDays, others, sessions, clicked, top, noResults] = await Promise.all([
    pool.query<{ day: number; searches: number; noResults: number }>(SEARCH_DAYS, params),
    pool.query<{ day: number; position: number; clicks: number }>(CLICK_DAYS, params),
    pool.query<{ supportForwards: number; summaries: number; chats: number; unanswered: number }>(OTHERS, params),
    pool.query<{ n: number }>(SESSIONS, params),
    pool.query<{ n: number }>(CLICKED, params),
    topQueries<{ query: string; searches: number; clicks: number }>(pool, params, {
      column: 'searches', rawFilter: 'true', extra: { name: 'clicks', column: 'clicks', raw: '(SELECT count(*) FROM clicks k WHERE k.search_id = s.id)' },
    }, EDGES, WHOLE_DAYS),
    topQueries<{ query: string; searches: number }>(pool, params, { column: 'no_results', rawFilter: 'result_count = 0' }, EDGES, WHOLE_DAYS),
  ]);
  const clicksByDay = new Map<number, number>();
  const clicksByPosition = new Map<number, number>();
  let clicks = 0;
  for (const r of clickDays.rows) {
    clicks += r.clicks;
    clicksByDay.set(r.day, (clicksByDay.get(r.day) ?? 0) + r.clicks);
    clicksByPosition.set(r.position, (clicksByPosition.get(r.position) ?? 0) + r.clicks);
  }
  const searches = days.rows.reduce((n, d) => n + d.searches, 0);
  const searchesWithClick = clicked.rows[0].n;
  const o = others.rows[0];
  return {
    searches,
    sessions: sessions.rows[0].n,
    clicks,
    searchesWithClick,
    ctr: searches ? searchesWithClick / searches : 0,
    noResultSearches: days.rows.reduce((n, d) => n + d.noResults, 0),
    topQueries: top,
    noResultQueries: noResults,
    clickPositions: [...clicksByPosition].sort((a, b) => a[0] - b[0]).map(([position, n]) => ({ position, clicks: n })),
    supportForwards: o.supportForwards,
    summaries: o.summaries,
    chats: o.chats,
    unansweredGenerations: o.unanswered,
    byDay: days.rows.map((d) => ({
      day: new Date(d.day * DAY_MS).toISOString().slice(0, 10), searches: d.searches, clicks: clicksByDay.get(d.day) ?? 0, noResults: d.noResults,
    })),
  };
}
