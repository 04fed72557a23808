import type pg from 'pg';
import type { Device, Insights, InsightsOptions } from '../ports/event-store.js';
import { dayIndex, HOUR_MS, localDaysAround, type LocalDay } from '../local-days.js';
import { countDistinctSql, DISTINCT_CLICKED_SEARCHES, DISTINCT_SESSION_HOURS, DISTINCT_SESSIONS } from './pg-distinct-days.js';
import { topQueries } from './pg-top-queries.js';

const DAY_MS = 86_400_000;

/**
 * Parameters shared by the insights queries: $1 configuration, [$2, $3) the whole buckets (days or
 * hours, by `unit`) read from rollups, [$4, $5) and [$6, $7) the partial buckets at either end read
 * from raw events.
 */
function split(configurationUid: string, from: number, to: number, unit: number): unknown[] {
  const first = Math.ceil(from / unit);
  const end = Math.floor(to / unit);
  if (first >= end) return [configurationUid, 0, 0, from, to, 0, 0];
  return [configurationUid, first, end, from, first * unit, end * unit, to];
}

const EDGES = `((at >= $4 AND at < $5) OR (at >= $6 AND at < $7))`;
const WHOLE_DAYS = `configuration_uid = $1 AND day >= $2 AND day < $3`;
const WHOLE_HOURS = `configuration_uid = $1 AND hour >= $2 AND hour < $3`;
const HOUR = `(at / ${HOUR_MS})::int`;

/** Every counter by hour and device (hour parameters). */
const COUNTERS = `
  SELECT hour, device, sum(searches) AS searches, sum(no_results) AS "noResults", sum(support_forwards) AS "supportForwards",
         sum(summaries) AS summaries, sum(summaries_unanswered) AS "summariesUnanswered", sum(chats) AS chats,
         sum(chats_unanswered) AS "chatsUnanswered" FROM (
    SELECT hour, device, searches, no_results, support_forwards, summaries, summaries_unanswered, chats, chats_unanswered
    FROM event_hours WHERE ${WHOLE_HOURS}
    UNION ALL
    SELECT ${HOUR}, device, 1, (result_count = 0)::int, 0, 0, 0, 0, 0 FROM searches WHERE configuration_uid = $1 AND ${EDGES}
    UNION ALL
    SELECT ${HOUR}, device, 0, 0, 1, 0, 0, 0, 0 FROM support_forwards WHERE configuration_uid = $1 AND ${EDGES}
    UNION ALL
    SELECT ${HOUR}, device, 0, 0, 0, (kind = 'summary')::int, (kind = 'summary' AND status = 'no-relevant-results')::int,
           (kind = 'chat')::int, (kind = 'chat' AND status = 'no-relevant-results')::int
    FROM generations WHERE configuration_uid = $1 AND ${EDGES}
  ) x GROUP BY hour, device`;

const CLICK_HOURS = `
  SELECT hour, position, sum(clicks) AS clicks FROM (
    SELECT hour, position, clicks FROM click_hours WHERE ${WHOLE_HOURS}
    UNION ALL
    SELECT ${HOUR}, position, 1 FROM clicks WHERE configuration_uid = $1 AND ${EDGES}
  ) x GROUP BY hour, position HAVING sum(clicks) > 0`;

const SUPPORT_URLS = `
  SELECT url, count(*)::int AS forwards FROM support_forwards WHERE configuration_uid = $1 AND at >= $2 AND at < $3
  GROUP BY url ORDER BY forwards DESC, url COLLATE "C" LIMIT 20`;

const SESSIONS = countDistinctSql(DISTINCT_SESSIONS, `SELECT DISTINCT session FROM searches WHERE configuration_uid = $1 AND ${EDGES}`);
const CLICKED = countDistinctSql(DISTINCT_CLICKED_SEARCHES, `SELECT DISTINCT search_id FROM clicks WHERE configuration_uid = $1 AND ${EDGES}`);
const DAY_SESSIONS = countDistinctSql(DISTINCT_SESSION_HOURS, `SELECT DISTINCT session FROM searches WHERE configuration_uid = $1 AND ${EDGES}`);
/** Sessions per window of whole hours [a, b) ($2, $3: arrays), from the hourly pairs alone. */
const WINDOW_SESSIONS = `
  SELECT (SELECT coalesce(sum(n), 0) FROM distinct_pairs
          WHERE kind = ${DISTINCT_SESSION_HOURS} AND configuration_uid = $1 AND day >= w.a AND day < w.b AND prev < w.a) AS n
  FROM unnest($2::int[], $3::int[]) WITH ORDINALITY AS w(a, b, i) ORDER BY i`;

/** Distinct sessions of each local day: whole-hour days from the pairs, days with partial hours with their raw edges too. */
async function sessionsByDay(pool: pg.Pool, configurationUid: string, days: LocalDay[]): Promise<number[]> {
  const windows = days.map((d) => split(configurationUid, d.start, d.end, HOUR_MS));
  const { rows } = await pool.query<{ n: number }>(WINDOW_SESSIONS, [configurationUid, windows.map((w) => w[1]), windows.map((w) => w[2])]);
  const out = rows.map((r) => r.n);
  await Promise.all(windows.map(async (w, i) => {
    if (w[3] === w[4] && w[5] === w[6]) return;
    out[i] = (await pool.query<{ n: number }>(DAY_SESSIONS, w)).rows[0].n;
  }));
  return out;
}

/** The statistics of [from, to), equal to aggregating the raw events of that range (see PgEventStore). */
export async function pgInsights(
  pool: pg.Pool, configurationUid: string, from: number, to: number, options: InsightsOptions = {},
): Promise<Insights> {
  const limit = options.limit ?? 20;
  const byDays = split(configurationUid, from, to, DAY_MS);
  const byHours = split(configurationUid, from, to, HOUR_MS);
  // Independent reads: run them side by side on several pooled connections.
  const [counters, clickHours, sessions, clicked, top, noResults, urls] = await Promise.all([
    pool.query<{
      hour: number; device: Device; searches: number; noResults: number; supportForwards: number;
      summaries: number; summariesUnanswered: number; chats: number; chatsUnanswered: number;
    }>(COUNTERS, byHours),
    pool.query<{ hour: number; position: number; clicks: number }>(CLICK_HOURS, byHours),
    pool.query<{ n: number }>(SESSIONS, byDays),
    pool.query<{ n: number }>(CLICKED, byDays),
    topQueries<{ query: string; searches: number; clicks: number }>(pool, byDays, {
      column: 'searches', rawFilter: 'true', limit,
      extra: { name: 'clicks', column: 'clicks', raw: '(SELECT count(*) FROM clicks k WHERE k.search_id = s.id)' },
    }, EDGES, WHOLE_DAYS),
    topQueries<{ query: string; searches: number }>(pool, byDays, { column: 'no_results', rawFilter: 'result_count = 0', limit }, EDGES, WHOLE_DAYS),
    pool.query<{ url: string; forwards: number }>(SUPPORT_URLS, [configurationUid, from, to]),
  ]);
  const searchHours = counters.rows.filter((r) => r.searches > 0).map((r) => r.hour);
  const days = searchHours.length ? localDaysAround(from, to, options.timeZone ?? 'UTC',
    searchHours.reduce((a, b) => Math.min(a, b)) * HOUR_MS, searchHours.reduce((a, b) => Math.max(a, b)) * HOUR_MS) : [];
  const dayOfHour = (hour: number) => dayIndex(days, Math.max(from, hour * HOUR_MS));
  const perDay = days.map((d) => ({ day: d.day, start: d.start, end: d.end, searches: 0, clicks: 0, noResults: 0 }));
  const devices = new Map<Device, number>();
  const t = { searches: 0, noResults: 0, supportForwards: 0, summaries: 0, summariesUnanswered: 0, chats: 0, chatsUnanswered: 0 };
  for (const r of counters.rows) {
    for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += r[k];
    if (r.searches > 0) {
      devices.set(r.device, (devices.get(r.device) ?? 0) + r.searches);
      const d = perDay[dayOfHour(r.hour)];
      d.searches += r.searches;
      d.noResults += r.noResults;
    }
  }
  const clicksByPosition = new Map<number, number>();
  let clicks = 0;
  for (const r of clickHours.rows) {
    clicks += r.clicks;
    const d = perDay[dayOfHour(r.hour)];
    if (d) d.clicks += r.clicks;
    clicksByPosition.set(r.position, (clicksByPosition.get(r.position) ?? 0) + r.clicks);
  }
  const searchesWithClick = clicked.rows[0].n;
  const searchDays = perDay.filter((d) => d.searches > 0);
  const daySessions = await sessionsByDay(pool, configurationUid, searchDays);
  return {
    searches: t.searches,
    sessions: sessions.rows[0].n,
    clicks,
    searchesWithClick,
    ctr: t.searches ? searchesWithClick / t.searches : 0,
    noResultSearches: t.noResults,
    topQueries: top,
    noResultQueries: noResults,
    clickPositions: [...clicksByPosition].sort((a, b) => a[0] - b[0]).map(([position, n]) => ({ position, clicks: n })),
    supportForwards: t.supportForwards,
    summaries: t.summaries,
    chats: t.chats,
    unansweredGenerations: t.summariesUnanswered + t.chatsUnanswered,
    summariesUnanswered: t.summariesUnanswered,
    chatsUnanswered: t.chatsUnanswered,
    byDay: searchDays.map((d, i) => ({ day: d.day, searches: d.searches, clicks: d.clicks, noResults: d.noResults, sessions: daySessions[i] })),
    devices: [...devices].map(([device, searches]) => ({ device, searches }))
      .sort((a, b) => b.searches - a.searches || (a.device < b.device ? -1 : 1)),
    supportForwardUrls: urls.rows,
  };
}
