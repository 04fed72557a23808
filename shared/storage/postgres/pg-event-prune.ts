import type pg from 'pg';
import { pruneDistinct } from './pg-distinct-days.js';
import { inTransaction } from './pg-transaction.js';

const DAY_MS = 86_400_000;
const RAW_TABLES = ['searches', 'clicks', 'support_forwards', 'generations'];

/**
 * Retention: deletes raw events before `before` and keeps the rollups equal to what remains. Days
 * before `before`'s day lose their rollups; that day (partly pruned, unless `before` is midnight)
 * gets its rollups rebuilt from its remaining raw events. $1 = before, $2 = its day, $3 = the end
 * of that day.
 */
export async function pgPruneEvents(pool: pg.Pool, before: number): Promise<number> {
  const day = Math.floor(before / DAY_MS);
  const params = [before, day, (day + 1) * DAY_MS];
  return inTransaction(pool, async (c) => {
    // Keys whose distinct-day records change: those with raw events about to go, and of those,
    // the ones that keep events on the partly pruned day.
    await c.query(
      `CREATE TEMPORARY TABLE prune_keys ON COMMIT DROP AS
         SELECT DISTINCT 1::smallint AS kind, configuration_uid, session AS key FROM searches WHERE at < $1
         UNION SELECT DISTINCT 2::smallint, configuration_uid, search_id FROM clicks WHERE at < $1`,
      [before],
    );
    await c.query(
      `CREATE TEMPORARY TABLE prune_kept ON COMMIT DROP AS
         SELECT DISTINCT 1::smallint AS kind, configuration_uid, session AS key FROM searches WHERE at >= $1 AND at < $2
         UNION SELECT DISTINCT 2::smallint, configuration_uid, search_id FROM clicks WHERE at >= $1 AND at < $2`,
      [before, params[2]],
    );
    // Searches after the pruned day keep their rollup row, which counted clicks that are going now.
    await c.query(
      `UPDATE query_days t SET clicks = t.clicks - g.n FROM (
         SELECT s.configuration_uid, (s.at / ${DAY_MS})::int AS day, s.normalized AS query, count(*) AS n
         FROM clicks k JOIN searches s ON s.id = k.search_id WHERE k.at < $1 AND s.at >= $2 GROUP BY 1, 2, 3
       ) g WHERE t.configuration_uid = g.configuration_uid AND t.day = g.day AND t.query = g.query`,
      [before, params[2]],
    );
    let removed = 0;
    for (const table of RAW_TABLES) removed += (await c.query(`DELETE FROM ${table} WHERE at < $1`, [before])).rowCount ?? 0;
    for (const table of ['event_days', 'click_days', 'query_days']) await c.query(`DELETE FROM ${table} WHERE day <= $1`, [day]);
    await rebuildDay(c, params);
    await pruneDistinct(c, day);
    return removed;
  });
}

/** The rollups of day $2 from its raw events (all at or after $1 now). */
async function rebuildDay(c: pg.PoolClient, params: number[]) {
  await c.query(
    `INSERT INTO event_days (configuration_uid, day, searches, no_results, support_forwards, summaries, chats, unanswered)
     SELECT configuration_uid, $2::int, sum(s), sum(e), sum(f), sum(su), sum(ch), sum(un) FROM (
       SELECT configuration_uid, 1 AS s, (result_count = 0)::int AS e, 0 AS f, 0 AS su, 0 AS ch, 0 AS un
       FROM searches WHERE at >= $1 AND at < $3
       UNION ALL SELECT configuration_uid, 0, 0, 1, 0, 0, 0 FROM support_forwards WHERE at >= $1 AND at < $3
       UNION ALL SELECT configuration_uid, 0, 0, 0, (kind = 'summary')::int, (kind = 'chat')::int, (status = 'no-relevant-results')::int
       FROM generations WHERE at >= $1 AND at < $3
     ) x GROUP BY configuration_uid`,
    params,
  );
  await c.query(
    `INSERT INTO click_days (configuration_uid, day, position, clicks)
     SELECT configuration_uid, $2::int, position, count(*) FROM clicks WHERE at >= $1 AND at < $3 GROUP BY configuration_uid, position`,
    params,
  );
  await c.query(
    `INSERT INTO query_days (configuration_uid, day, query, searches, no_results, clicks)
     SELECT configuration_uid, $2::int, normalized, count(*), count(*) FILTER (WHERE result_count = 0),
       coalesce(sum((SELECT count(*) FROM clicks k WHERE k.search_id = s.id)), 0)
     FROM searches s WHERE at >= $1 AND at < $3 GROUP BY configuration_uid, normalized`,
    params,
  );
}
