// Insights over PostgreSQL at scale: fills 10^7 events over 90 days into a fresh schema (with
// generate_series, then the rollups built in bulk as the event store would have kept them), and
// times insights() for 7/30/90-day ranges against a scan of the raw events, checking they agree.
// Also times recording through the port into the filled schema (the rollup upkeep).
//   npx tsx scripts/bench-insights.ts -- [--url postgres://...] [--events 10000000] [--runs 5] [--keep] [--schema name]
// --keep leaves the filled schema behind; --schema names it, and reuses it when it is already filled.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { SearchEvent } from '../shared/storage/ports/event-store.js';
import { createPostgresStorage } from '../shared/storage/postgres/create-postgres-storage.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.QUARRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    events: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    schema: { type: 'string' },
  },
});
const TOTAL = Number(values.events);
const RUNS = Number(values.runs);
const DAY = 86_400_000;
const DAYS = 90;
const END = Math.floor(Date.now() / DAY) * DAY;
const START = END - DAYS * DAY;
const CFG = 'bench';
// 80% searches, 16% clicks (one on every fifth search), 2% support forwards, 2% generations.
const SEARCHES = Math.round(TOTAL * 0.8);
const OTHERS = Math.round(TOTAL * 0.02);
const schema = values.schema ?? `bench_insights_${process.pid}`;

const log = (msg: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const timed = async <T>(label: string, fn: () => Promise<T>) => {
  const t0 = performance.now();
  const out = await fn();
  log(`${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return out;
};

// Sessions: most people search ~4 times in one visit; every fifth search is a returning user's.
const SESSION = `CASE WHEN i % 5 = 0 THEN 'u' || (i * 7919 % 50000) ELSE 's' || (i / 4) END`;
const AT = `(${START}::bigint + (i::float8 * ${DAYS * DAY} / ${SEARCHES})::bigint)`;

const FILL = [
  // Queries: a heavy head and a long tail of ~50,000 distinct ones.
  `INSERT INTO searches (id, at, configuration_uid, variant, session, device, query, normalized, result_count)
   SELECT 'b' || i, ${AT}, '${CFG}', 'ui', ${SESSION}, 'desktop', q, q, CASE WHEN i % 13 = 0 THEN 0 ELSE 1 + i % 9 END
   FROM (SELECT i, 'q' || floor(power(random(), 3) * 50000)::int AS q FROM generate_series(1::bigint, ${SEARCHES}) AS i) g`,
  `INSERT INTO clicks (search_id, session, position, at, configuration_uid, target)
   SELECT 'b' || i, ${SESSION}, 1 + i % 7, ${AT} + 30000, '${CFG}', convert_to('idx', 'UTF8') || '\\x00'::bytea || convert_to('doc' || i % 9000, 'UTF8')
   FROM generate_series(1::bigint, ${SEARCHES}) AS i WHERE i % 5 = 1`,
  `INSERT INTO support_forwards (at, configuration_uid, url, session, device)
   SELECT ${START}::bigint + (random() * ${DAYS * DAY})::bigint, '${CFG}', 'https://support/x', 's' || i, 'mobile' FROM generate_series(1, ${OTHERS}) AS i`,
  `INSERT INTO generations (id, at, configuration_uid, kind, session, device, query, status, latency_ms, refs)
   SELECT 'g' || i, ${START}::bigint + (random() * ${DAYS * DAY})::bigint, '${CFG}', CASE WHEN i % 2 = 0 THEN 'summary' ELSE 'chat' END,
     's' || i, 'desktop', 'q', CASE WHEN i % 4 = 0 THEN 'no-relevant-results' ELSE 'success' END, 300, '[]'
   FROM generate_series(1, ${OTHERS}) AS i`,
];

/** The rollups PgEventStore keeps on insert, built here in bulk from the raw events. */
const ROLLUPS = [
  `INSERT INTO event_days (configuration_uid, day, searches, no_results, support_forwards, summaries, chats, unanswered)
   SELECT configuration_uid, day, sum(s), sum(e), sum(f), sum(su), sum(ch), sum(un) FROM (
     SELECT configuration_uid, (at / ${DAY})::int AS day, count(*) AS s, count(*) FILTER (WHERE result_count = 0) AS e, 0 AS f, 0 AS su, 0 AS ch, 0 AS un
     FROM searches GROUP BY 1, 2
     UNION ALL SELECT configuration_uid, (at / ${DAY})::int, 0, 0, count(*), 0, 0, 0 FROM support_forwards GROUP BY 1, 2
     UNION ALL SELECT configuration_uid, (at / ${DAY})::int, 0, 0, 0, count(*) FILTER (WHERE kind = 'summary'),
       count(*) FILTER (WHERE kind = 'chat'), count(*) FILTER (WHERE status = 'no-relevant-results') FROM generations GROUP BY 1, 2
   ) x GROUP BY 1, 2`,
  `INSERT INTO click_days (configuration_uid, day, position, clicks)
   SELECT configuration_uid, (at / ${DAY})::int, position, count(*) FROM clicks GROUP BY 1, 2, 3`,
  `INSERT INTO query_days (configuration_uid, day, query, searches, no_results, clicks)
   SELECT s.configuration_uid, (s.at / ${DAY})::int, s.normalized, count(*), count(*) FILTER (WHERE s.result_count = 0), coalesce(sum(k.n), 0)
   FROM searches s LEFT JOIN (SELECT search_id, count(*) AS n FROM clicks GROUP BY 1) k ON k.search_id = s.id GROUP BY 1, 2, 3`,
  `INSERT INTO distinct_keys (kind, configuration_uid, key, days, added)
   SELECT 1, configuration_uid, session, array_agg(DISTINCT (at / ${DAY})::int ORDER BY (at / ${DAY})::int), '{}'::int[] FROM searches GROUP BY 2, 3
   UNION ALL
   SELECT 2, configuration_uid, search_id, array_agg(DISTINCT (at / ${DAY})::int ORDER BY (at / ${DAY})::int), '{}'::int[] FROM clicks GROUP BY 2, 3`,
  `INSERT INTO distinct_pairs (kind, configuration_uid, day, prev, n)
   SELECT kind, configuration_uid, d, prev, count(*) FROM (
     SELECT kind, configuration_uid, d, lag(d, 1, -1) OVER (PARTITION BY kind, configuration_uid, key ORDER BY d) AS prev
     FROM distinct_keys, unnest(days) AS d) x GROUP BY 1, 2, 3, 4`,
  `ANALYZE`,
];

/** The same figures straight from the raw events (what the SQLite adapter computes). */
const RAW = `
  SELECT (SELECT count(*)::int FROM searches WHERE configuration_uid = $1 AND at >= $2 AND at < $3) AS searches,
         (SELECT count(DISTINCT session)::int FROM searches WHERE configuration_uid = $1 AND at >= $2 AND at < $3) AS sessions,
         (SELECT count(DISTINCT search_id)::int FROM clicks WHERE configuration_uid = $1 AND at >= $2 AND at < $3) AS clicked,
         (SELECT json_agg(t) FROM (SELECT s.normalized AS query, count(DISTINCT s.id) AS searches, count(k.search_id) AS clicks
            FROM searches s LEFT JOIN clicks k ON k.search_id = s.id WHERE s.configuration_uid = $1 AND s.at >= $2 AND s.at < $3
            GROUP BY s.normalized ORDER BY searches DESC, s.normalized LIMIT 20) t) AS top`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const storage = await createPostgresStorage({ url: values.url!, schema, vectors: null, poolSize: 8 });
  const client = new pg.Client({ connectionString: values.url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const filled = (await client.query('SELECT EXISTS (SELECT 1 FROM searches) AS e')).rows[0].e as boolean;
    log(`schema ${schema}: ${filled ? 'reused' : `${TOTAL.toLocaleString()} events over ${DAYS} days`}`);
    if (!filled) {
      await timed('fill raw events', async () => { for (const sql of FILL) await client.query(sql); });
      await timed('build rollups', async () => { for (const sql of ROLLUPS) await client.query(sql); });
    }
    const sizes = await client.query<{ t: string; n: string }>(
      `SELECT relname AS t, n_live_tup::text AS n FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY relname`, [schema]);
    log(`rows: ${sizes.rows.map((r) => `${r.t}=${r.n}`).join(' ')}`);

    const rows = [];
    const windows: [string, number, number][] = [
      ['7 days', END - 7 * DAY, END], ['30 days', END - 30 * DAY, END], ['90 days', START, END],
      ['30 days, mid-day ends', END - 30 * DAY - 5 * 3_600_000, END - 7 * 3_600_000],
    ];
    for (const [label, from, to] of windows) {
      const times: number[] = [];
      let insight = await storage.events.insights(CFG, from, to);
      for (let r = 0; r < RUNS; r++) {
        const t0 = performance.now();
        insight = await storage.events.insights(CFG, from, to);
        times.push(performance.now() - t0);
      }
      const t0 = performance.now();
      const raw = (await client.query(RAW, [CFG, from, to])).rows[0];
      const rawMs = performance.now() - t0;
      const agrees = insight.searches === raw.searches && insight.sessions === raw.sessions && insight.searchesWithClick === raw.clicked
        && JSON.stringify(insight.topQueries) === JSON.stringify(raw.top);
      rows.push({ range: label, searches: insight.searches, sessions: insight.sessions, insightsMsMedian: Math.round(median(times)),
        insightsMsMax: Math.round(Math.max(...times)), rawScanMs: Math.round(rawMs), agrees });
    }
    console.table(rows);

    const ingest = await timed('record 20 x 1000 searches through the port', async () => {
      const t0 = performance.now();
      for (let b = 0; b < 20; b++) {
        const batch: SearchEvent[] = Array.from({ length: 1000 }, (_, i) => ({
          id: `new-${process.pid}-${b}-${i}`, at: END - DAY + b * 60_000 + i, configurationUid: CFG, variant: 'ui', session: `s${(b * 1000 + i) >> 2}`,
          device: 'desktop', query: `q${i % 700}`, normalized: `q${i % 700}`, resultCount: i % 11,
        }));
        await storage.events.recordSearches(batch);
      }
      return (20_000 / (performance.now() - t0)) * 1000;
    });
    log(`ingest: ${Math.round(ingest).toLocaleString()} searches/s (one writer)`);
    mkdirSync('bench-results', { recursive: true });
    writeFileSync('bench-results/insights.json', JSON.stringify({
      at: new Date().toISOString(), events: TOTAL, days: DAYS, runs: RUNS, cores: cpus().length, node: process.version,
      postgres: (await client.query('SHOW server_version')).rows[0].server_version, rows, ingestSearchesPerSecond: Math.round(ingest),
    }, null, 2));
  } finally {
    if (!values.keep) await client.query(`DROP SCHEMA ${pg.escapeIdentifier(schema)} CASCADE`);
    await client.end();
    await storage.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
