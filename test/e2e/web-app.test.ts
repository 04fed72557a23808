// The operators' web app end to end, in a real Chromium against the real service (workers, Redis,
// SQLite, a stand-in chat model): every step an operator takes, in order, each page screenshotted
// and checked with axe, with no console error, uncaught exception or CSP violation along the way.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureWeb } from '../../scripts/build-web.mjs';
import { startStubChat } from '../../scripts/bench/stub-chat-server.js';
import { OpenAiChatModel } from '../../shared/llm/adapters/openai-chat-model.js';
import {
  PHONE, SIGNED_OUT_PROBE, checkPage as checkWatchedPage, launchBrowser, screenshot, tableRows as captionedRows,
  type TestBrowser, type WatchedPage,
} from '../helpers/browser.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

/** What Try it shows while an answer is generated: the placeholder a widget shows (web/src/components/config-try.tsx). */
const ANSWER_PLACEHOLDER = 'Thinking about your question…';

const INDEX = 'docs';
const PAGES = [
  { uid: 'pip', title: 'Installing packages with pip', content: '<h2 id="pip">Using pip</h2><p>Pip is the package installer for Python. Run python -m pip install requests to install the requests package from the Python Package Index.</p>', source_url: 'https://docs.example.com/pip' },
  { uid: 'venv', title: 'Virtual environments', content: '<h2 id="venv">Creating virtual environments</h2><p>A virtual environment is a self-contained directory tree with a Python installation. Create one with python -m venv tutorial-env before installing packages.</p>', source_url: 'https://docs.example.com/venv' },
  { uid: 'lists', title: 'Lists', content: '<h2 id="lists">More on lists</h2><p>You can append items to a list with list.append and sort a list in place with list.sort.</p>', source_url: 'https://docs.example.com/lists' },
  { uid: 'dicts', title: 'Dictionaries', content: '<h2 id="dicts">Dictionaries</h2><p>A dictionary maps keys to values. Look a value up with d[key] and iterate over the items with d.items().</p>', source_url: 'https://docs.example.com/dicts' },
  { uid: 'errors', title: 'Errors and exceptions', content: '<h2 id="errors">Handling exceptions</h2><p>Use try and except to handle exceptions; finally runs clean-up code whatever happened.</p>', source_url: 'https://docs.example.com/errors' },
];

let svc: TestService;
let stub: Awaited<ReturnType<typeof startStubChat>>;
let browser: TestBrowser;
let w: WatchedPage;
let page: Page;
/** Bodies of every JSON response the app received from the service, to look for the key's secret. */
const bodies: Promise<{ method: string; path: string; body: string }>[] = [];

beforeAll(async () => {
  await ensureWeb();
  stub = await startStubChat();
  stub.state.delayMs = 0;
  const chatModel = new OpenAiChatModel({ baseUrl: stub.url, model: 'stub-model', timeoutMs: 10_000, firstTokenTimeoutMs: 10_000, retries: 1 });
  svc = await startTestService({ chatModel, env: { QUARRY_RATE_LIMIT_CLIENT: '100000/10' } });
  browser = await launchBrowser();
  w = await browser.newPage();
  page = w.page;
  page.on('response', (r) => {
    if (!r.url().startsWith(svc.url) || !(r.headers()['content-type'] ?? '').includes('json')) return;
    bodies.push(r.text().then((body) => ({ method: r.request().method(), path: new URL(r.url()).pathname, body }), () => ({ method: '', path: '', body: '' })));
  });
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await stub?.close();
});

/** What every page visit must pass: nothing reported on the page, axe clean, and a screenshot to look at. */
const checkPage = (name: string, options: { phone?: boolean } = {}) => checkWatchedPage(w, name, options);

const heading = () => page.locator('#page-title');
const kpi = (label: string) => page.locator('.kpi', { has: page.getByText(label, { exact: true }) }).locator('.value');

/** The cells of a table found by its caption, row by row. */
const tableRows = (caption: string) => captionedRows(page, caption);

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n') row.push(cell), rows.push(row), (row = []), (cell = '');
    else if (c !== '\r') cell += c;
  }
  return rows;
}

async function push(key: string, documents: unknown[]) {
  return fetch(`${svc.url}/v2/indexes/${INDEX}/documents`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ documents }),
  });
}

async function publicCall(method: 'GET' | 'POST', path: string, params: Record<string, string>) {
  const res = method === 'GET'
    ? await fetch(`${svc.url}${path}?${new URLSearchParams(params)}`)
    : await fetch(`${svc.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('the web app, as an operator uses it', () => {
  let secret = '';
  let configUid = '';
  // Each step starts where the previous one left the app: after a failure the rest would only time out.
  let failedStep: string | null = null;
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failedStep ??= ctx.task.name;
  });
  beforeEach(() => {
    if (failedStep) throw new Error(`Not run: the earlier step "${failedStep}" failed`);
  });

  it('refuses a wrong key with a message, then signs in with the master key', async () => {
    await w.expecting(SIGNED_OUT_PROBE, () => page.goto(`${svc.url}/`));
    expect(page.url()).toBe(`${svc.url}/app/`);
    await page.getByLabel('Admin key').fill('not-the-right-key');
    await w.expecting(/status of 401/, async () => {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('That key is not valid');
    });
    await checkPage('01-sign-in-wrong-key', { phone: true });
    await page.getByLabel('Admin key').fill(MASTER_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading().textContent()).toBe('Indexes');
    expect(page.url()).toBe(`${svc.url}/app/indexes`);
  });

  it('creates a push index', async () => {
    await page.getByText('No indexes yet.').waitFor();
    await page.getByRole('button', { name: 'New index' }).click();
    await page.getByLabel('Index uid').fill(INDEX);
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.getByRole('status').filter({ hasText: `Index ${INDEX} created.` }).waitFor();
    await expect.poll(async () => (await tableRows('Indexes'))[0]?.slice(0, 4)).toEqual([INDEX, 'push', 'en', '0']);
    expect((await svc.call('GET', `/v1/admin/indexes/${INDEX}`)).status).toBe(200);
    await checkPage('02-indexes');
  });

  it('creates a key with read and write, shows its secret once, and never again', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await expect.poll(() => heading().textContent()).toBe('API keys');
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByLabel('Name').fill('docs crawler');
    await page.getByRole('checkbox', { name: /^write/ }).check();
    expect(await page.getByRole('checkbox', { name: /^read/ }).isChecked()).toBe(true);
    // An admin key applies to every index (the server refuses a scope for it): the form offers none then.
    const onlySome = page.getByRole('radio', { name: 'Only the indexes checked below' });
    await onlySome.check();
    await page.getByRole('checkbox', { name: INDEX, exact: true }).check();
    await page.getByRole('checkbox', { name: /^admin/ }).check();
    await page.getByText('An admin key applies to every index.').waitFor();
    expect(await onlySome.isDisabled()).toBe(true);
    expect(await page.getByRole('radio', { name: 'All indexes' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: INDEX, exact: true }).count()).toBe(0);
    await checkPage('03-key-admin-no-scope');
    await page.getByRole('checkbox', { name: /^admin/ }).uncheck();
    await page.getByRole('radio', { name: 'All indexes' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key “docs crawler” created' }).waitFor();
    secret = (await page.getByLabel('The new API key').textContent())!.trim();
    expect(secret.length).toBeGreaterThan(20);
    await checkPage('03-key-created');

    await page.reload();
    await expect.poll(() => tableRows('API keys')).toHaveLength(1);
    expect(await page.content()).not.toContain(secret);
    const [row] = await tableRows('API keys');
    expect(row.slice(0, 3)).toEqual(['docs crawler', `${secret.slice(0, row[1].length - 1)}…`, 'read, write']);
    expect(JSON.stringify((await svc.call('GET', '/v1/admin/keys')).body)).not.toContain(secret);
    const seen = (await Promise.all(bodies)).filter((b) => b.body.includes(secret));
    expect(seen.map((b) => `${b.method} ${b.path}`)).toEqual(['POST /v1/admin/keys']);
    await checkPage('04-keys');
  });

  it('shows pushed documents arriving on the index page until every one is indexed', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Indexes' }).click();
    await page.getByRole('link', { name: INDEX, exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe(`Index ${INDEX}`);
    await expect.poll(() => kpi('Documents').textContent()).toBe('0');

    const res = await push(secret, PAGES);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: PAGES.length, rejected: 0 });
    // The page polls the index's progress: its figures, not a timer here, say when indexing is done.
    await expect.poll(() => kpi('Indexed').textContent(), { timeout: 90_000, interval: 250 }).toBe(String(PAGES.length));
    expect(await kpi('Documents').textContent()).toBe(String(PAGES.length));
    expect(await kpi('Pending').textContent()).toBe('0');
    expect(await kpi('Failed').textContent()).toBe('0');
    await page.getByText('Nothing pending.').waitFor();
    await page.getByRole('button', { name: 'Refresh documents' }).click();
    await expect.poll(async () => (await tableRows('Documents, page 1')).map((r) => r[0])).toEqual(PAGES.map((p) => p.uid).sort());
    await checkPage('05-index-detail', { phone: true });
  });

  it('opens a document and its sections as they are searched', async () => {
    await page.getByRole('link', { name: 'pip', exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe('Document pip');
    await page.getByRole('heading', { name: /Using pip/ }).waitFor();
    await expect.poll(() => page.locator('.document-sections').textContent()).toContain('Pip is the package installer for Python');
    await checkPage('06-document');
  });

  it('creates a configuration over the index, with top questions and an instant answer', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configurations' }).click();
    await expect.poll(() => heading().textContent()).toBe('Search configurations');
    await page.getByRole('button', { name: 'New configuration' }).click();
    await page.getByLabel('Name').fill('Docs search');
    await page.getByRole('checkbox', { name: new RegExp(`^${INDEX}`) }).check();
    await page.getByRole('button', { name: 'Create configuration' }).click();
    await page.waitForURL(/\/app\/configurations\/[^/]+\/settings$/);
    configUid = decodeURIComponent(page.url().split('/').at(-2)!);
    const stored = (await svc.call('GET', `/v1/admin/configurations/${configUid}`)).body;
    expect(stored).toMatchObject({ variant: 'ui', name: 'Docs search', indexes: [INDEX], result_count: 10 });
    await expect.poll(() => heading().textContent()).toBe('Docs search · Settings');
    await checkPage('07-configuration-settings');

    await page.getByRole('navigation', { name: 'Configuration sections' }).getByRole('link', { name: 'Top questions' }).click();
    for (const q of ['How do I install packages?', 'How do I create a virtual environment?']) {
      await page.getByLabel('New question').fill(q);
      await page.getByRole('button', { name: 'Add question' }).click();
      await page.getByRole('status').filter({ hasText: `Added “${q}”.` }).waitFor();
    }
    await page.getByRole('button', { name: 'Move up: How do I create a virtual environment?' }).click();
    await page.getByRole('status').filter({ hasText: 'to position 1' }).waitFor();
    const order = ['How do I create a virtual environment?', 'How do I install packages?'];
    expect(await page.getByRole('list', { name: 'Top questions' }).locator('li .grow').allTextContents()).toEqual(order);
    expect((await publicCall('GET', '/v1/ui/top-questions', { uid: configUid })).body).toEqual({ questions: order.map((question) => ({ question })) });
    await checkPage('08-top-questions');

    await page.getByRole('navigation', { name: 'Configuration sections' }).getByRole('link', { name: 'Instant answers' }).click();
    await page.getByRole('button', { name: 'New instant answer' }).click();
    await page.getByLabel('Title').fill('Refund policy');
    await page.getByLabel('Content (HTML)').fill('<p onclick="alert(2)">Refunds within <strong>30 days</strong>.</p><script>alert(1)</script><a href="javascript:alert(3)">Read more</a>');
    await page.getByLabel('Keywords').fill('refund');
    await page.getByLabel('URL', { exact: true }).fill('https://docs.example.com/refunds');
    await page.getByRole('button', { name: 'Create instant answer' }).click();
    await page.getByRole('status').filter({ hasText: 'Created “Refund policy”.' }).waitFor();
    const preview = page.getByTestId('instant-answer-preview').locator('.preview-body');
    expect(await preview.innerHTML()).not.toMatch(/script|onclick|alert/);
    expect(await preview.locator('strong').textContent()).toBe('30 days');
    await expect.poll(async () => (await tableRows('Instant answers'))[0]?.slice(0, 3)).toEqual(['Refund policy', 'refund', 'https://docs.example.com/refunds']);
    await checkPage('09-instant-answers');
  });

  it('tries a search, a summary and a chat as previews that leave no trace', async () => {
    await svc.flushEvents();
    const before = await svc.tableCounts();
    await page.getByRole('navigation', { name: 'Configuration sections' }).getByRole('link', { name: 'Try it' }).click();
    await page.getByLabel('Query').fill('how do I install packages with pip');
    // Hold the summary back, as a slow model would, to see the placeholder a widget shows meanwhile.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/v1/ui/summary?*', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const summary = page.locator('section[aria-labelledby="try-summary-title"]');
    await summary.getByText(ANSWER_PLACEHOLDER).waitFor();
    await screenshot(page, '10-try-it-placeholder');
    release();
    const results = page.locator('section[aria-labelledby="try-results-title"] ol.results > li');
    await expect.poll(() => results.count()).toBeGreaterThan(0);
    expect(await results.first().textContent()).toContain('Using pip');
    await summary.getByRole('list', { name: 'References' }).waitFor();
    await page.unroute('**/v1/ui/summary?*');
    expect(await summary.textContent()).toContain('Pip installs packages from the Python Package Index');
    await page.getByLabel('Message').fill('What is pip?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('log', { name: 'Chat conversation' }).getByRole('list', { name: 'References' }).waitFor();
    await checkPage('10-try-it');

    await svc.flushEvents();
    expect(await svc.tableCounts()).toEqual(before);
    const insights = (await svc.call('GET', `/v1/admin/configurations/${configUid}/insights?from=2000-01-01&to=2100-01-01`)).body;
    expect(insights).toMatchObject({ searches: 0, clicks: 0, summaries: 0, chats: 0 });

    await page.getByRole('navigation', { name: 'Configuration sections' }).getByRole('link', { name: 'Install' }).click();
    await page.getByText(configUid, { exact: true }).first().waitFor();
    await checkPage('11-install');
  });

  it('shows exactly the searches, clicks and no-result queries visitors made, and exports them as CSV', async () => {
    const searches = [
      { query: 'install packages with pip', session: 'visitor-1', click: [1] },
      { query: 'install packages with pip', session: 'visitor-2', click: [1] },
      { query: 'virtual environment', session: 'visitor-1', click: [1, 2] },
      { query: 'refund', session: 'visitor-3', click: [1] },
      { query: 'sort a list', session: 'visitor-3', click: [] },
      { query: 'xqzzv blorptangle', session: 'visitor-3', click: [] },
      { query: 'xqzzv blorptangle', session: 'visitor-2', click: [] },
      { query: 'qqqzx', session: 'visitor-1', click: [] },
    ];
    const made = { searches: 0, clicks: 0, withClick: 0, queries: new Map<string, { searches: number; clicks: number }>(), noResults: new Map<string, number>(), positions: new Map<number, number>() };
    for (const s of searches) {
      const r = await publicCall('GET', '/v1/ui/search', { uid: configUid, query: s.query, 'session-id': s.session, device: 'desktop' });
      expect(r.status).toBe(200);
      made.searches++;
      const q = made.queries.get(s.query) ?? { searches: 0, clicks: 0 };
      q.searches++;
      made.queries.set(s.query, q);
      if (r.body.results.length === 0) made.noResults.set(s.query, (made.noResults.get(s.query) ?? 0) + 1);
      if (s.query === 'refund') expect(r.body.results[0]).toMatchObject({ type: 'instant_answer', url: 'https://docs.example.com/refunds' });
      const clicked = s.click.filter((p) => p <= r.body.results.length);
      for (const p of clicked) {
        const f = await publicCall('POST', '/v1/ui/feedback', { type: 'click', feedback_data: r.body.results[p - 1].feedback_data });
        expect(f.status).toBe(204);
        made.clicks++;
        q.clicks++;
        made.positions.set(p, (made.positions.get(p) ?? 0) + 1);
      }
      if (clicked.length) made.withClick++;
    }
    expect(made.noResults.size).toBeGreaterThan(0);
    expect(made.clicks).toBeGreaterThan(3);
    const answered = await publicCall('GET', '/v1/ui/summary', { uid: configUid, query: 'How do I install packages with pip?', 'session-id': 'visitor-1' });
    expect(answered.body.status).toBe('success');
    await svc.flushEvents();

    await page.getByRole('navigation', { name: 'Configuration sections' }).getByRole('link', { name: 'Insights' }).click();
    await expect.poll(() => heading().textContent()).toBe('Docs search · Insights');
    await expect.poll(() => kpi('Searches').textContent()).toBe(String(made.searches));
    expect(await kpi('Sessions').textContent()).toBe('3');
    expect(await kpi('Click-through rate').textContent()).toBe(`${((made.withClick / made.searches) * 100).toFixed(1)}%`);
    const noResultSearches = [...made.noResults.values()].reduce((a, b) => a + b, 0);
    expect(await kpi('No-result rate').textContent()).toBe(`${((noResultSearches / made.searches) * 100).toFixed(1)}%`);
    expect(await kpi('Summaries answered').textContent()).toBe('1');
    expect(await kpi('Chats answered').textContent()).toBe('0');
    await page.getByRole('img', { name: /Line chart of searches and sessions per day/ }).locator('canvas').first().waitFor();

    const sortRows = (rows: string[][]) => [...rows].sort((a, b) => a[0].localeCompare(b[0]));
    const topQueries = sortRows(await tableRows('Top queries'));
    expect(topQueries).toEqual(sortRows([...made.queries].map(([q, v]) => [q, String(v.searches), String(v.clicks)])));
    const noResults = sortRows((await tableRows('No-result queries')).map((r) => r.slice(0, 2)));
    expect(noResults).toEqual(sortRows([...made.noResults].map(([q, n]) => [q, String(n)])));
    const positions = (await tableRows('Click positions')).map((r) => r.slice(0, 2));
    expect(positions).toEqual([...made.positions].sort((a, b) => a[0] - b[0]).map(([p, n]) => [String(p), String(n)]));
    await checkPage('12-insights', { phone: true });

    // The CSV holds exactly the rows the page shows, which are the API's.
    const api = (await svc.call('GET', `/v1/admin/configurations/${configUid}/insights?from=2000-01-01&to=2100-01-01&limit=50`)).body;
    for (const [caption, fromApi] of [
      ['Top queries', api.top_queries.map((r: { query: string; searches: number; clicks: number }) => [r.query, String(r.searches), String(r.clicks)])],
      ['No-result queries', api.no_result_queries.map((r: { query: string; searches: number }) => [r.query, String(r.searches)])],
    ] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Export CSV of ${caption}` }).click()]);
      const csv = parseCsv(readFileSync((await download.path())!, 'utf8'));
      const shown = (await tableRows(caption)).map((r) => r.slice(0, csv[0].length));
      expect(csv[0]).toEqual(caption === 'Top queries' ? ['Query', 'Searches', 'Clicks'] : ['Query', 'Searches']);
      expect(csv.slice(1)).toEqual(shown);
      expect(sortRows(csv.slice(1))).toEqual(sortRows(fromApi));
    }
    w.assertClean();
  });

  it('revokes the key after confirming, and the push API refuses it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await expect.poll(async () => (await tableRows('API keys'))[0]?.[5]).not.toBe('never');
    await page.getByRole('button', { name: 'Revoke key docs crawler' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke key' });
    await dialog.waitFor();
    await screenshot(page, '13-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('status').filter({ hasText: 'Key “docs crawler” revoked' }).waitFor();
    await expect.poll(async () => (await tableRows('API keys'))[0]?.[6]).toMatch(/^revoked/);
    const res = await push(secret, [{ uid: 'late', title: 'Late', content: '<p>too late</p>' }]);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 401, message: 'Invalid API key' });
    await checkPage('14-key-revoked');
  });

  it('shows the operations overview', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operations' }).click();
    await expect.poll(() => heading().textContent()).toBe('Operations');
    await page.locator('table').first().waitFor();
    await checkPage('15-operations');
  });

  it('shows an API error message instead of a blank page', async () => {
    await w.expecting(/status of 404/, async () => {
      await page.goto(`${svc.url}/app/indexes/does-not-exist`);
      await expect.poll(() => page.getByRole('alert').textContent()).toContain("Index 'does-not-exist' does not exist");
    });
    await checkPage('16-api-error');
  });

  it('works at 375 px: the menu opens and navigates', async () => {
    await page.setViewportSize(PHONE);
    try {
      await page.goto(`${svc.url}/app/indexes`);
      await expect.poll(() => heading().textContent()).toBe('Indexes');
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configurations' }).isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await screenshot(page, '17-phone-menu');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configurations' }).click();
      await expect.poll(() => heading().textContent()).toBe('Search configurations');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await checkPage('18-phone-configurations');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('signs out: the sign-in form shows and the old cookie no longer opens the admin API', async () => {
    const [cookie] = await browser.context.cookies(svc.url);
    expect(cookie.name).toBe('quarry_session');
    const withCookie = () => fetch(`${svc.url}/v1/admin/indexes`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect((await withCookie()).status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin key').waitFor();
    expect(await browser.context.cookies(svc.url)).toEqual([]);
    expect((await withCookie()).status).toBe(401);
    await w.expecting(SIGNED_OUT_PROBE, () => page.reload());
    await page.getByLabel('Admin key').waitFor();
    await checkPage('19-signed-out');
  });
});
