// Insights over PostgreSQL at scale: fills 10^7 events over 90 days into a fresh schema (with
// generate_series, then the rollups built in bulk as the event store would have kept them), and
// times insights() for 7/30/90-day ranges against a scan of the raw events, checking they agree.
// Also times recording through the port into the filled schema (the rollup upkeep). Then records
// 100,000 events over 30 days through the port of each backend (SQLite and PostgreSQL) and times the
// full response the web app asks for (New York local days, devices, support urls, sessions per day;
// top lists of 20 and of 1,000), checking both backends answer the same.
//   npx tsx scripts/bench-insights.ts -- [--url postgres://...] [--events 10000000] [--runs 5] [--keep] [--schema name] [--full-only]
// --keep leaves the filled schema behind; --schema names it, and reuses it when it is already filled.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Device, InsightsOptions, SearchEvent } from '../shared/storage/ports/event-store.js';
import type { BackendStorage } from '../shared/storage/ports/storage.js';
import { localDays } from '../shared/storage/local-days.js';
import { createPostgresStorage } from '../shared/storage/postgres/create-postgres-storage.js';
import { createSqliteStorage } from '../shared/storage/sqlite/create-sqlite-storage.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.QUARRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    events: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    schema: { type: 'string' },
    // Only the second part: the full response over 100,000 events on both backends.
    'full-only': { type: 'boolean', default: false },
  },
});
const TOTAL = Number(values.events);
const RUNS = Number(values.runs);
const DAY = 86_400_000;
const HOUR = 3_600_000;
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
  `INSERT INTO event_hours (configuration_uid, hour, device, searches, no_results, support_forwards, summaries, summaries_unanswered, chats, chats_unanswered)
   SELECT configuration_uid, hour, device, sum(s), sum(e), sum(f), sum(su), sum(suu), sum(ch), sum(chu) FROM (
     SELECT configuration_uid, (at / ${HOUR})::int AS hour, device, count(*) AS s, count(*) FILTER (WHERE result_count = 0) AS e, 0 AS f,
       0 AS su, 0 AS suu, 0 AS ch, 0 AS chu
     FROM searches GROUP BY 1, 2, 3
     UNION ALL SELECT configuration_uid, (at / ${HOUR})::int, device, 0, 0, count(*), 0, 0, 0, 0 FROM support_forwards GROUP BY 1, 2, 3
     UNION ALL SELECT configuration_uid, (at / ${HOUR})::int, device, 0, 0, 0, count(*) FILTER (WHERE kind = 'summary'),
       count(*) FILTER (WHERE kind = 'summary' AND status = 'no-relevant-results'), count(*) FILTER (WHERE kind = 'chat'),
       count(*) FILTER (WHERE kind = 'chat' AND status = 'no-relevant-results') FROM generations GROUP BY 1, 2, 3
   ) x GROUP BY 1, 2, 3`,
  `INSERT INTO click_hours (configuration_uid, hour, position, clicks)
   SELECT configuration_uid, (at / ${HOUR})::int, position, count(*) FROM clicks GROUP BY 1, 2, 3`,
  `INSERT INTO query_days (configuration_uid, day, query, searches, no_results, clicks)
   SELECT s.configuration_uid, (s.at / ${DAY})::int, s.normalized, count(*), count(*) FILTER (WHERE s.result_count = 0), coalesce(sum(k.n), 0)
   FROM searches s LEFT JOIN (SELECT search_id, count(*) AS n FROM clicks GROUP BY 1) k ON k.search_id = s.id GROUP BY 1, 2, 3`,
  `INSERT INTO distinct_keys (kind, configuration_uid, key, days, added)
   SELECT 1, configuration_uid, session, array_agg(DISTINCT (at / ${DAY})::int ORDER BY (at / ${DAY})::int), '{}'::int[] FROM searches GROUP BY 2, 3
   UNION ALL
   SELECT 2, configuration_uid, search_id, array_agg(DISTINCT (at / ${DAY})::int ORDER BY (at / ${DAY})::int), '{}'::int[] FROM clicks GROUP BY 2, 3
   UNION ALL
   SELECT 3, configuration_uid, session, array_agg(DISTINCT (at / ${HOUR})::int ORDER BY (at / ${HOUR})::int), '{}'::int[] FROM searches GROUP BY 2, 3`,
  // Kind 3 (sessions by hour) keeps a previous hour over 48 hours back as -1, as the store does.
  `INSERT INTO distinct_pairs (kind, configuration_uid, day, prev, n)
   SELECT kind, configuration_uid, d, CASE WHEN kind = 3 AND prev < d - 48 THEN -1 ELSE prev END, count(*) FROM (
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
  const scale = values['full-only'] ? null : await scaleBench();
  const full = await fullResponseBench();
  mkdirSync('bench-results', { recursive: true });
  writeFileSync('bench-results/insights.json', JSON.stringify({
    at: new Date().toISOString(), runs: RUNS, cores: cpus().length, node: process.version, ...scale, fullResponse100k: full,
  }, null, 2));
}

/** 10^7 events in PostgreSQL: insights against a raw scan, and ingest into the filled schema. */
async function scaleBench() {
  const storage = await createPostgresStorage({ url: values.url!, schema, poolSize: 8 });
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
    return {
      events: TOTAL, days: DAYS, postgres: (await client.query('SHOW server_version')).rows[0].server_version, rows,
      ingestSearchesPerSecond: Math.round(ingest),
    };
  } finally {
    if (!values.keep) await client.query(`DROP SCHEMA ${pg.escapeIdentifier(schema)} CASCADE`);
    await client.end();
    await storage.close();
  }
}

const FULL_EVENTS = 100_000;
const FULL_DAYS = 30;
const ZONE = 'America/New_York';

/** 100,000 events over 30 days (80% searches, 16% clicks, 2% support forwards, 2% generations), the same on any backend. */
async function fill100k(storage: BackendStorage, start: number) {
  const searches = FULL_EVENTS * 0.8;
  const at = (i: number, n: number) => start + Math.floor((i * FULL_DAYS * DAY) / n);
  const devices: Device[] = ['desktop', 'mobile', 'unknown'];
  for (let b = 0; b < searches; b += 1000) {
    await storage.events.recordSearches(Array.from({ length: 1000 }, (_, k) => {
      const i = b + k;
      const q = `q${Math.floor(Math.pow((i * 7919) % 1000 / 1000, 3) * 3000)}`;
      return {
        id: `f${i}`, at: at(i, searches), configurationUid: CFG, variant: 'ui', session: i % 5 === 0 ? `u${(i * 31) % 2000}` : `s${i >> 2}`,
        device: devices[i % 3 === 0 ? 1 : i % 7 === 0 ? 2 : 0], query: q, normalized: q, resultCount: i % 13 === 0 ? 0 : 1 + (i % 9),
      };
    }));
  }
  // Clicks on every fifth search, four writers at once (each click is its own transaction).
  const clicks = Array.from({ length: searches / 5 }, (_, k) => k * 5 + 1);
  await Promise.all(Array.from({ length: 4 }, async (_, w) => {
    for (let k = w; k < clicks.length; k += 4) {
      const i = clicks[k];
      await storage.events.recordClick({
        at: at(i, searches) + 30_000, configurationUid: CFG, searchEventId: `f${i}`, session: i % 5 === 0 ? `u${(i * 31) % 2000}` : `s${i >> 2}`,
        normalized: 'q', position: 1 + (i % 7), target: `idx\u0000doc${i % 900}`,
      });
    }
  }));
  const others = FULL_EVENTS * 0.02;
  for (let i = 0; i < others; i++) {
    await storage.events.recordSupportForward({ at: at(i, others), configurationUid: CFG, url: `https://support/${i % 37}`, session: `s${i}`, device: devices[i % 3] });
    await storage.events.recordGeneration({
      id: `g${i}`, at: at(i, others) + 1000, configurationUid: CFG, kind: i % 2 ? 'chat' : 'summary', session: `s${i}`, device: devices[i % 3],
      query: 'q', status: i % 4 === 0 ? 'no-relevant-results' : 'success', latencyMs: 300, references: [],
    });
  }
}

/** The web app's insights read over 100,000 events, on SQLite and on PostgreSQL. */
async function fullResponseBench() {
  const days = localDays(END - (FULL_DAYS + 2) * DAY, END + 2 * DAY, ZONE);
  // Local midnights in New York around the 30 filled days: what the browser sends.
  const from = days[0].end;
  const to = days[days.length - 2].start;
  const start = from + 3 * HOUR;
  const dir = mkdtempSync(join(tmpdir(), 'bench-insights-'));
  const fullSchema = `bench_insights_full_${process.pid}`;
  const backends: [string, BackendStorage][] = [
    ['embedded (SQLite)', createSqliteStorage({ dataDir: dir, synchronous: 'normal' })],
    ['PostgreSQL', await createPostgresStorage({ url: values.url!, schema: fullSchema, poolSize: 8 })],
  ];
  const rows = [];
  const answers: string[] = [];
  try {
    for (const [name, storage] of backends) {
      await timed(`${name}: record ${FULL_EVENTS.toLocaleString()} events through the port`, () => fill100k(storage, start));
      for (const view of [{ timeZone: ZONE, limit: 20 }, { timeZone: ZONE, limit: 1000 }] as InsightsOptions[]) {
        let insight = await storage.events.insights(CFG, from, to, view);
        const times: number[] = [];
        for (let r = 0; r < RUNS; r++) {
          const t0 = performance.now();
          insight = await storage.events.insights(CFG, from, to, view);
          times.push(performance.now() - t0);
        }
        if (view.limit === 1000) answers.push(JSON.stringify(insight));
        rows.push({
          backend: name, limit: view.limit, events: insight.searches + insight.clicks + insight.supportForwards + insight.summaries + insight.chats,
          days: insight.byDay.length, msMedian: Math.round(median(times)), msMax: Math.round(Math.max(...times)),
        });
      }
    }
  } finally {
    for (const [, storage] of backends) await storage.close();
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: values.url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(fullSchema)} CASCADE`);
    await client.end();
  }
  const agrees = answers.length === 2 && answers[0] === answers[1];
  console.table(rows);
  log(`both backends give the same full response: ${agrees}`);
  return { events: FULL_EVENTS, days: FULL_DAYS, timeZone: ZONE, rows, agrees };
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
