/**
 * `npm run bench:widget`: the widget's size (widget.js, gzip) and the time from a visitor's key press to
 * painted results in a real Chromium, next to the API's own search latency in the same run.
 *
 * A private stack (Redis, API, worker, generator; scripts/bench/processes.ts) indexes SciFact abstracts;
 * a UI configuration allows a host page served from another port (another origin, as on a real site),
 * which embeds the widget with its one tag. For each query, alternating which goes first:
 *  (a) GET /v1/ui/search from Node, as the widget sends it: the API's latency;
 *  (b) in the page, the query typed but for its last character, the widget left to settle, then the last
 *      key pressed: from that keydown (in the page's clock) to the first frame painted after the widget's
 *      results list shows that query's first result (requestAnimationFrame, then a task: the frame is out).
 * Prints a table (median and p95 of both, their ratio) and writes bench-results/widget.json.
 *
 *   --docs 500  --queries 40  --warmup 5
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { CHROMIUM, launchBrowser, type TestBrowser } from '../test/helpers/browser.js';
import { hostPage, HOST_SCRIPT, startHostServer, type HostServer } from '../test/helpers/host-page.js';
import { makeTarget, send, sendJson } from './bench/http-load.js';
import { Cleanup, machineInfo, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { indexStatus } from './bench/quarry-client.js';
import { batchBodies, scaleCorpus, titleQueries } from './bench/scale-corpus.js';
import { distribution, markdownTable, round, type Distribution } from './bench/stats.js';
import { ensureWidget, widgetSize } from './build-widget.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench:widget] ${m}`);
const INDEX = 'bench-widget';
const SESSION = 'bench-widget-node';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '500' }, queries: { type: 'string', default: '40' }, warmup: { type: 'string', default: '5' } } });
const DOCS = Number(values.docs);
const QUERIES = Number(values.queries);
const WARMUP = Number(values.warmup);

/**
 * Runs in the host page before any of its scripts: keeps every shadow root (open or closed) to look into,
 * and notes the keydown of the armed key press and the widget's search requests (its own fetch calls).
 * A string, as tsx would wrap a function's inner names in a helper the page lacks.
 */
const PROBE = `(() => {
  const b = (window.__bench = { roots: [], searches: [], armed: null });
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    b.roots.push(root);
    new MutationObserver(() => b.armed && b.armed.check()).observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-busy'] });
    return root;
  };
  addEventListener('keydown', () => { if (b.armed && !b.armed.keydown) b.armed.keydown = performance.now(); }, true);
  const original = window.fetch;
  window.fetch = function (input, init) {
    const url = String(input instanceof Request ? input.url : input);
    const promise = original.call(this, input, init);
    if (/\\/v1\\/(ui|tool)\\/search\\?/.test(url)) {
      const entry = { query: new URL(url).searchParams.get('query'), sent: performance.now(), answered: 0 };
      b.searches.push(entry);
      promise.then(() => { entry.answered = performance.now(); b.armed && b.armed.check(); }, () => {});
    }
    return promise;
  };
})();`;

/**
 * Arms the probe for `query`: resolves one frame after the widget's results panel shows that query's results.
 * The panel (widget/src/results.tsx) is `aria-busy` from a keystroke until the answer for the box's current
 * query is rendered; requiring the answer to a search for exactly `query`, sent after the key, rules out the
 * instant between the key and the widget's next render, when the panel still reads the previous query's.
 */
const arm = (query: string) => `new Promise((resolve) => {
  const b = window.__bench;
  const query = ${JSON.stringify(query)};
  const shown = () => b.roots.some((r) => {
    const panel = r.querySelector('section[aria-label="Search results"]');
    const box = r.querySelector('input[role=combobox]');
    return panel && box && box.value.trim() === query && panel.getAttribute('aria-busy') === 'false' && panel.querySelector('li, .empty');
  });
  const t = { keydown: 0, done: false, check() {
    if (t.done || !t.keydown) return;
    const search = b.searches.find((s) => s.query === query && s.sent >= t.keydown && s.answered);
    if (!search || !shown()) return;
    t.done = true;
    requestAnimationFrame(() => setTimeout(() => {
      b.armed = null;
      resolve({ keydown: t.keydown, sent: search.sent, answered: search.answered, painted: performance.now() });
    }));
  } };
  b.armed = t;
  setTimeout(() => { if (!t.done) { b.armed = null; resolve(null); } }, 15000);
})`;

interface PageTiming {
  keydown: number;
  /** The widget's fetch of the search: called, and its response (headers) in. */
  sent: number;
  answered: number;
  painted: number;
}

interface Sample {
  query: string;
  apiMs: number;
  keyToPaintMs: number;
  keyToRequestMs: number;
  requestMs: number;
  responseToPaintMs: number;
  /** From the widget's search request to the painted frame: all but its typing pause. */
  sentToPaintMs: number;
}

async function pushCorpus(stack: Stack): Promise<ReturnType<typeof scaleCorpus>> {
  const admin = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey });
  await sendJson(admin, 'POST', '/v1/admin/indexes', { uid: INDEX, language_code: 'en' }, [200, 201]);
  const corpus = scaleCorpus(root, DOCS);
  for (const { body } of batchBodies(corpus, 100)) {
    const r = await send(admin, 'POST', `/v2/indexes/${INDEX}/documents`, body);
    if (r.status !== 200) throw new Error(`push answered ${r.status}: ${r.body.slice(0, 300)}`);
  }
  const t0 = Date.now();
  for (;;) {
    stack.assertAlive();
    const s = await indexStatus(admin, INDEX);
    if (s.pending === 0 && s.documents >= corpus.length) break;
    if (Date.now() - t0 > 600_000) throw new Error(`indexing did not finish in 10 minutes: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  say(`${corpus.length} documents indexed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return corpus;
}

/** The search as the widget sends it, timed from Node: the API's own latency. */
async function apiSearch(stack: Stack, uid: string, query: string): Promise<number> {
  const url = `${stack.baseUrl}/v1/ui/search?${new URLSearchParams({ uid, query, 'session-id': SESSION, device: 'desktop' })}`;
  const t0 = performance.now();
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`search answered ${res.status}: ${body.slice(0, 300)}`);
  return ms;
}

async function openHostPage(browser: TestBrowser, host: HostServer, stack: Stack, uid: string): Promise<Page> {
  host.set('/host.js', { body: HOST_SCRIPT, type: 'text/javascript' });
  // Chromium asks every origin for one; a 404 would read as a problem of the page.
  host.set('/favicon.ico', { body: '', type: 'image/x-icon' });
  host.set('/', { body: hostPage({ title: 'Bench host', widgetTag: `<script src="${stack.baseUrl}/widget.js" data-uid="${uid}" defer></script>` }), type: 'text/html' });
  await browser.context.addInitScript(PROBE);
  const page = await browser.context.newPage();
  page.on('console', (m) => m.type() === 'error' && say(`page console: ${m.text()}`));
  page.on('pageerror', (e) => say(`page error: ${e.message}`));
  await page.goto(`${host.origin}/`);
  await page.getByRole('combobox').first().waitFor({ timeout: 15_000 });
  return page;
}

/** Clears the box, types all of `query` but its last character, lets the widget settle, then times the last key. */
async function typeAndTime(page: Page, query: string): Promise<PageTiming | null> {
  const box = page.getByRole('combobox').first();
  await box.fill('');
  await box.pressSequentially(query.slice(0, -1), { delay: 40 });
  await page.waitForTimeout(600);
  const timing = page.evaluate(arm(query)) as Promise<PageTiming | null>;
  await page.waitForFunction('window.__bench.armed !== null');
  await box.press(query.slice(-1));
  return timing;
}

const ms = (d: Distribution) => ({ p50: round(d.p50, 1), p95: round(d.p95, 1), mean: round(d.mean, 1), max: round(d.max, 1) });

async function main() {
  const cleanup = new Cleanup();
  cleanup.onSignals(say);
  let stack: Stack | undefined;
  try {
    await ensureWidget();
    const size = widgetSize();
    say(`${size.file}: ${size.bytes.toLocaleString()} bytes, ${size.gzip.toLocaleString()} bytes gzip (${(size.gzip / 1024).toFixed(1)} KiB, budget ${size.budget_gzip / 1024} KiB)`);

    const loadAvg = os.loadavg();
    stack = await startStack(root, cleanup, { QUARRY_RATE_LIMIT_CLIENT: '100000000/1', QUARRY_RATE_LIMIT_UID: '100000000/1' });
    const corpus = await pushCorpus(stack);
    const host = await startHostServer();
    cleanup.add('stop host page server', () => host.close());
    const admin = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey });
    const { uid } = await sendJson<{ uid: string }>(admin, 'POST', '/v1/admin/configurations', {
      variant: 'ui', name: 'bench widget', indexes: [INDEX], result_count: 10, allowed_origins: [host.origin],
    }, [201]);

    // The widget.js response as a browser gets it: what crosses the network.
    const served = await fetch(`${stack.baseUrl}/widget.js`, { headers: { 'accept-encoding': 'gzip' } });
    const transferred = Number(served.headers.get('content-length') ?? (await served.arrayBuffer()).byteLength);

    const browser = await launchBrowser();
    cleanup.add('close browser', () => browser.close());
    const page = await openHostPage(browser, host, stack, uid);

    const queries = [...new Set(titleQueries(corpus, (QUERIES + WARMUP) * 2))].slice(0, QUERIES + WARMUP);
    if (queries.length < QUERIES + WARMUP) throw new Error(`only ${queries.length} distinct queries from the corpus's titles`);
    const samples: Sample[] = [];
    for (const [n, query] of queries.entries()) {
      // Alternating which goes first, so neither always meets what the other warmed.
      const apiFirst = n % 2 === 0;
      const before = apiFirst ? await apiSearch(stack, uid, query) : 0;
      const timing = await typeAndTime(page, query);
      if (!timing) throw new Error(`the widget did not show results for "${query}" within 15 s`);
      const apiMs = apiFirst ? before : await apiSearch(stack, uid, query);
      if (n < WARMUP) continue;
      samples.push({
        query, apiMs, keyToPaintMs: timing.painted - timing.keydown, keyToRequestMs: timing.sent - timing.keydown,
        requestMs: timing.answered - timing.sent, responseToPaintMs: timing.painted - timing.answered, sentToPaintMs: timing.painted - timing.sent,
      });
    }

    const api = distribution(samples.map((s) => s.apiMs));
    const key = distribution(samples.map((s) => s.keyToPaintMs));
    const sent = distribution(samples.map((s) => s.sentToPaintMs));
    const out = {
      at: new Date().toISOString(),
      machine: machineInfo(loadAvg, null),
      chromium: CHROMIUM,
      widget: { ...size, transferred_gzip: transferred },
      documents: corpus.length,
      queries: samples.length,
      warmup: WARMUP,
      api_ms: ms(api),
      key_to_paint_ms: ms(key),
      ratio_p50: round(key.p50 / api.p50, 2),
      ratio_p95: round(key.p95 / api.p95, 2),
      request_to_paint_ms: ms(sent),
      request_to_paint_ratio_p50: round(sent.p50 / api.p50, 2),
      breakdown_ms_p50: {
        key_to_request: round(distribution(samples.map((s) => s.keyToRequestMs)).p50, 1),
        request_in_browser: round(distribution(samples.map((s) => s.requestMs)).p50, 1),
        response_to_paint: round(distribution(samples.map((s) => s.responseToPaintMs)).p50, 1),
      },
      samples: samples.map((s) => ({ ...s, apiMs: round(s.apiMs, 1), keyToPaintMs: round(s.keyToPaintMs, 1), keyToRequestMs: round(s.keyToRequestMs, 1), requestMs: round(s.requestMs, 1), responseToPaintMs: round(s.responseToPaintMs, 1), sentToPaintMs: round(s.sentToPaintMs, 1) })),
    };
    console.log(markdownTable([
      ['measure', 'median (ms)', 'p95 (ms)'],
      ['API search latency (Node fetch)', String(out.api_ms.p50), String(out.api_ms.p95)],
      ['widget: keydown → results painted (Chromium)', String(out.key_to_paint_ms.p50), String(out.key_to_paint_ms.p95)],
      ['ratio widget / API', String(out.ratio_p50), String(out.ratio_p95)],
      ['  of which keydown → request sent', String(out.breakdown_ms_p50.key_to_request), ''],
      ['  of which request in the browser', String(out.breakdown_ms_p50.request_in_browser), ''],
      ['  of which response → painted', String(out.breakdown_ms_p50.response_to_paint), ''],
      ['widget: request sent → painted (no typing pause)', String(out.request_to_paint_ms.p50), String(out.request_to_paint_ms.p95)],
      ['ratio of that / API', String(out.request_to_paint_ratio_p50), String(round(sent.p95 / api.p95, 2))],
    ]));
    console.log(`\nwidget.js: ${size.bytes.toLocaleString()} bytes, ${size.gzip.toLocaleString()} bytes gzip (${(size.gzip / 1024).toFixed(1)} KiB of the ${size.budget_gzip / 1024} KiB budget); ${samples.length} queries over ${corpus.length} documents`);
    writeResults(root, 'widget.json', out, say);
  } catch (err) {
    reportFailure(err, cleanup, stack, 'bench:widget');
  } finally {
    await cleanup.run();
  }
}

await main();
