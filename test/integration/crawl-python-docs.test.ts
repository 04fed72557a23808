/**
 * A website source crawling a real site: the Python 3.11 docs from ../shared/data served from node:http, plus
 * pages this test writes into the same site (robots.txt, a sitemap with lastmod, a redirect, a 404, a PDF, a
 * duplicate, pages that change or go). What the crawl must have fetched and indexed is worked out here from the
 * pages' own links, independently of the crawler; the server's request log says what it did fetch.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFaqQuestions, type FaqQuestion } from '../../scripts/eval/python-docs.js';
import { createLogger } from '../../shared/logging/create-logger.js';
import type { RunningWorkers } from '../../workers/registry.js';
import { startCrawlWorker } from '../helpers/crawl-worker.js';
import { loadPythonDocs, pool, SHARED_DATA } from '../helpers/python-docs.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { html, redirect, startSite, withEtag, type TestSite } from '../unit/crawl-site.js';

/** The part of the docs crawled: the FAQ and what it leads to among these prefixes (`include` is each with `*`). */
const PREFIXES = ['/faq/', '/tutorial/', '/library/s', '/library/os', '/extra/'];
/** robots.txt keeps the crawler off the os module's pages, which the FAQ links to. */
const DISALLOWED = '/library/os';
const START = '/faq/index.html';
/** `h1` is on every page; `div.versionadded` on some library pages only. */
const FRAGMENTS = ['h1', 'div.versionadded'];
const UID = 'pydocs';

let svc: TestService;
let site: TestSite;
let worker: RunningWorkers;
/** The site's HTML pages by path, as served at the time. */
const pages = new Map<string, string>();
const log = createLogger('silent', 'test');

const writtenPage = (title: string, body: string) => `<html><head><title>${title}</title></head><body><div role="main"><h1>${title}</h1>${body}</div></body></html>`;
let news = writtenPage('News', '<p>News about marzipan.</p><a href="/extra/orphan.html">orphan</a> <a href="/extra/missing.html">missing</a> <a href="/extra/guide.pdf">guide</a> <a href="/library/os.html">os</a> <a href="/faq/index.html">faq</a>');

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_CRAWL_ALLOW_PRIVATE: 'true', QUARRY_RATE_LIMIT_CLIENT: '100000/10' } });
  site = await startSite({});
  for (const page of loadPythonDocs()) {
    const path = `/${page.uid}`;
    pages.set(path, page.content);
    site.routes[path] = withEtag(`"${createHash('sha1').update(page.content).digest('hex')}"`, () => page.content);
  }
  const written: Record<string, string> = {
    '/extra/stable.html': writtenPage('Stable', '<p>Stable page about tamarind.</p>'),
    '/extra/moved-here.html': writtenPage('Moved', '<p>Moved page about quokkas.</p>'),
    '/extra/orphan.html': writtenPage('Orphan', '<p>Orphan page about gooseberries.</p>'),
    '/extra/gone.html': writtenPage('Gone', '<p>Gone page about kumquats.</p>'),
    // The same page as the docs' GUI FAQ under a second url (beside it, so its relative links still work).
    '/faq/gui-copy.html': pages.get('/faq/gui.html')!,
  };
  for (const [path, body] of Object.entries(written)) {
    pages.set(path, body);
    site.routes[path] = html(body, path === '/extra/stable.html' ? { 'last-modified': 'Mon, 05 Jan 2026 10:00:00 GMT' } : {});
  }
  pages.set('/extra/news.html', news);
  site.routes['/extra/news.html'] = (req, res) => withEtag(`"${createHash('sha1').update(news).digest('hex')}"`, () => news)(req, res);
  site.routes['/extra/old-faq'] = redirect('/extra/moved-here.html');
  site.routes['/extra/guide.pdf'] = (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
  site.routes['/robots.txt'] = (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: ${DISALLOWED}\n`);
  site.routes['/sitemap.xml'] = (_req, res) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset>${[
    ['/extra/news.html', '2026-01-10'], ['/extra/stable.html', '2026-01-01'], ['/extra/old-faq', '2026-01-01'],
    ['/faq/gui-copy.html', '2026-01-01'], ['/extra/gone.html', '2026-01-01'],
  ].map(([path, lastmod]) => `<url><loc>${site.url(path)}</loc><lastmod>${lastmod}</lastmod></url>`).join('')}</urlset>`);
  worker = await startCrawlWorker(svc, log, { hostLimits: { minDelayMs: 0 } });
});
afterAll(async () => {
  await worker?.close();
  await svc?.close();
  await site?.close();
});

const inScope = (path: string) => PREFIXES.some((p) => path.startsWith(p));
const sitemapPaths = () => ['/extra/news.html', '/extra/stable.html', '/extra/old-faq', '/faq/gui-copy.html', '/extra/gone.html'];
const redirects: Record<string, string> = { '/extra/old-faq': '/extra/moved-here.html' };

/** Paths the crawl must reach from its seeds through `<a href>` links in scope: the test's own reading of the site. */
function reachable(): Set<string> {
  const seen = new Set<string>();
  const queue = [START, ...sitemapPaths()];
  const visit = (path: string) => {
    if (seen.has(path) || !inScope(path)) return;
    seen.add(path);
    queue.push(path);
  };
  for (const seed of queue.splice(0)) visit(seed);
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (path.startsWith(DISALLOWED)) continue;
    if (redirects[path]) visit(redirects[path]);
    const body = pages.get(path);
    if (!body) continue;
    for (const [, href] of body.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const url = new URL(href.replace(/&amp;/g, '&'), site.url(path));
      if (url.origin === new URL(site.url('/')).origin) visit(url.pathname + url.search);
    }
  }
  return seen;
}

const counts = (lines: string[]) => {
  const n = new Map<string, number>();
  for (const l of lines) n.set(l, (n.get(l) ?? 0) + 1);
  return n;
};
const view = async () => (await svc.call('GET', `/v1/admin/sources/${UID}`)).body;
async function crawl() {
  expect((await svc.call('POST', `/v1/admin/sources/${UID}/crawl`)).status).toBe(202);
  expect(await waitFor(async () => ['done', 'failed'].includes((await view()).crawl.state), 120_000, 100)).toBe(true);
  expect((await view()).crawl).toMatchObject({ state: 'done', last_error: null });
  // Every page written is searchable before the test looks.
  expect(await waitFor(async () => (await svc.call('GET', `/v2/indexes/source-${UID}/status`)).body.pending === 0, 120_000, 100)).toBe(true);
}
const documents = async () => (await svc.call('GET', `/v2/indexes/source-${UID}/documents?limit=1000`)).body.documents.map((d: { uid: string }) => new URL(d.uid).pathname).sort() as string[];
const pathOf = (url: string) => new URL(url).pathname;

interface Result { title?: string; url?: string; metadata?: { selector: string; matches: Node[] }[] }
interface Node { type: 'tag' | 'text'; tag?: string; attr?: Record<string, string>; children?: Node[]; data?: string }
let toolUid: string;
/** `keyword`: only pages holding the words, for checking that a word is (or no longer is) on the indexed site. */
const search = async (query: string, retrieval: 'hybrid' | 'keyword' = 'hybrid'): Promise<Result[]> => {
  const qs = new URLSearchParams({ uid: toolUid, 'session-id': 'crawl-test', query, retrieval });
  const res = await fetch(`${svc.url}/v1/tool/search?${qs}`);
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return (body as { results: Result[] }).results;
};
const nodeText = (n: Node): string => (n.type === 'text' ? n.data ?? '' : (n.children ?? []).map(nodeText).join(''));
const decode = (s: string) => s.replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d))).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
/** The text of each `<h1>` of a page as served, markup stripped. */
const h1Texts = (body: string) => [...body.matchAll(/<h1[^>]*>([\s\S]*?)<\/h1>/g)].map(([, inner]) => decode(inner.replace(/<[^>]+>/g, '')));

describe('crawling the Python docs as a website source', () => {
  let expectedDocs: string[];
  let pair: string[];
  let crawl1Log: string[];

  it('fetches every allowed page once and nothing disallowed, and indexes every distinct page once', { timeout: 240_000 }, async () => {
    const created = await svc.call('POST', '/v1/admin/sources', {
      uid: UID, kind: 'website', start_urls: [site.url(START)], sitemaps: [site.url('/sitemap.xml')],
      include: PREFIXES.map((p) => `${p}*`), content_selector: 'div[role="main"]', fragments: FRAGMENTS,
    });
    expect(created.status).toBe(201);
    await crawl();
    crawl1Log = [...site.log];

    const reached = reachable();
    const disallowed = [...reached].filter((p) => p.startsWith(DISALLOWED));
    const allowed = [...reached].filter((p) => !p.startsWith(DISALLOWED));
    // Big enough to matter: the FAQ, the tutorial and part of the library reference.
    expect(allowed.filter((p) => pages.has(p) && !p.startsWith('/extra/')).length).toBeGreaterThan(40);
    expect(disallowed.length).toBeGreaterThan(0);

    const fetched = counts(crawl1Log);
    for (const path of [...allowed, '/robots.txt', '/sitemap.xml']) expect(fetched.get(`GET ${path}`), path).toBe(1);
    expect(crawl1Log.filter((l) => l.startsWith(`GET ${DISALLOWED}`))).toEqual([]);
    // Nothing outside the pages the links reach: what was asked for is exactly the allowed set.
    expect(fetched.size).toBe(allowed.length + 2);

    expect(allowed.filter((p) => !site.routes[p])).toEqual(['/extra/missing.html']);
    // Distinct pages: not the redirect (kept under its target), the PDF or the 404, and one of the two copies.
    pair = ['/faq/gui-copy.html', '/faq/gui.html'];
    expectedDocs = allowed.filter((p) => pages.has(p) && !pair.includes(p)).sort();
    const docs = await documents();
    expect(docs.filter((p) => pair.includes(p))).toHaveLength(1);
    expect(docs.filter((p) => !pair.includes(p))).toEqual(expectedDocs);
    const kept = docs.find((p) => pair.includes(p))!;
    const copy = pair.find((p) => p !== kept)!;

    const { crawl: c } = await view();
    expect(c).toMatchObject({ indexed: docs.length, unchanged: 0, failed: 1, removed: 0, discovered: allowed.length + disallowed.length - 1 });
    expect(c.problem_totals).toEqual({ skipped: disallowed.length + 1, failed: 1, duplicate: 2 });
    expect(Object.fromEntries(c.problems.map((p: { url: string; reason: string }) => [pathOf(p.url), p.reason]))).toEqual({
      ...Object.fromEntries(disallowed.map((p) => [p, 'disallowed by robots.txt'])),
      '/extra/guide.pdf': 'not html',
      '/extra/missing.html': 'not found',
      '/extra/old-faq': `same page as ${site.url('/extra/moved-here.html')}`,
      [copy]: `same page as ${site.url(kept)}`,
    });
  });

  it('finds the FAQ questions\' answers in a Tool configuration\'s results, each with its fragments as node trees', { timeout: 240_000 }, async () => {
    const tool = await svc.call('POST', '/v1/admin/configurations', { variant: 'tool', name: 'Python docs', indexes: [UID] });
    expect(tool.status).toBe(201);
    toolUid = tool.body.uid;
    const questions = loadFaqQuestions(join(SHARED_DATA, 'python-docs/faq_questions.jsonl'));
    expect(questions.length).toBeGreaterThan(150);

    // An answer on the GUI FAQ is on whichever of its two urls the crawl kept.
    const kept = (await documents()).find((p) => pair.includes(p))!;
    const answerPage = (q: FaqQuestion) => (pair.includes(`/${q.answer_page}`) ? kept : `/${q.answer_page}`);
    const answered = await pool(questions, 4, async (q: FaqQuestion) => ({ q, results: await search(q.question) }));
    const pageRanks = answered.map(({ q, results }) => results.findIndex((r) => r.url && pathOf(r.url) === answerPage(q)));
    const anchorRanks = answered.map(({ q, results }) => results.findIndex((r) => r.url === site.url(`${answerPage(q)}#${q.answer_anchor}`)));
    const inTop = (ranks: number[], k: number) => ranks.filter((r) => r >= 0 && r < k).length / ranks.length;
    console.log(`FAQ over the crawled site: answer page first ${inTop(pageRanks, 1)}, top 5 ${inTop(pageRanks, 5)}; answer anchor top 5 ${inTop(anchorRanks, 5)}`);
    expect(inTop(pageRanks, 5)).toBe(1);
    expect(inTop(pageRanks, 1)).toBeGreaterThan(0.9);
    expect(inTop(anchorRanks, 5)).toBeGreaterThan(0.9);

    // Every result is a crawled page: its fragments, as the page has them.
    const results = answered.flatMap((a) => a.results);
    const checked = new Set<string>();
    for (const r of results) {
      const path = pathOf(r.url!);
      if (checked.has(path)) continue;
      checked.add(path);
      const body = pages.get(path)!;
      expect(r.metadata?.map((m) => m.selector), path).toEqual(FRAGMENTS);
      const [h1, versionAdded] = r.metadata!;
      expect(h1.matches.map((n) => [n.type, n.tag]), path).toEqual(h1Texts(body).map(() => ['tag', 'h1']));
      expect(h1.matches.map(nodeText), path).toEqual(h1Texts(body));
      expect(versionAdded.matches, path).toHaveLength(body.match(/<div class="versionadded">/g)?.length ?? 0);
      for (const m of versionAdded.matches) expect(m).toMatchObject({ type: 'tag', tag: 'div', attr: { class: 'versionadded' } });
    }
    // The fragment absent from a page is there with no matches; present elsewhere with its nodes.
    expect([...checked].some((p) => !pages.get(p)!.includes('class="versionadded"'))).toBe(true);
    expect([...checked].some((p) => pages.get(p)!.includes('class="versionadded"'))).toBe(true);
  });

  it('recrawls: unchanged pages answered 304, a changed page re-indexed, gone and unlinked pages out of the results', { timeout: 240_000 }, async () => {
    expect(await search('marzipan', 'keyword')).toEqual([expect.objectContaining({ url: expect.stringContaining('/extra/news.html') })]);
    for (const word of ['gooseberries', 'kumquats']) expect(await search(word, 'keyword'), word).toHaveLength(1);
    news = writtenPage('News', '<p>News about pumpernickel.</p><a href="/extra/missing.html">missing</a> <a href="/faq/index.html">faq</a>');
    pages.set('/extra/news.html', news);
    site.routes['/extra/gone.html'] = (_req, res) => void res.writeHead(410, { 'content-type': 'text/html' }).end('<p>gone</p>');
    const before = site.responses.length;
    const docsBefore = await documents();
    await crawl();

    const responses = counts(site.responses.slice(before));
    const requested = new Set(site.responses.slice(before).map((r) => r.split(' ')[0]));
    // Every page indexed before and unchanged since: asked once, answered 304.
    const unchanged = expectedDocs.filter((p) => !['/extra/news.html', '/extra/gone.html', '/extra/orphan.html', '/extra/stable.html', '/extra/moved-here.html'].includes(p));
    expect(unchanged.length).toBeGreaterThan(40);
    for (const path of unchanged) {
      expect(responses.get(`${path} 304`), path).toBe(1);
      expect(responses.get(`${path} 200`), path).toBeUndefined();
    }
    expect(responses.get('/extra/news.html 200')).toBe(1);
    // Its sitemap lastmod is older than the copy indexed: not even a conditional request.
    expect(requested.has('/extra/stable.html')).toBe(false);
    expect(requested.has('/extra/orphan.html')).toBe(false);
    expect(responses.get('/extra/gone.html 410')).toBe(1);
    expect([...requested].filter((p) => p.startsWith(DISALLOWED))).toEqual([]);

    const docs = await documents();
    expect(docs.filter((p) => pair.includes(p))).toHaveLength(1);
    expect(docs.filter((p) => !pair.includes(p))).toEqual(expectedDocs.filter((p) => p !== '/extra/gone.html' && p !== '/extra/orphan.html'));
    const { crawl: c } = await view();
    // The copies may swap which one is kept (the crawl order decides): the one dropped then counts as removed.
    const swapped = docs.find((p) => pair.includes(p)) !== docsBefore.find((p) => pair.includes(p)) ? 1 : 0;
    expect(c).toMatchObject({ failed: 2, removed: 2 + swapped, indexed: 1 + swapped });
    expect(c.indexed + c.unchanged).toBe(docs.length);

    expect(await search('pumpernickel', 'keyword')).toEqual([expect.objectContaining({ url: expect.stringContaining('/extra/news.html') })]);
    for (const word of ['marzipan', 'gooseberries', 'kumquats']) expect(await search(word, 'keyword'), word).toEqual([]);
  });
});
