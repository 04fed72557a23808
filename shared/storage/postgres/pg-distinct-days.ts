import type pg from 'pg';

/**
 * Exact counts of distinct keys (sessions, clicked searches) seen in any range of whole days,
 * without scanning the keys. For each key, `distinct_keys.days` lists the days it was seen; for
 * each day, `distinct_pairs` counts the keys seen that day by the previous day each was seen (-1:
 * never). A key seen in [a, b) is counted exactly once: on its first day in the range, the only
 * one whose previous day is before a. So the count is a sum over at most (b - a) x (days kept) rows.
 *
 * Invariant: a key's days are exactly the days of its raw events (prune and forget keep it so).
 * The key's row lock (taken by the upsert) serialises concurrent writers of one key.
 */
export const DISTINCT_SESSIONS = 1;
export const DISTINCT_CLICKED_SEARCHES = 2;
/**
 * Sessions by UTC hour (the "days" of this kind are hours), for sessions per local day. A pair whose
 * previous hour is more than SESSION_HOURS_WINDOW back is stored with prev -1, which keeps the pairs
 * few (a returning visitor adds no row per earlier visit) and the count exact for any window of up
 * to that many hours, which holds every local day.
 */
export const DISTINCT_SESSION_HOURS = 3;
const SESSION_HOURS_WINDOW = 48;

/** The previous day of a key's day `d`, clipped for DISTINCT_SESSION_HOURS; `kind` and `partition` are SQL. */
function previous(kind: string, partition: string): string {
  const lag = `lag(d, 1, -1) OVER (PARTITION BY ${partition} ORDER BY d)`;
  return `CASE WHEN ${kind} = ${DISTINCT_SESSION_HOURS} AND ${lag} < d - ${SESSION_HOURS_WINDOW} THEN -1 ELSE ${lag} END`;
}

export interface DistinctSighting {
  configurationUid: string;
  key: string;
  day: number;
}

/** Records sightings; a key seen again on a day it already has changes nothing (but takes its lock). */
export async function recordDistinct(c: pg.PoolClient, kind: number, sightings: DistinctSighting[]): Promise<void> {
  if (sightings.length === 0) return;
  await c.query(
    `WITH up AS (
       INSERT INTO distinct_keys AS t (kind, configuration_uid, key, days, added)
       SELECT $1::smallint, c, k, array_agg(DISTINCT d ORDER BY d), array_agg(DISTINCT d ORDER BY d)
       FROM unnest($2::text[], $3::text[], $4::int[]) AS u(c, k, d) GROUP BY c, k ORDER BY c COLLATE "C", k COLLATE "C"
       ON CONFLICT (kind, configuration_uid, key) DO UPDATE
         SET days = ARRAY(SELECT DISTINCT x FROM unnest(t.days || excluded.days) AS x ORDER BY x),
             added = ARRAY(SELECT x FROM unnest(excluded.days) AS x WHERE x <> ALL (t.days) ORDER BY x)
         WHERE NOT (excluded.days <@ t.days)
       RETURNING configuration_uid, key, days, added
     ), pairs AS (
       SELECT configuration_uid AS c, d, ${previous('$1', 'configuration_uid, key')} AS prev, 1 AS n
       FROM up, unnest(up.days) AS d
       UNION ALL
       SELECT configuration_uid, d, ${previous('$1', 'configuration_uid, key')}, -1
       FROM up, unnest(up.days) AS d WHERE d <> ALL (up.added)
     )
     INSERT INTO distinct_pairs AS p (kind, configuration_uid, day, prev, n)
     SELECT $1, c, d, prev, sum(n) FROM pairs GROUP BY c, d, prev HAVING sum(n) <> 0 ORDER BY c, d, prev
     ON CONFLICT (kind, configuration_uid, day, prev) DO UPDATE SET n = p.n + excluded.n`,
    [kind, sightings.map((s) => s.configurationUid), sightings.map((s) => s.key), sightings.map((s) => s.day)],
  );
}

/**
 * SQL counting the distinct keys of a configuration ($1) seen on whole days [$2, $3) or in the raw
 * events that `edgeKeys` selects (the partial days at the ends of a range): the pairs give the
 * first part, and edge keys add those not seen on the whole days. Each edge key is looked up by
 * its primary key in a scalar subquery: written as NOT EXISTS, the planner may turn it into an
 * anti-join that scans every key of the configuration per edge key (seconds, with stale statistics).
 */
export function countDistinctSql(kind: number, edgeKeys: string): string {
  return `
    SELECT (SELECT coalesce(sum(n), 0) FROM distinct_pairs
            WHERE kind = ${kind} AND configuration_uid = $1 AND day >= $2 AND day < $3 AND prev < $2)
         + (SELECT count(*) FROM (${edgeKeys}) AS e(key)
            WHERE NOT coalesce((SELECT EXISTS (SELECT 1 FROM unnest(k.days) AS d WHERE d >= $2 AND d < $3)
              FROM distinct_keys k WHERE k.kind = ${kind} AND k.configuration_uid = $1 AND k.key = e.key), false)) AS n`;
}

/** Adds (sign 1) or removes (-1) the pairs of the keys listed in the temporary table prune_keys. */
async function applyPairs(c: pg.PoolClient, sign: 1 | -1): Promise<void> {
  await c.query(
    `INSERT INTO distinct_pairs AS p (kind, configuration_uid, day, prev, n)
     SELECT kind, configuration_uid, d, prev, $1::bigint * count(*) FROM (
       SELECT k.kind, k.configuration_uid, d, ${previous('k.kind', 'k.kind, k.configuration_uid, k.key')} AS prev
       FROM distinct_keys k JOIN prune_keys USING (kind, configuration_uid, key), unnest(k.days) AS d
     ) x GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
     ON CONFLICT (kind, configuration_uid, day, prev) DO UPDATE SET n = p.n + excluded.n`,
    [sign],
  );
}

/**
 * After raw events before `before` are deleted: the keys that had such events (temporary table
 * prune_keys, filled by the caller before deleting, with `cut` = the day, or hour, of `before`)
 * lose the days before `cut`, and that one too unless it still has raw events of theirs
 * (temporary table prune_kept: keys with events in [before, end of `cut`)).
 */
export async function pruneDistinct(c: pg.PoolClient): Promise<void> {
  await applyPairs(c, -1);
  await c.query(
    `UPDATE distinct_keys k SET days = ARRAY(
       SELECT x FROM unnest(k.days) AS x
       WHERE x > c.cut OR (x = c.cut AND EXISTS (
         SELECT 1 FROM prune_kept p WHERE p.kind = k.kind AND p.configuration_uid = k.configuration_uid AND p.key = k.key))
       ORDER BY x)
     FROM prune_keys c WHERE k.kind = c.kind AND k.configuration_uid = c.configuration_uid AND k.key = c.key`,
  );
  await applyPairs(c, 1);
  await c.query(
    `DELETE FROM distinct_keys k USING prune_keys c
     WHERE k.kind = c.kind AND k.configuration_uid = c.configuration_uid AND k.key = c.key AND cardinality(k.days) = 0`,
  );
  await c.query(`DELETE FROM distinct_pairs WHERE n = 0`);
}
