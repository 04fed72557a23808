/**
 * `npm run bench:crawl`: pages per second a website source crawls and indexes from a local HTTP server,
 * against the raw fetch rate of the same pages in the same run, on a private stack (Redis, API, one
 * worker) started and removed here for each crawl. Prints a table; writes bench-results/crawl.json.
 *
 *   --pages 500            pages served (the Python docs from ../shared/data, else generated linked pages)
 *   --runs polite,no-delay crawls to run: `polite` with the default per-host delay (250 ms between request
 *                          starts), `no-delay` with QUARRY_CRAWL_HOST_DELAY_MS=0: what the crawler itself
 *                          costs beside the raw fetch; both by default
 *
 * The pages are listed in a sitemap and the source has max_depth 0, so the crawl fetches exactly the
 * pages the raw pass fetched (plus robots.txt and the sitemap), whatever they link to.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { extractPage } from '../shared/crawl/extract-page.js';
import { HOST_LIMIT_DEFAULTS } from '../shared/crawl/host-limiter.js';
import { DbProbe } from './bench/db-probe.js';
import { makeTarget, sendJson } from './bench/http-load.js';
import { Cleanup, cpuMeter, cpuTimeMs, machineInfo, processOutput, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { waitDrained } from './bench/quarry-client.js';
import { round } from './bench/stats.js';
import { loadPythonDocs } from './eval/python-docs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (m: string) => console.error(`[bench] ${m}`);

interface SitePage {
  path: string;
  title: string;
  html: string;
}

interface CrawlView {
  crawl: { state: string; discovered: number; fetched: number; indexed: number; skipped: number; failed: number; last_error: string | null; problems: unknown[] };
}

/** Real documentation pages when the shared data is there; otherwise pages of generated text linking to each other. */
function sitePages(n: number): { corpus: string; pages: SitePage[] } {
  try {
    const docs = loadPythonDocs(join(root, '../shared/data/python-docs/python-3.11.2-html.tar.gz'));
    if (docs.length >= n) {
      return { corpus: 'python-3.11.2 docs (../shared/data)', pages: docs.slice(0, n).map((d) => ({ path: `/${d.uid}`, title: d.title, html: d.content })) };
    }
    say(`only ${docs.length} Python docs pages, ${n} asked: generating pages instead`);
  } catch (err) {
    say(`Python docs not available (${err instanceof Error ? err.message : String(err)}): generating pages instead`);
  }
  const words = ['lantern', 'harbour', 'quince', 'ferry', 'walnut', 'zeppelin', 'kite', 'meadow', 'copper', 'orchard', 'granite', 'thistle'];
  const pages = Array.from({ length: n }, (_, i) => {
    const text = Array.from({ length: 300 }, (_, j) => words[(i * 7 + j * 13) % words.length]).join(' ');
    const links = [1, 2, 3].map((k) => `<a href="/page-${(i + k) % n}.html">next ${k}</a>`).join(' ');
    const title = `Page ${i} token${i}x`;
    return { path: `/page-${i}.html`, title, html: `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p>${links}</main></body></html>` };
  });
  return { corpus: 'generated', pages };
}

async function startSite(pages: SitePage[]): Promise<{ url: (path: string) => string; server: http.Server }> {
  const byPath = new Map(pages.map((p) => [p.path, Buffer.from(p.html)]));
  let base = '';
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (path === '/sitemap.xml') {
      const urls = pages.map((p) => `<url><loc>${base}${encodeURI(p.path)}</loc></url>`).join('');
      return void res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    }
    const body = byPath.get(decodeURI(path));
    if (!body) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: (path) => `${base}${encodeURI(path)}`, server };
}

/** Every page fetched from Node with the crawler's per-host concurrency and no delay: what the server and sockets allow. */
async function rawFetch(urls: string[], concurrency: number): Promise<{ pages: number; seconds: number; pagesPerSecond: number; bytes: number; cpuMsPerPage: number }> {
  let next = 0;
  let bytes = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const lane = async () => {
    while (next < urls.length) {
      const url = urls[next++];
      const res = await fetch(url);
      if (res.status !== 200) throw new Error(`raw fetch ${url} -> ${res.status}`);
      bytes += (await res.arrayBuffer()).byteLength;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // Client and server both: the site is served from this process.
  const cpuMsPerPage = round((cpu.user + cpu.system) / 1000 / urls.length, 2);
  return { pages: urls.length, seconds: round(seconds, 2), pagesPerSecond: round(urls.length / seconds, 1), bytes, cpuMsPerPage };
}

/** CPU per page of the crawler's extraction alone (parse, links, content, fragments), in this process, warm. */
function extractionCost(pages: SitePage[], site: { url: (path: string) => string }): number {
  let ms = 0;
  for (let round = 0; round < 2; round++) {
    const c0 = process.cpuUsage();
    for (const p of pages) extractPage(p.html, site.url(p.path), { fragments: ['h1'] });
    const c = process.cpuUsage(c0);
    ms = (c.user + c.system) / 1000 / pages.length;
  }
  return round(ms, 2);
}

/** The words of a page's title worth searching for: entities decoded, the site-wide suffix dropped. */
const titleQuery = (title: string) => title
  .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
  .replace(/&lt;|&gt;|&amp;|&quot;/g, ' ')
  .replace(/\s+\u2014\s+Python [\d.]+ documentation$/, '');

/** A few crawled pages looked up by their title through content search: indexed means found. */
async function searchableSample(api: ReturnType<typeof makeTarget>, index: string, pages: { url: string; title: string }[]) {
  const missing: string[] = [];
  for (const p of pages) {
    const r = await sendJson<{ results: { uid: string }[] }>(api, 'POST', '/v1/content/search', { index_uid: index, query: titleQuery(p.title), boosting: 'title content', fields: [], limit: 100 });
    if (!r.results.some((x) => x.uid === p.url)) missing.push(p.url);
  }
  return { checked: pages.length, found: pages.length - missing.length, missing };
}

/** One crawl of the site on a stack of its own, the worker's per-host delay set to `delayMs`. */
async function crawlRun(site: { url: (path: string) => string }, pages: SitePage[], delayMs: number, cleanup: Cleanup) {
  const n = pages.length;
  const stack = await startStack(root, cleanup, { QUARRY_CRAWL_ALLOW_PRIVATE: 'true', QUARRY_CRAWL_HOST_DELAY_MS: String(delayMs) });
  const api = makeTarget(stack.baseUrl, { 'x-api-key': stack.masterKey }, 16);
  cleanup.add('close client sockets', () => api.agent.destroy());
  const probe = new DbProbe(stack.dataDir);
  cleanup.add('close database', () => probe.close());

  await sendJson(api, 'POST', '/v1/admin/sources', { uid: 'bench', kind: 'website', sitemaps: [site.url('/sitemap.xml')], max_depth: 0, max_pages: Math.max(n, 1) }, [201]);
  say(`crawling (politeness: ${HOST_LIMIT_DEFAULTS.concurrency} at once, ${delayMs} ms between starts per host)`);
  const cpu = cpuMeter({ api: stack.api.pid, worker: stack.worker.pid });
  const cpuBefore = { api: cpuTimeMs(stack.api.pid), worker: cpuTimeMs(stack.worker.pid) };
  const t0 = performance.now();
  await sendJson(api, 'POST', '/v1/admin/sources/bench/crawl', undefined, [202]);
  let view: CrawlView;
  for (;;) {
    stack.assertAlive();
    view = await sendJson<CrawlView>(api, 'GET', '/v1/admin/sources/bench');
    if (view.crawl.state === 'done' || view.crawl.state === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const crawledAt = performance.now();
  if (view.crawl.state !== 'done') throw new Error(`crawl ${view.crawl.state}: ${view.crawl.last_error}`);
  const drained = await waitDrained(api, probe, 'source-bench', { expectDocuments: view.crawl.indexed, assertAlive: stack.assertAlive, pollMs: 50 });
  const crawlCpu = cpu();
  // CPU time per page, which a busy machine slows less than the rate: the worker crawls and indexes (section, embed, index).
  const cpuMsPerPage = {
    worker: round((cpuTimeMs(stack.worker.pid) - cpuBefore.worker) / n, 1),
    api: round((cpuTimeMs(stack.api.pid) - cpuBefore.api) / n, 1),
  };
  const crawlS = (crawledAt - t0) / 1000;
  const indexedS = (drained.at - t0) / 1000;
  const step = Math.max(1, Math.floor(pages.length / 10));
  const sample = await searchableSample(api, 'source-bench', pages.filter((_, i) => i % step === 0).slice(0, 10).map((p) => ({ url: site.url(p.path), title: p.title })));
  return {
    stack,
    result: {
      delayMs,
      crawl: {
        seconds: round(crawlS, 2), fetched: view.crawl.fetched, indexed: view.crawl.indexed, skipped: view.crawl.skipped, failed: view.crawl.failed,
        pagesPerSecond: round(view.crawl.fetched / crawlS, 2), problems: view.crawl.problems.slice(0, 10),
      },
      searchable: {
        seconds: round(indexedS, 2), documents: drained.status.documents, pending: drained.status.pending,
        pagesPerSecond: round(drained.status.documents / indexedS, 2), sample,
      },
      cpuDuringCrawl: crawlCpu,
      cpuMsPerPage,
    },
  };
}

const RUNS = { polite: HOST_LIMIT_DEFAULTS.minDelayMs, 'no-delay': 0 } as const;
type RunName = keyof typeof RUNS;

async function main() {
  const { values } = parseArgs({ options: { pages: { type: 'string' }, runs: { type: 'string' } }, strict: true });
  const n = values.pages === undefined ? 500 : Number(values.pages);
  if (!Number.isInteger(n) || n < 1) throw new Error('--pages must be a whole number >= 1');
  const runs = (values.runs ?? 'polite,no-delay').split(',').map((r) => r.trim());
  const unknown = runs.filter((r) => !(r in RUNS));
  if (unknown.length > 0 || runs.length === 0) throw new Error(`--runs: ${unknown.join(', ') || 'none given'}: use polite, no-delay or both, comma-separated`);
  const cleanup = new Cleanup();
  cleanup.onSignals(say);

  let stack: Stack | undefined;
  try {
    const { corpus, pages } = sitePages(n);
    const site = await startSite(pages);
    cleanup.add('stop site', () => {
      site.server.closeAllConnections();
      site.server.close();
    });
    const urls = pages.map((p) => site.url(p.path));
    const loadAvg = os.loadavg();
    const idle = cpuMeter({});
    await new Promise((r) => setTimeout(r, 2000));
    const idleCpu = idle();
    if (idleCpu.others > 25) say(`warning: the machine is already busy (${idleCpu.others}% of one core used by other processes); figures will be noisy`);

    say(`${pages.length} pages (${corpus}); raw fetch at ${HOST_LIMIT_DEFAULTS.concurrency} at once`);
    const raw = await rawFetch(urls, HOST_LIMIT_DEFAULTS.concurrency);
    const extractMsPerPage = extractionCost(pages, site);
    const output: Record<string, Record<string, string[]>> = {};
    const results: Record<string, Awaited<ReturnType<typeof crawlRun>>['result'] & { ratios: Record<string, number> }> = {};
    for (const name of runs as RunName[]) {
      say(`${name}: starting redis, API and worker`);
      // Each crawl on a stack of its own, stopped before the next starts.
      const own = new Cleanup();
      cleanup.add(`stop the ${name} stack`, () => own.run());
      const run = await crawlRun(site, pages, RUNS[name], own);
      stack = run.stack;
      const r = run.result;
      const ceiling = r.delayMs > 0 ? Math.min(raw.pagesPerSecond, 1000 / r.delayMs) : raw.pagesPerSecond;
      results[name] = {
        ...r,
        ratios: {
          crawlToRaw: Number((r.crawl.pagesPerSecond / raw.pagesPerSecond).toPrecision(3)),
          indexedToRaw: Number((r.searchable.pagesPerSecond / raw.pagesPerSecond).toPrecision(3)),
          ...(r.delayMs > 0 ? { crawlToPolitenessCeiling: round(r.crawl.pagesPerSecond / ceiling, 3), politenessCeilingPagesPerSecond: round(ceiling, 1) } : {}),
        },
      };
      output[name] = processOutput(run.stack, say);
      await own.run();
      stack = undefined;
    }

    const rows: [string, string, string][] = [
      ['raw fetch (node fetch, 2 at once)', `${raw.pages} pages in ${raw.seconds} s`, `${raw.pagesPerSecond} pages/s, ${raw.cpuMsPerPage} ms CPU/page (client and server)`],
      ['extraction alone (extractPage, in process)', `${pages.length} pages`, `${extractMsPerPage} ms CPU/page`],
    ];
    for (const [name, r] of Object.entries(results)) {
      const label = `${name} (${r.delayMs} ms between starts)`;
      const ceiling = r.ratios.crawlToPolitenessCeiling === undefined ? '' : `, ${r.ratios.crawlToPolitenessCeiling}x the ${r.ratios.politenessCeilingPagesPerSecond}/s ceiling`;
      rows.push(
        [`${label}: crawl done`, `${r.crawl.fetched} pages in ${r.crawl.seconds} s`, `${r.crawl.pagesPerSecond} pages/s (${r.ratios.crawlToRaw}x raw${ceiling})`],
        [`${label}: indexed, pending 0`, `${r.searchable.documents} docs in ${r.searchable.seconds} s`, `${r.searchable.pagesPerSecond} pages/s (${r.ratios.indexedToRaw}x raw)`],
        [`${label}: searchable sample`, `${r.searchable.sample.found}/${r.searchable.sample.checked} found by title`, `worker ${r.cpuMsPerPage.worker} ms CPU/page (${r.cpuDuringCrawl.worker}% of a core), API ${r.cpuMsPerPage.api}`],
      );
    }
    const width = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
    console.log(`\n${rows.map((r) => r.map((c, i) => c.padEnd(width[i])).join(' | ')).join('\n')}\n`);
    console.log(`CPU before start (% of one core): ${JSON.stringify(idleCpu)}; during each crawl: ${JSON.stringify(Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.cpuDuringCrawl])))}\n`);

    writeResults(root, 'crawl.json', {
      timestamp: new Date().toISOString(),
      machine: machineInfo(loadAvg, idleCpu),
      settings: { pages: pages.length, corpus, hostLimits: HOST_LIMIT_DEFAULTS, runs, source: { sitemap: true, max_depth: 0 }, embedder: 'default (glove)', workerProcesses: 1 },
      results: { raw, extractMsPerPage, runs: results },
      processOutput: output,
    }, say);
  } catch (err) {
    reportFailure(err, cleanup, stack);
  } finally {
    await cleanup.run();
  }
}

await main();
