// The web app's two budgets: the initial download (gzip) and the time from navigation start until the
// insights page shows its key figures and chart over 100,000 searches in the range (budget: 1 s).
// Events are recorded straight through the storage port, then the real app (built in this process)
// serves Debian's Chromium, signed in through the session API; 5 runs with the browser cache cleared.
//   npm run bench:web -- [--postgres] [--runs 5] [--events 100000]
// PostgreSQL runs too with --postgres or DATABASE_URL (a schema of its own, dropped afterwards).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp, closeApp } from '../api/app.js';
import { loadConfig } from '../shared/config/config.js';
import { closeQueues, createPipelineQueues } from '../shared/jobs/pipeline-queues.js';
import { createLogger } from '../shared/logging/create-logger.js';
import { connectRedis } from '../shared/redis/connect-redis.js';
import { createStorage, type Storage } from '../shared/storage/create-storage.js';
import type { Device, SearchEvent } from '../shared/storage/ports/event-store.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { deleteRedisPrefix } from './bench/scale-services.js';
import { writeResults } from './bench/processes.js';
import { markdownTable, percentile } from './bench/stats.js';
import { ensureWeb, initialDownload } from './build-web.mjs';

const { values } = parseArgs({
  options: {
    postgres: { type: 'boolean', default: false },
    runs: { type: 'string', default: '5' },
    events: { type: 'string', default: '100000' },
  },
});
const RUNS = Number(values.runs);
const SEARCHES = Number(values.events);
const BUDGET_MS = 1000;
const MASTER_KEY = `bench-web-${randomUUID()}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES_URL = process.env.DATABASE_URL ?? (values.postgres ? process.env.QUARRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' : null);
const root = process.cwd();
const say = (m: string) => process.stdout.write(`${m}\n`);

/**
 * `SEARCHES` searches over the last 30 local days up to now (the page's default range), a long tail of
 * queries, one in 13 without results, a click on every fifth, plus support forwards and generations (1%).
 */
async function seed(storage: Storage, uid: string): Promise<number> {
  // The page's default range: the last 30 local days, today included (the browser's zone is this process's).
  const first = new Date();
  first.setHours(0, 0, 0, 0);
  first.setDate(first.getDate() - 29);
  const start = first.getTime() + 60_000;
  const span = Date.now() - 120_000 - start;
  const at = (i: number) => start + Math.floor((i * span) / SEARCHES);
  const session = (i: number) => (i % 5 === 0 ? `u${(i * 31) % 2000}` : `s${i >> 2}`);
  const devices: Device[] = ['desktop', 'mobile', 'unknown'];
  for (let b = 0; b < SEARCHES; b += 1000) {
    const batch: SearchEvent[] = [];
    for (let i = b; i < Math.min(SEARCHES, b + 1000); i++) {
      const q = `query ${Math.floor(((i * 7919) % 1000 / 1000) ** 3 * 3000)}`;
      batch.push({
        id: `w${i}`, at: at(i), configurationUid: uid, variant: 'ui', session: session(i), device: devices[i % 3 === 0 ? 1 : i % 7 === 0 ? 2 : 0],
        query: q, normalized: q, resultCount: i % 13 === 0 ? 0 : 1 + (i % 9),
      });
    }
    await storage.events.recordSearches(batch);
  }
  let events = SEARCHES;
  for (let i = 1; i < SEARCHES; i += 5) {
    await storage.events.recordClick({ at: at(i) + 30_000, configurationUid: uid, searchEventId: `w${i}`, session: session(i), normalized: 'q', position: 1 + (i % 7), target: `bench\u0000doc${i % 900}` });
    events++;
  }
  for (let i = 0; i < SEARCHES / 100; i++) {
    await storage.events.recordSupportForward({ at: at(i * 100), configurationUid: uid, url: `https://support.example.com/${i % 37}`, session: `s${i}`, device: devices[i % 3] });
    await storage.events.recordGeneration({
      id: `g${i}`, at: at(i * 100) + 1000, configurationUid: uid, kind: i % 2 ? 'chat' : 'summary', session: `s${i}`, device: devices[i % 3],
      query: 'q', status: i % 4 === 0 ? 'no-relevant-results' : 'success', latencyMs: 300, references: [],
    });
    events += 2;
  }
  return events;
}

/**
 * Set before any page script runs: the moment (ms since navigation start) the key figures and the chart's
 * canvas are both in the page. A string, as tsx would wrap a function's inner names in a helper the page lacks.
 */
const MARK_RENDERED = `
  const check = () => {
    if (window.__rendered === undefined && document.querySelector('ul[aria-label="Key figures"] .value') && document.querySelector('.chart-box canvas')) {
      window.__rendered = performance.now();
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
`;

interface Run {
  renderMs: number;
  insightsRequestMs: number;
  searchesShown: string;
}

async function measure(label: string, backendEnv: Record<string, string>): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-web-'));
  const prefix = `bench-web-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({
    QUARRY_DATA_DIR: dataDir, QUARRY_REDIS_PREFIX: prefix, REDIS_URL, QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_LOG_LEVEL: 'silent', PORT: '0', ...backendEnv,
  });
  const storage = await createStorage(config.storage, { commitThread: true });
  const redis = connectRedis(config.redis.url, 'bench-web');
  const queues = createPipelineQueues({ connection: redis, prefix, attempts: config.pipeline.attempts });
  const app = await buildApp({ config, storage, redis, queues, log: createLogger('silent', 'bench-web'), embedder: null });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchBrowser();
  try {
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': MASTER_KEY }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<{ uid: string }>;
    };
    await admin('/v1/admin/indexes', { uid: 'bench' });
    const { uid } = await admin('/v1/admin/configurations', { variant: 'ui', name: 'Bench', indexes: ['bench'] });
    const t0 = performance.now();
    const events = await seed(storage, uid);
    say(`${label}: ${events.toLocaleString()} events recorded through the port in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // Signed in as the app would be: the session cookie lands in the browser context's jar.
    const signIn = await browser.context.request.post(`${url}/v1/admin/session`, { data: { key: MASTER_KEY } });
    if (!signIn.ok()) throw new Error(`sign-in answered ${signIn.status()}`);
    await browser.context.addInitScript(MARK_RENDERED);
    const target = `${url}/app/configurations/${uid}/insights`;
    const runs: Run[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const page = await browser.context.newPage();
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Network.clearBrowserCache');
      await page.goto(target);
      // A function, not a string: Playwright evals string predicates inside the page, which the CSP refuses.
      await page.waitForFunction(() => (window as { __rendered?: number }).__rendered !== undefined, undefined, { timeout: 60_000 });
      const run = (await page.evaluate(`({
        renderMs: window.__rendered,
        insightsRequestMs: Math.max(0, ...performance.getEntriesByType('resource').filter((e) => e.name.includes('/insights?')).map((e) => e.duration)),
        searchesShown: document.querySelector('ul[aria-label="Key figures"] .value')?.textContent ?? '',
      })`)) as Run;
      await page.close();
      // The first visit warms the server (the process's first insights query, JIT): reported, not counted.
      if (i === 0) say(`${label}: warm-up ${run.renderMs.toFixed(0)} ms`);
      else runs.push(run);
    }
    const expected = SEARCHES.toLocaleString('en-US');
    if (runs.some((r) => r.searchesShown.replace(/\D/g, '') !== String(SEARCHES))) {
      throw new Error(`the page showed ${runs.map((r) => r.searchesShown).join(', ')} searches, not ${expected}`);
    }
    const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
    return {
      backend: label, events, searches: SEARCHES, runs,
      render_ms_median: Math.round(median(runs.map((r) => r.renderMs))),
      insights_request_ms_median: Math.round(median(runs.map((r) => r.insightsRequestMs))),
    };
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
    server.closeAllConnections();
    await closeApp(app);
    await closeQueues(queues);
    await deleteRedisPrefix(REDIS_URL, prefix);
    redis.disconnect();
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await ensureWeb();
const size = initialDownload();
say(`initial download: ${size.files.length} files, ${size.bytes.toLocaleString()} bytes, ${size.gzip.toLocaleString()} bytes gzip (${(size.gzip / 1024).toFixed(1)} KiB)`);

const results = [await measure('embedded (SQLite)', {})];
if (POSTGRES_URL) {
  const schema = `bench_web_${process.pid}`;
  try {
    results.push(await measure('PostgreSQL', { QUARRY_STORAGE: 'postgres', DATABASE_URL: POSTGRES_URL, QUARRY_DATABASE_SCHEMA: schema }));
  } finally {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await client.end();
  }
}

say('');
say(markdownTable([
  ['backend', 'events', `insights first render, median of ${RUNS} (ms)`, 'runs (ms)', 'of which the insights request (ms)', `budget ${BUDGET_MS} ms`],
  ...results.map((r) => {
    const runs = r.runs as Run[];
    return [
      String(r.backend), (r.events as number).toLocaleString('en-US'), String(r.render_ms_median), runs.map((x) => x.renderMs.toFixed(0)).join(', '),
      String(r.insights_request_ms_median), (r.render_ms_median as number) < BUDGET_MS ? 'met' : 'MISSED',
    ];
  }),
]));
say(`\ninitial download (gzip): ${size.gzip.toLocaleString()} bytes`);
writeResults(root, 'web.json', { at: new Date().toISOString(), initial_download: size, budget_ms: BUDGET_MS, results }, say);
if (results.some((r) => (r.render_ms_median as number) >= BUDGET_MS)) process.exitCode = 1;
