// The web app's website-source pages end to end: a real Chromium against the real service (pipeline
// workers, Redis, SQLite) and a real crawl worker crawling a site served by node:http on 127.0.0.1.
// Every step is what an operator does; each page is checked with axe, for console errors, uncaught
// exceptions and CSP violations, and screenshotted.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureWeb } from '../../scripts/build-web.mjs';
import { createLogger } from '../../shared/logging/create-logger.js';
import type { RunningWorkers } from '../../workers/registry.js';
import { startCrawlWorker } from '../helpers/crawl-worker.js';
import {
  checkPage as checkWatchedPage, launchBrowser, signInThroughForm, tableRows as captionedRows, type TestBrowser, type WatchedPage,
} from '../helpers/browser.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';
import { html, startSite, type TestSite } from '../unit/crawl-site.js';

const UID = 'handbook';

let svc: TestService;
let site: TestSite;
let worker: RunningWorkers;
let browser: TestBrowser;
let w: WatchedPage;
let page: Page;

beforeAll(async () => {
  await ensureWeb();
  // Home links to two pages, a url that answers 404 and a PDF; there is no robots.txt (404: all allowed).
  site = await startSite({
    '/': html('<title>Handbook</title><main><h1>Handbook</h1><p>Welcome to the lantern handbook.</p>'
      + '<a href="/docs/a">Lighting</a> <a href="/docs/b">Cleaning</a> <a href="/missing">Old page</a> <a href="/file.pdf">Manual</a></main>'),
    // Slow, so each crawl runs long enough for the page to show it queued or running.
    '/docs/a': (req, res) => void setTimeout(() => html('<title>Lighting a lantern</title><main><p>Trim the wick before lighting the lantern.</p><p class="price">5 EUR</p></main>')(req, res), 2500),
    '/docs/b': html('<title>Cleaning a lantern</title><main><p>Wipe the glass chimney with a soft cloth.</p></main>'),
    '/file.pdf': (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4'),
  });
  svc = await startTestService({ env: { QUARRY_CRAWL_ALLOW_PRIVATE: 'true', QUARRY_RATE_LIMIT_CLIENT: '100000/10' } });
  worker = await startCrawlWorker(svc, createLogger('silent', 'test'), { hostLimits: { minDelayMs: 0 }, timeoutMs: 5000 });
  browser = await launchBrowser();
  w = await browser.newPage();
  page = w.page;
});

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await svc?.close();
  await site?.close();
});

const checkPage = (name: string, options: { phone?: boolean } = {}) => checkWatchedPage(w, name, options);
const heading = () => page.locator('#page-title');
const kpi = (label: string) => page.locator('.kpi', { has: page.getByText(label, { exact: true }) }).locator('.value');
const kpis = async () => Object.fromEntries(await Promise.all(
  ['Discovered', 'Fetched', 'Indexed', 'Unchanged', 'Skipped', 'Failed', 'Removed'].map(async (l) => [l.toLowerCase(), Number(await kpi(l).textContent())]),
));
/** The message under a form control, found through the control's aria-describedby as a screen reader would. */
const errorUnder = (label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((el) => {
    const ids = (el.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'));
    return { invalid: el.getAttribute('aria-invalid'), error: ids.map((id) => document.getElementById(id)?.textContent).join(' ') };
  });

const tableRows = (caption: string) => captionedRows(page, caption);

/** Presses Crawl now, sees the crawl under way (the button waits, the status says so), and waits for it to be done. */
async function crawlNow() {
  await page.getByRole('button', { name: 'Crawl now' }).click();
  await page.getByRole('button', { name: 'Crawling…' }).waitFor();
  expect(await page.getByRole('button', { name: 'Crawling…' }).isDisabled()).toBe(true);
  await page.getByRole('status').filter({ hasText: /^(Crawl queued|Crawling): .*refresh every 2 seconds/ }).waitFor();
  await page.getByRole('status').filter({ hasText: 'Crawl done.' }).waitFor({ timeout: 60_000 });
}

describe('website sources in the web app', () => {
  let failedStep: string | null = null;
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failedStep ??= ctx.task.name;
  });
  beforeEach(() => {
    if (failedStep) throw new Error(`Not run: the earlier step "${failedStep}" failed`);
  });

  it('shows Sources in the navigation, with an empty list', async () => {
    await signInThroughForm(w, svc.url, MASTER_KEY);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources' }).click();
    await expect.poll(() => heading().textContent()).toBe('Website sources');
    expect(page.url()).toBe(`${svc.url}/app/sources`);
    await page.getByText('No website sources yet.').waitFor();
    await checkPage('sources-empty');
  });

  it('shows each of the server\'s 400 problems under the field it names', async () => {
    await page.getByRole('button', { name: 'New source' }).click();
    await page.getByLabel('Source uid').fill(UID);
    await page.getByLabel('Start urls').fill(`${site.url('/')}\nftp://example.com/files`);
    await page.getByLabel('Fragment selectors').fill('.price\ndiv[[');
    await page.getByLabel('Max depth').fill('101');
    await w.expecting(/status of 400/, async () => {
      await page.getByRole('button', { name: 'Create source' }).click();
      await expect.poll(async () => (await errorUnder('Start urls')).error).toMatch(/^Line 2 \(ftp:\/\/example\.com\/files\): must be an absolute http\(s\) URL/);
    });
    expect((await errorUnder('Start urls')).invalid).toBe('true');
    expect(await errorUnder('Fragment selectors')).toEqual({ invalid: 'true', error: expect.stringMatching(/^Line 2 \(div\[\[\): "div\[\[" is not a CSS selector/) });
    expect(await errorUnder('Max depth')).toEqual({ invalid: 'true', error: 'must be from 0 to 100' });
    expect(await errorUnder('Sitemap urls')).toEqual({ invalid: null, error: '' });
    // The first field in error has the focus, so a keyboard user lands on it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('source-create-start_urls');
    expect((await svc.call('GET', `/v1/admin/sources/${UID}`)).status).toBe(404);
    await checkPage('source-create-errors', { phone: true });
  });

  it('creates the source once the fields are fixed', async () => {
    await page.getByLabel('Start urls').fill(site.url('/'));
    await page.getByLabel('Fragment selectors').fill('.price');
    await page.getByLabel('Max depth').fill('3');
    await page.getByRole('button', { name: 'Create source' }).click();
    await expect.poll(() => heading().textContent()).toBe(`Source ${UID}`);
    expect(page.url()).toBe(`${svc.url}/app/sources/${UID}`);
    await page.getByRole('status').filter({ hasText: 'Not crawled yet.' }).waitFor();
    const saved = (await svc.call('GET', `/v1/admin/sources/${UID}`)).body;
    expect(saved).toMatchObject({
      start_urls: [site.url('/')], sitemaps: [], include: [], exclude: [], max_pages: 1000, max_depth: 3,
      content_selector: null, drop_selectors: null, fragments: ['.price'], recrawl_hours: null, index_uid: `source-${UID}`,
    });
    await checkPage('source-created');
  });

  it('crawls on Crawl now, live, to the right counters, and lists the problems with their reasons', async () => {
    await crawlNow();
    expect(await kpis()).toEqual({ discovered: 5, fetched: 3, indexed: 3, unchanged: 0, skipped: 1, failed: 1, removed: 0 });
    // What the page shows is what the API says.
    const crawl = (await svc.call('GET', `/v1/admin/sources/${UID}`)).body.crawl;
    expect(crawl).toMatchObject({ state: 'done', discovered: 5, fetched: 3, indexed: 3, unchanged: 0, skipped: 1, failed: 1, removed: 0 });
    expect((await tableRows('Urls skipped or failed')).sort()).toEqual([
      [site.url('/file.pdf'), 'skipped', 'not html'],
      [site.url('/missing'), 'failed', 'not found'],
    ]);
    expect(await page.locator('#problem-totals').textContent()).toBe('2 urls not indexed: 1 skipped, 1 failed, 0 duplicates.');
    expect(await page.getByRole('button', { name: 'Crawl now' }).isEnabled()).toBe(true);
    await checkPage('source-crawled', { phone: true });
  });

  it('lists the source with its crawl, and links to its documents and to configurations', async () => {
    await page.getByRole('link', { name: 'All sources' }).click();
    await expect.poll(() => heading().textContent()).toBe('Website sources');
    await expect.poll(async () => (await tableRows('Sources'))[0]).toEqual([
      UID, `${site.url('/')}1 start url · 0 sitemaps`, 'done', '5', '3', '3', '0', '1', '1', '0', expect.any(String), 'only when asked',
    ]);
    await checkPage('sources-list', { phone: true });

    await page.getByRole('link', { name: UID, exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe(`Source ${UID}`);
    await expect.poll(() => page.locator('.notice').textContent()).toContain(`add the index source-${UID} (or the source uid ${UID}) to a configuration`);
    await page.locator('.notice').getByRole('link', { name: `source-${UID}` }).click();
    await expect.poll(() => heading().textContent()).toBe(`Index source-${UID}`);
    await expect.poll(async () => (await tableRows('Documents, page 1')).map((r) => r[0]).sort()).toEqual(
      [site.url('/'), site.url('/docs/a'), site.url('/docs/b')].sort(),
    );
    w.assertClean();
    await page.goBack();
    await expect.poll(() => heading().textContent()).toBe(`Source ${UID}`);
  });

  it('edits settings; the next crawl follows them', async () => {
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Save settings' }) });
    await form.getByLabel('Exclude patterns').fill('/docs/b');
    await form.getByLabel('Recrawl every (hours)').fill('24');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await expect.poll(() => page.locator('.index-definition').textContent()).toContain('every 24 h');
    expect((await svc.call('GET', `/v1/admin/sources/${UID}`)).body).toMatchObject({ exclude: ['/docs/b'], recrawl_hours: 24, max_depth: 3, fragments: ['.price'] });

    await crawlNow();
    // /docs/b is excluded now: not met by this finished crawl, so it leaves the index; the rest is unchanged.
    expect(await kpis()).toEqual({ discovered: 4, fetched: 2, indexed: 0, unchanged: 2, skipped: 1, failed: 1, removed: 1 });
    const view = (await svc.call('GET', `/v1/admin/sources/${UID}`)).body;
    expect(Date.parse(view.next_crawl_at)).toBe(Date.parse(view.crawl.finished_at) + 24 * 3_600_000);
    const shown = await page.evaluate((iso) => new Date(iso).toLocaleString(), view.next_crawl_at as string);
    await expect.poll(() => page.locator('.index-definition').textContent()).toContain(`Next recrawl${shown}`);
    await checkPage('source-edited');
  });

  it('deletes the source after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete source' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete source' });
    await dialog.waitFor();
    await checkPage('source-delete-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await svc.call('GET', `/v1/admin/sources/${UID}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete source' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => heading().textContent()).toBe('Website sources');
    await page.getByText('No website sources yet.').waitFor();
    expect((await svc.call('GET', `/v1/admin/sources/${UID}`)).status).toBe(404);
    w.assertClean();
  });
});
