import type pg from 'pg';

/** Head lengths tried (in multiples of the list's length) before aggregating every query of the range. */
const HEADS = [5, 50];

export interface TopSpec {
  /** The query_days counter ranked on. */
  column: 'searches' | 'no_results';
  /** Which raw searches of the partial days count. */
  rawFilter: string;
  /** An extra output column: its query_days column, and its value per raw search `s`. */
  extra?: { name: string; column: string; raw: string };
  /** How many queries to rank. */
  limit: number;
}

/**
 * The top queries of a range, exactly, without adding up every (day, query) row of it (millions
 * over 90 days). Each whole day, and the raw partial days together, form a list; its head is its
 * `head` most frequent queries (an index range per day). A query in no head has at most each
 * list's smallest head count there, so its total is at most their sum, the bound. Totals are then
 * added up for the head queries only; if the last of the top `limit` beats the bound, no other
 * query can enter. Otherwise a longer head is tried, and at last every query is aggregated.
 * Parameters as pgInsights: $1 configuration, [$2, $3) whole days, $4..$7 partial-day edges.
 */
export async function topQueries<T extends pg.QueryResultRow>(
  pool: pg.Pool, params: unknown[], spec: TopSpec, edges: string, wholeDays: string,
): Promise<T[]> {
  const { column, rawFilter, extra, limit } = spec;
  const raw = `FROM searches s WHERE s.configuration_uid = $1 AND ${edges} AND ${rawFilter}`;
  const ranked = (candidatesOnly: boolean) => `
    SELECT query, sum(n) AS searches${extra ? `, sum(extra) AS "${extra.name}"` : ''} FROM (
      SELECT query, ${column} AS n${extra ? `, ${extra.column} AS extra` : ''} FROM query_days
      WHERE ${wholeDays} AND ${column} > 0 ${candidatesOnly ? 'AND query = ANY($8::text[])' : ''}
      UNION ALL
      SELECT s.normalized, 1${extra ? `, ${extra.raw}` : ''}
      ${candidatesOnly ? raw.replace('FROM searches s', 'FROM searches s JOIN unnest($8::text[]) AS c(q) ON c.q = s.normalized') : raw}
    ) x GROUP BY query HAVING sum(n) > 0 ORDER BY 2 DESC, query COLLATE "C" LIMIT ${limit}`;

  for (const head of HEADS.map((h) => Math.max(100, h * limit))) {
    const heads = await pool.query<{ bound: number; candidates: string[] }>(
      `WITH days AS (
         SELECT d AS day, h.query, h.n FROM generate_series($2::int, $3::int - 1) AS d
         CROSS JOIN LATERAL (SELECT query, ${column} AS n FROM query_days
                             WHERE configuration_uid = $1 AND day = d AND ${column} > 0 ORDER BY ${column} DESC LIMIT $8) h
       ), edge AS (
         SELECT -1 AS day, s.normalized AS query, count(*) AS n ${raw} GROUP BY s.normalized ORDER BY n DESC LIMIT $8
       ), heads AS (SELECT * FROM days UNION ALL SELECT * FROM edge)
       SELECT (SELECT coalesce(sum(CASE WHEN c < $8 THEN 0 ELSE m END), 0) FROM (SELECT count(*) AS c, min(n) AS m FROM heads GROUP BY day) x) AS bound,
              ARRAY(SELECT DISTINCT query FROM heads) AS candidates`,
      [...params, head],
    );
    const { bound, candidates } = heads.rows[0];
    const { rows } = await pool.query<T & { searches: number }>(ranked(true), [...params, candidates]);
    if (bound === 0 || (rows.length === limit && rows[limit - 1].searches > bound)) return rows;
  }
  return (await pool.query<T>(ranked(false), params)).rows;
}
