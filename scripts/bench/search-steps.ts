import http from 'node:http';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { DbProbe } from './db-probe.js';
import { closedLoop, send, sendJson, type PlannedRequest, type Target } from './http-load.js';
import { cpuMeter, type Stack } from './processes.js';
import { makeDoc, type Query, type Vocabulary } from './search-corpus.js';
import { distribution, round, type Distribution } from './stats.js';
import { mapPool, type Progress } from '../eval/quarry-eval-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const SEARCH_SCHEMA = {
  title: { type: 'text' }, body: { type: 'text' }, category: { type: 'string' },
  price: { type: 'float' }, year: { type: 'int' }, published: { type: 'date' },
} as const;

export const FILTER = 'category:c3 AND price:[10 TO 500]';
export const BOOSTING = 'title^2 body^1';

export async function createSearchIndex(t: Target, uid: string): Promise<void> {
  await sendJson(t, 'POST', '/v1/content/indexes', { uid, language_code: 'en', schema: { fields: SEARCH_SCHEMA } }, [200, 201]);
}

export interface LoadFigures {
  documents: number;
  pushSeconds: number;
  pushDocsPerSecond: number;
  /** From the first push to all indexed (or to the timeout). */
  indexedSeconds: number;
  indexedDocsPerSecond: number;
  complete: boolean;
  progress: Progress;
  retries: number;
}

/**
 * Step 2: pushes documents `from`..n-1 (an index holding 0..from-1 grows to n) with `concurrency` in
 * flight, then waits until all n are indexed.
 */
export async function loadCorpus(
  t: Target, index: string, v: Vocabulary, n: number,
  opts: { concurrency: number; timeoutMs: number; stack: Stack; say: (m: string) => void; from?: number },
): Promise<LoadFigures> {
  const path = `/v1/content/indexes/${encodeURIComponent(index)}/documents`;
  const from = opts.from ?? 0;
  const t0 = performance.now();
  let done = 0;
  let retries = 0;
  let lastSay = t0;
  await mapPool(Array.from({ length: n - from }, (_, k) => from + k), opts.concurrency, async (i) => {
    const body = JSON.stringify(makeDoc(v, i));
    for (let attempt = 0; ; attempt++) {
      const r = await send(t, 'POST', path, body);
      if (r.status === 204 || r.status === 200 || r.status === 202) break;
      if ((r.status === 429 || r.status === 503) && attempt < 8) {
        retries++;
        await sleep(200 * 2 ** Math.min(attempt, 5));
        continue;
      }
      throw new Error(`push of document d${i} -> ${r.status}: ${r.body.slice(0, 500)}`);
    }
    done++;
    if (performance.now() - lastSay > 10_000) {
      lastSay = performance.now();
      opts.stack.assertAlive();
      opts.say(`  pushed ${done}/${n - from} (${Math.round(done / ((lastSay - t0) / 1000))} docs/s)`);
    }
  });
  const pushMs = performance.now() - t0;
  opts.say(`pushed ${n - from} documents in ${(pushMs / 1000).toFixed(1)} s (${Math.round((n - from) / (pushMs / 1000))} docs/s); waiting for indexing`);

  const end = t0 + opts.timeoutMs;
  let p: Progress;
  let complete = false;
  lastSay = performance.now();
  for (;;) {
    opts.stack.assertAlive();
    p = (await sendJson<{ progress: Progress }>(t, 'GET', `/v1/admin/indexes/${encodeURIComponent(index)}`)).progress;
    if (p.failed > 0) throw new Error(`index ${index}: ${p.failed} document(s) failed to index: ${JSON.stringify(p)}`);
    if (p.indexed >= n && p.pending === 0) {
      complete = true;
      break;
    }
    if (performance.now() > end) {
      opts.say(`NOT fully indexed after ${opts.timeoutMs / 1000} s: ${JSON.stringify(p)}; continuing with what is indexed`);
      break;
    }
    if (performance.now() - lastSay > 10_000) {
      lastSay = performance.now();
      opts.say(`  indexed ${p.indexed}/${n}, pending ${p.pending} (${Math.round(p.indexed / ((lastSay - t0) / 1000))} docs/s since the first push)`);
    }
    await sleep(500);
  }
  const indexedMs = performance.now() - t0;
  return {
    documents: n - from,
    pushSeconds: round(pushMs / 1000, 1),
    pushDocsPerSecond: Math.round((n - from) / (pushMs / 1000)),
    indexedSeconds: round(indexedMs / 1000, 1),
    indexedDocsPerSecond: Math.round((p.indexed - from) / (indexedMs / 1000)),
    complete, progress: p, retries,
  };
}

export type Kind = 'plain' | 'filtered';

export function searchBody(index: string, q: Query, kind: Kind): string {
  return JSON.stringify({
    index_uid: index, query: q.terms.join(' '), boosting: BOOSTING,
    filter: kind === 'filtered' ? FILTER : '', fields: ['price'], limit: 10,
  });
}

/** Cycles through the query list, each run starting at a different offset (same order). */
export function querySequence(index: string, queries: Query[], kind: Kind, offset = 0): () => PlannedRequest {
  let i = offset;
  return () => ({ method: 'POST', path: '/v1/content/search', body: searchBody(index, queries[i++ % queries.length], kind) });
}

export interface WarmupFigures {
  queries: number;
  errors: number;
  errorSamples: string[];
  /** Mean number of results per query (up to 10) and share of queries with none. */
  meanResults: number;
  emptyShare: number;
  /** Filtered runs: every returned result must carry a price within the range. */
  priceOutOfRange: number;
}

/** Sequential warm-up over the first `n` queries; also checks what the answers look like. */
export async function warmup(t: Target, index: string, queries: Query[], kind: Kind, n: number): Promise<WarmupFigures> {
  let errors = 0;
  let results = 0;
  let empty = 0;
  let bad = 0;
  const samples = new Set<string>();
  for (let i = 0; i < n; i++) {
    const r = await send(t, 'POST', '/v1/content/search', searchBody(index, queries[i % queries.length], kind));
    if (r.status !== 200) {
      errors++;
      if (samples.size < 5) samples.add(`${r.status} ${r.body.slice(0, 300)}`);
      continue;
    }
    const body = JSON.parse(r.body) as { results: { fields: { price?: unknown } }[] };
    results += body.results.length;
    if (body.results.length === 0) empty++;
    if (kind === 'filtered') {
      for (const x of body.results) {
        const p = x.fields.price;
        if (typeof p !== 'number' || p < 10 || p > 500) bad++;
      }
    }
  }
  if (errors === n) throw new Error(`every warm-up search failed (${kind}); e.g. ${[...samples][0]}`);
  const ok = n - errors;
  return { queries: n, errors, errorSamples: [...samples], meanResults: round(results / Math.max(1, ok), 2), emptyShare: round(empty / Math.max(1, ok), 3), priceOutOfRange: bad };
}

export interface RunFigures {
  /** `ui`: GET /v1/ui/search (ui-steps.ts). */
  kind: Kind | 'raw-fts5' | 'ui';
  concurrency: number;
  requests: number;
  errors: number;
  errorSamples: string[];
  qps: number;
  latencyMs: Distribution;
  cpuPct: Record<string, number>;
}

export const roundDist = (d: Distribution): Distribution =>
  Object.fromEntries(Object.entries(d).map(([k, v]) => [k, round(v, 2)])) as unknown as Distribution;

/** Step 4: a closed loop of searches of one kind at one concurrency. */
export async function serviceRun(
  t: Target, stack: Stack, index: string, queries: Query[], kind: Kind, concurrency: number, durationMs: number, offset: number,
): Promise<RunFigures> {
  // Connections of its own, as many as its clients, as the search interface's runs have: the load's pool
  // holds more than 16 and Node's agent reuses the one freed last, so the run piled onto whichever API
  // process answered fastest (content search at c=16: API 97-105% of a core, connections 30 / 20 per process).
  const own: Target = { ...t, agent: new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency }) };
  const meter = cpuMeter({ api: stack.api.pid, worker: stack.worker.pid, redis: stack.redisPid });
  const r = await closedLoop({ target: own, concurrency, durationMs, next: querySequence(index, queries, kind, offset), okStatus: [200] });
  const cpu = meter();
  own.agent.destroy();
  stack.assertAlive();
  return {
    kind, concurrency, requests: r.requests, errors: r.errors, errorSamples: r.errorSamples, qps: round(r.rps),
    latencyMs: roundDist(distribution(r.latenciesMs)), cpuPct: cpu,
  };
}

export interface RawFigures extends RunFigures {
  table: string;
  meanRows: number;
}

/**
 * The raw baseline engine: a contentless FTS5 table over the index's sections, built here in memory
 * (Quarry itself keeps no FTS5 index: search runs on its own in-memory one).
 */
function buildRawFts(probe: DbProbe, indexId: number): { db: Database.Database; table: string; rows: number } {
  const db = new Database(':memory:');
  const table = `fts_${indexId}`;
  db.exec(`CREATE VIRTUAL TABLE ${table} USING fts5(title, text, content='', tokenize="unicode61 remove_diacritics 2")`);
  const insert = db.prepare(`INSERT INTO ${table} (rowid, title, text) VALUES (?, ?, ?)`);
  let rows = 0;
  db.transaction(() => {
    for (const r of probe.search.prepare('SELECT id, title, text FROM sections WHERE index_id = ?').iterate(indexId) as Iterable<{ id: number; title: string; text: string }>) {
      insert.run(r.id, r.title, r.text);
      rows++;
    }
  })();
  return { db, table, rows };
}

/**
 * Step 5: the same queries straight on an FTS5 table of the same sections (in this process, one at a
 * time): `"t1" OR "t2"`, ordered by bm25, 10 rows. Warms up on `warmupN` queries first.
 */
export function rawRun(probe: DbProbe, indexId: number, queries: Query[], durationMs: number, warmupN: number): RawFigures & { ftsRows: number } {
  const { db, table, rows: ftsRows } = buildRawFts(probe, indexId);
  const stmt = db.prepare<[string], { rowid: number; s: number }>(
    `SELECT rowid, bm25(${table}) AS s FROM ${table} WHERE ${table} MATCH ? ORDER BY s LIMIT 10`,
  );
  const match = (q: Query) => q.terms.map((w) => `"${w}"`).join(' OR ');
  for (let i = 0; i < warmupN; i++) stmt.all(match(queries[i % queries.length]));
  const meter = cpuMeter({});
  const latencies: number[] = [];
  let rows = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  let i = 0;
  while (performance.now() < deadline) {
    const m = match(queries[i++ % queries.length]);
    const t0 = performance.now();
    rows += stmt.all(m).length;
    latencies.push(performance.now() - t0);
  }
  const elapsed = performance.now() - start;
  db.close();
  return {
    ftsRows, kind: 'raw-fts5', table, concurrency: 1, requests: latencies.length, errors: 0, errorSamples: [],
    qps: round(latencies.length / (elapsed / 1000)), latencyMs: roundDist(distribution(latencies)), cpuPct: meter(),
    meanRows: round(rows / Math.max(1, latencies.length), 2),
  };
}

/** Sections and sections with a vector, for the record (null where the layout is not as expected). */
export function indexSize(probe: DbProbe, indexId: number): { sections: number | null; sectionsWithVector: number | null } {
  try {
    // The vector leg can only find sections that have a vector: all of them, once embedding has run.
    const r = probe.search.prepare('SELECT count(*) AS n, count(vector) AS v FROM sections WHERE index_id = ?').get(indexId) as { n: number; v: number };
    return { sections: r.n, sectionsWithVector: r.v };
  } catch {
    return { sections: null, sectionsWithVector: null };
  }
}
