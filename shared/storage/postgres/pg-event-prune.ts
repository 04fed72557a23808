import type pg from 'pg';
import { HOUR_MS } from '../local-days.js';
import { DISTINCT_CLICKED_SEARCHES, DISTINCT_SESSION_HOURS, DISTINCT_SESSIONS, pruneDistinct } from './pg-distinct-days.js';
import { inTransaction } from './pg-transaction.js';

const DAY_MS = 86_400_000;
const RAW_TABLES = ['searches', 'clicks', 'support_forwards', 'generations'];

/**
 * Retention: deletes raw events before `before` and keeps the rollups equal to what remains. Days
 * (hours, for the hourly rollups) before `before`'s lose their rollups; the one `before` falls in
 * (partly pruned, unless `before` is on its boundary) gets its rollups rebuilt from its remaining
 * raw events.
 */
export async function pgPruneEvents(pool: pg.Pool, before: number): Promise<number> {
  const day = Math.floor(before / DAY_MS);
  const hour = Math.floor(before / HOUR_MS);
  const dayEnd = (day + 1) * DAY_MS;
  const hourEnd = (hour + 1) * HOUR_MS;
  // Retention over a large history may rightly take longer than the database timeout of requests.
  return inTransaction(pool, async (c) => {
    // Keys whose distinct-day records change: those with raw events about to go, and of those,
    // the ones that keep events on the partly pruned day (hour).
    await c.query(
      `CREATE TEMPORARY TABLE prune_keys ON COMMIT DROP AS
         SELECT DISTINCT ${DISTINCT_SESSIONS}::smallint AS kind, configuration_uid, session AS key, $2::int AS cut FROM searches WHERE at < $1
         UNION SELECT DISTINCT ${DISTINCT_CLICKED_SEARCHES}::smallint, configuration_uid, search_id, $2::int FROM clicks WHERE at < $1
         UNION SELECT DISTINCT ${DISTINCT_SESSION_HOURS}::smallint, configuration_uid, session, $3::int FROM searches WHERE at < $1`,
      [before, day, hour],
    );
    await c.query(
      `CREATE TEMPORARY TABLE prune_kept ON COMMIT DROP AS
         SELECT DISTINCT ${DISTINCT_SESSIONS}::smallint AS kind, configuration_uid, session AS key FROM searches WHERE at >= $1 AND at < $2
         UNION SELECT DISTINCT ${DISTINCT_CLICKED_SEARCHES}::smallint, configuration_uid, search_id FROM clicks WHERE at >= $1 AND at < $2
         UNION SELECT DISTINCT ${DISTINCT_SESSION_HOURS}::smallint, configuration_uid, session FROM searches WHERE at >= $1 AND at < $3`,
      [before, dayEnd, hourEnd],
    );
    // Searches after the pruned day keep their rollup row, which counted clicks that are going now.
    await c.query(
      `UPDATE query_days t SET clicks = t.clicks - g.n FROM (
         SELECT s.configuration_uid, (s.at / ${DAY_MS})::int AS day, s.normalized AS query, count(*) AS n
         FROM clicks k JOIN searches s ON s.id = k.search_id WHERE k.at < $1 AND s.at >= $2 GROUP BY 1, 2, 3
       ) g WHERE t.configuration_uid = g.configuration_uid AND t.day = g.day AND t.query = g.query`,
      [before, dayEnd],
    );
    let removed = 0;
    for (const table of RAW_TABLES) removed += (await c.query(`DELETE FROM ${table} WHERE at < $1`, [before])).rowCount ?? 0;
    await c.query(`DELETE FROM query_days WHERE day <= $1`, [day]);
    for (const table of ['event_hours', 'click_hours']) await c.query(`DELETE FROM ${table} WHERE hour <= $1`, [hour]);
    await rebuild(c, before, day, dayEnd, hour, hourEnd);
    await pruneDistinct(c);
    await pruneLearnt(c, before);
    return removed;
  }, { unbounded: true });
}

/** What was learnt from queries and clicks nobody repeated since `before`: its sessions and addresses too. */
async function pruneLearnt(c: pg.PoolClient, before: number) {
  const queries = await c.query<{ c: string; q: string }>(
    `DELETE FROM query_stats WHERE last_at < $1 RETURNING configuration_uid AS c, query AS q`, [before]);
  for (const table of ['query_sessions', 'query_clients']) {
    await c.query(
      `DELETE FROM ${table} t USING unnest($1::text[], $2::text[]) AS g(c, q) WHERE t.configuration_uid = g.c AND t.query = g.q`,
      [queries.rows.map((r) => r.c), queries.rows.map((r) => r.q)],
    );
  }
  const clicks = await c.query<{ c: string; q: string; t: Buffer }>(
    `DELETE FROM click_stats WHERE last_at < $1 RETURNING configuration_uid AS c, query AS q, target AS t`, [before]);
  for (const table of ['click_sessions', 'click_clients']) {
    await c.query(
      `DELETE FROM ${table} x USING unnest($1::text[], $2::text[], $3::bytea[]) AS g(c, q, t)
       WHERE x.configuration_uid = g.c AND x.query = g.q AND x.target = g.t`,
      [clicks.rows.map((r) => r.c), clicks.rows.map((r) => r.q), clicks.rows.map((r) => r.t)],
    );
  }
}

/** The rollups of day `day` and hour `hour` from their raw events (all at or after `before` now). */
async function rebuild(c: pg.PoolClient, before: number, day: number, dayEnd: number, hour: number, hourEnd: number) {
  await c.query(
    `INSERT INTO event_hours (configuration_uid, hour, device, searches, no_results, support_forwards, summaries, summaries_unanswered, chats, chats_unanswered)
     SELECT configuration_uid, $2::int, device, sum(s), sum(e), sum(f), sum(su), sum(suu), sum(ch), sum(chu) FROM (
       SELECT configuration_uid, device, 1 AS s, (result_count = 0)::int AS e, 0 AS f, 0 AS su, 0 AS suu, 0 AS ch, 0 AS chu
       FROM searches WHERE at >= $1 AND at < $3
       UNION ALL SELECT configuration_uid, device, 0, 0, 1, 0, 0, 0, 0 FROM support_forwards WHERE at >= $1 AND at < $3
       UNION ALL SELECT configuration_uid, device, 0, 0, 0, (kind = 'summary')::int, (kind = 'summary' AND status = 'no-relevant-results')::int,
         (kind = 'chat')::int, (kind = 'chat' AND status = 'no-relevant-results')::int
       FROM generations WHERE at >= $1 AND at < $3
     ) x GROUP BY configuration_uid, device`,
    [before, hour, hourEnd],
  );
  await c.query(
    `INSERT INTO click_hours (configuration_uid, hour, position, clicks)
     SELECT configuration_uid, $2::int, position, count(*) FROM clicks WHERE at >= $1 AND at < $3 GROUP BY configuration_uid, position`,
    [before, hour, hourEnd],
  );
  await c.query(
    `INSERT INTO query_days (configuration_uid, day, query, searches, no_results, clicks)
     SELECT configuration_uid, $2::int, normalized, count(*), count(*) FILTER (WHERE result_count = 0),
       coalesce(sum((SELECT count(*) FROM clicks k WHERE k.search_id = s.id)), 0)
     FROM searches s WHERE at >= $1 AND at < $3 GROUP BY configuration_uid, normalized`,
    [before, day, dayEnd],
  );
}
