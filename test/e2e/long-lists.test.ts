// The web app's lists when the server answers them in pages (at most 1000 items and a next_cursor): an operator
// with more than a page of keys, indexes, configurations, sources, instant answers or blocked suggestions still sees
// every one of them.
// A real Chromium against the real service; the items are written straight to the store, as many as needed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureWeb } from '../../scripts/build-web.mjs';
import { PUSH_FIELDS } from '../../shared/indexes/index-schema.js';
import { IDLE_CRAWL } from '../../shared/storage/ports/source-store.js';
import { launchBrowser, signInThroughForm, tableRows, type TestBrowser, type WatchedPage } from '../helpers/browser.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

/** One more than a page. */
const N = 1001;

let svc: TestService;
let browser: TestBrowser;
let w: WatchedPage;
let page: Page;
let config: string;

beforeAll(async () => {
  await ensureWeb();
  svc = await startTestService({ workers: false, env: { QUARRY_RATE_LIMIT_CLIENT: '100000/10' } });
  const s = svc.storage;
  const now = Date.now();
  for (let i = 0; i < N; i++) {
    const n = String(i).padStart(4, '0');
    await s.keys.insert({ id: `key-${n}`, name: `key ${n}`, prefix: `qk_${n}`, permissions: ['read'], indexes: null, createdAt: now + i }, `hash-${n}`);
    await s.indexes.upsert(`ix-${n}`, 'en', PUSH_FIELDS);
    await s.configurations.insert({
      uid: `cfg-${n}`, variant: 'ui', name: `config ${n}`, indexes: ['ix-0000'], resultCount: 5, allowedOrigins: [], topQuestions: [],
      autocompleteMinQueries: 5, autocompleteMinSessions: 2, fusion: 'rrf', keywordWeight: 0.5, createdAt: now + i, updatedAt: now + i,
    });
    await s.sources.insert({
      uid: `src-${n}`, kind: 'website', indexUid: 'ix-0000', crawl: IDLE_CRAWL, createdAt: now, updatedAt: now,
      settings: { startUrls: ['https://example.com/'], sitemaps: [], include: [], exclude: [], maxPages: 10, maxDepth: 2, contentSelector: null, dropSelectors: null, fragments: [], recrawlHours: null },
    });
  }
  config = 'cfg-0000';
  for (let i = 0; i < N; i++) {
    await s.configurations.insertInstantAnswer({
      id: `answer-${String(i).padStart(4, '0')}`, configurationUid: config, title: `answer ${i}`, content: '<p>yes</p>', url: null, keywords: [],
      configuration: null, createdAt: now + i, updatedAt: now + i,
    });
    await s.events.blockSuggestion(config, `blocked ${String(i).padStart(4, '0')}`, now);
    await s.conversations.append(config, `conversation-${String(i).padStart(4, '0')}`, 'session-hash', { question: 'q', reply: 'r', references: [], at: now - i });
  }
  browser = await launchBrowser();
  w = await browser.newPage();
  page = w.page;
  await signInThroughForm(w, svc.url, MASTER_KEY);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/**
 * Opens a page of the app and reads its table once loaded, with nothing reported on the page (axe and screenshots
 * are web-app.test.ts's: over a thousand rows they take a minute a page).
 */
async function rowsOf(path: string, caption: string) {
  await page.goto(`${svc.url}/app${path}`);
  await page.locator('caption > span', { hasText: new RegExp(`^${caption}$`) }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  w.assertClean();
  return tableRows(page, caption);
}

it(`lists all ${N} keys, indexes, configurations and sources, past the server's page of 1000`, async () => {
  expect((await svc.call('GET', '/v1/admin/keys')).body.keys).toHaveLength(1000);
  const cases = [
    { path: '/keys', caption: 'API keys', text: 'key 1000' },
    { path: '/indexes', caption: 'Indexes', text: 'ix-1000' },
    { path: '/configurations', caption: 'Configurations', text: 'config 1000' },
    { path: '/sources', caption: 'Sources', text: 'src-1000' },
  ];
  for (const c of cases) {
    const rows = await rowsOf(c.path, c.caption);
    expect(rows, c.path).toHaveLength(N);
    expect(rows.some((r) => r.some((cell) => cell.includes(c.text))), c.path).toBe(true);
  }
});

it(`lists all ${N} instant answers of a configuration`, async () => {
  const rows = await rowsOf(`/configurations/${config}/instant-answers`, 'Instant answers');
  expect(rows).toHaveLength(N);
});

it(`lists all ${N} blocked suggestions of a configuration`, async () => {
  await page.goto(`${svc.url}/app/configurations/${config}`);
  const items = page.getByRole('list', { name: 'Blocked suggestions' }).getByRole('listitem');
  await items.first().waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  w.assertClean();
  expect(await items.count()).toBe(N);
  expect(await items.last().textContent()).toContain('blocked 1000');
});

it(`shows the first 1000 of ${N} conversations on insights, and the rest on Show more`, async () => {
  await page.goto(`${svc.url}/app/configurations/${config}/insights`);
  await page.locator('caption > span', { hasText: /^Conversations$/ }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  expect(await tableRows(page, 'Conversations')).toHaveLength(1000);
  await page.getByRole('button', { name: 'Show more conversations' }).click();
  await page.getByRole('button', { name: 'Show more conversations' }).waitFor({ state: 'detached' });
  // The button can go before the last page's rows are drawn (CI saw 1000 rows once): wait for row N itself.
  const conversations = page.locator('table', { has: page.locator('caption > span', { hasText: /^Conversations$/ }) });
  await conversations.locator('tbody tr').nth(N - 1).waitFor();
  w.assertClean();
  const rows = await tableRows(page, 'Conversations');
  expect(rows).toHaveLength(N);
  expect(new Set(rows.map((r) => r[3])).size).toBe(N);
});
