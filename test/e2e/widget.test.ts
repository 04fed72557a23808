// The embeddable widget end to end, in a real Chromium: the real service (workers, Redis, SQLite, a stand-in
// chat model) on 127.0.0.1:<port>, and a customer's page on http://localhost:<other port> that loads
// /widget.js from it, so every widget request is cross-origin, as on a real website.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { ensureWidget } from '../../scripts/build-widget.mjs';
import { startStubChat } from '../../scripts/bench/stub-chat-server.js';
import { OpenAiChatModel } from '../../shared/llm/adapters/openai-chat-model.js';
import { PHONE, expectNoSeriousA11yViolations, launchBrowser, screenshot, type TestBrowser, type WatchedPage } from '../helpers/browser.js';
import { HOST_SCRIPT, hostPage, startHostServer, type HostServer } from '../helpers/host-page.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { clientAddress, widgetCall } from '../helpers/widget-client.js';

const INDEX = 'docs';
const PAGES = [
  { uid: 'install', title: 'Installing the CLI', content: '<h2 id="install">Install with npm</h2><p>Install the acme command line tool with npm install -g acme-cli. It needs Node 20 or later.</p>' },
  { uid: 'config', title: 'Configuration file', content: '<h2 id="config">Configuring acme</h2><p>Acme reads acme.toml from the project folder. Set the region and the output format there.</p>' },
  { uid: 'deploy', title: 'Deploying', content: '<h2 id="deploy">Deploy your site</h2><p>Run acme deploy to upload the build folder. Each deploy gets its own preview address.</p>' },
  { uid: 'logs', title: 'Logs', content: '<h2 id="logs">Reading logs</h2><p>The command acme logs --follow streams the logs of the latest deploy.<br>Press Ctrl-C to stop following.</p>' },
  { uid: 'billing', title: 'Billing', content: '<h2 id="billing">Plans and invoices</h2><p>Invoices are sent by email at the start of each month. Change your plan on the billing page.</p>' },
];
const TOP_QUESTIONS = ['How do I install acme?', 'How do I deploy my site?'];
/** Asked from three sessions before the browser comes: what autocomplete may then suggest. */
const SEEDED_QUERY = 'install acme cli';
/** The stand-in model's answer, supported by the install section (so the citation check keeps it). */
const MODEL_REPLY = 'Install the acme command line tool with npm install -g acme-cli; it needs Node 20 or later [1].';

/** The hostile stylesheet a careless site might have: it must not reach into the widget. */
const HOSTILE_CSS = '* { color: red !important; font-size: 40px; font-family: "Courier New", monospace; } button { display: none; } input { background: yellow; border: 5px solid green; }\n';
/** The site's own, ordinary stylesheet: the widget's CSS must not change what it does. */
const SITE_CSS = 'body { font-family: Georgia, serif; margin: 2rem; } h1 { color: #123456; } p { line-height: 1.3; } button { padding: 4px 10px; border-radius: 2px; }\n';

let svc: TestService;
let stub: Awaited<ReturnType<typeof startStubChat>>;
let host: HostServer;
let browser: TestBrowser;
/** The configuration the host page's origin (http://localhost:<port>) is allowed for, and only it. */
let uid = '';

const widgetTag = (extra = '') => `<script src="${svc.url}/widget.js" data-uid="${uid}" defer${extra}></script>`;
/** Where a pushed document lives: the docs site's page for it. */
const docsUrl = (doc: string) => `${host.otherOrigin}/docs/${doc}`;
const STRICT_CSP = () => `default-src 'self'; script-src 'self' ${svc.url}; connect-src ${svc.url}; style-src 'self'`;

beforeAll(async () => {
  await ensureWidget();
  stub = await startStubChat();
  stub.state.delayMs = 0;
  stub.state.reply = () => MODEL_REPLY;
  const chatModel = new OpenAiChatModel({ baseUrl: stub.url, model: 'stub-model', timeoutMs: 10_000, firstTokenTimeoutMs: 10_000, retries: 1 });
  svc = await startTestService({ chatModel, env: { QUARRY_RATE_LIMIT_CLIENT: '100000/10', QUARRY_RATE_LIMIT_UID: '100000/10' } });
  host = await startHostServer();
  // The documents' own site: the host server under its other origin (a third site, as far as the widget knows).

  expect((await svc.call('POST', '/v1/admin/indexes', { uid: INDEX })).status).toBe(201);
  for (const { uid: doc, ...body } of PAGES) {
    expect((await svc.call('PUT', `/v2/indexes/${INDEX}/documents/${doc}`, { ...body, source_url: docsUrl(doc) })).status).toBe(204);
    host.set(`/docs/${doc}`, { type: 'text/html', body: `<!doctype html><html lang="en"><title>${body.title}</title><h1>${body.title}</h1></html>` });
  }
  const progress = await waitFor(async () => {
    const p = (await svc.call('GET', `/v1/admin/indexes/${INDEX}`)).body.progress;
    return p.pending === 0 ? p : null;
  }, 90_000, 200);
  expect(progress).toBeTruthy();
  const created = await svc.call('POST', '/v1/admin/configurations', {
    variant: 'ui', name: 'Docs search', indexes: [INDEX], result_count: 5, allowed_origins: [host.origin],
    top_questions: TOP_QUESTIONS, autocomplete_min_queries: 3, autocomplete_min_sessions: 3,
  });
  expect(created.status).toBe(201);
  uid = created.body.uid;
  const answer = await svc.call('POST', `/v1/admin/configurations/${uid}/instant-answers`, {
    title: 'Refund policy', content: '<p>Refunds within <strong>30 days</strong> of purchase.</p>', url: docsUrl('refunds'),
    keywords: ['refund'], configuration: { cta: 'Request a refund' },
  });
  expect(answer.status).toBe(201);
  for (const page of ['refunds', 'support']) host.set(`/docs/${page}`, { type: 'text/html', body: `<!doctype html><html lang="en"><title>${page}</title><h1>${page}</h1></html>` });
  // Autocomplete shows only what at least three sessions asked from three addresses: three visitors asked before.
  for (const [n, session] of ['seed-1', 'seed-2', 'seed-3'].entries()) {
    const r = await widgetCall(svc.url, 'GET', '/v1/ui/search', { uid, query: SEEDED_QUERY, 'session-id': session, device: 'desktop' }, { from: clientAddress(n) });
    expect(r.status).toBe(200);
  }
  await svc.flushEvents();
  const suggested = await (await fetch(`${svc.url}/v1/ui/autocomplete?${new URLSearchParams({ uid, query: 'inst' })}`)).json();
  expect(suggested).toEqual({ suggestions: [{ suggestion: SEEDED_QUERY }] });

  host.set('/host.js', { type: 'text/javascript', body: HOST_SCRIPT });
  host.set('/site.css', { type: 'text/css', body: SITE_CSS });
  host.set('/hostile.css', { type: 'text/css', body: HOSTILE_CSS });
  host.set('/', { type: 'text/html', body: hostPage({ title: 'Docs with search', widgetTag: widgetTag(), stylesheets: ['/site.css'] }) });
  // This page uses the element form (for frameworks): the script only defines <quarry-search>.
  const element = `<script src="${svc.url}/widget.js" defer></script><quarry-search uid="${uid}"></quarry-search>`;
  host.set('/strict', {
    type: 'text/html', body: hostPage({ title: 'Docs with a strict CSP', widgetTag: element, stylesheets: ['/site.css'] }),
    headers: { 'content-security-policy': STRICT_CSP() },
  });
  host.set('/hostile', { type: 'text/html', body: hostPage({ title: 'Docs with hostile CSS', widgetTag: widgetTag(), stylesheets: ['/hostile.css'] }) });
  host.set('/modal', { type: 'text/html', body: hostPage({ title: 'Docs with a search modal', widgetTag: widgetTag(' data-mode="modal"'), stylesheets: ['/site.css'] }) });
  host.set('/support', { type: 'text/html', body: hostPage({ title: 'Docs with support', widgetTag: widgetTag(` data-support-url="${docsUrl('support')}"`), stylesheets: ['/site.css'] }) });
  host.set('/plain', { type: 'text/html', body: hostPage({ title: 'Docs without the widget', stylesheets: ['/site.css'] }) });
  host.set('/hostile-plain', { type: 'text/html', body: hostPage({ title: 'Hostile CSS without the widget', stylesheets: ['/hostile.css'] }) });

  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await svc?.close();
  await stub?.close();
});

/** Every figure insights has for the configuration, after the buffered events are written. */
async function insights() {
  await svc.flushEvents();
  const r = await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=2000-01-01&to=2100-01-01&limit=100`);
  expect(r.status).toBe(200);
  return r.body as {
    searches: number; clicks: number; summaries: number; chats: number; support_forwards: number; top_queries: { query: string; searches: number; clicks: number }[];
    devices: { device: string; searches: number }[];
  };
}

/** Requests the browser sends to the service under `path` (from any tab: a result click may navigate away). */
function requestsTo(path: string): Request[] {
  const seen: Request[] = [];
  browser.context.on('request', (r) => {
    if (r.url().startsWith(`${svc.url}${path}`)) seen.push(r);
  });
  return seen;
}

/** The parameters a widget request carried: its query string overlaid by its JSON body, as the API reads them. */
function paramsOf(r: Request): Record<string, string> {
  const params: Record<string, string> = Object.fromEntries(new URL(r.url()).searchParams);
  const body = r.postData();
  if (body) Object.assign(params, JSON.parse(body));
  return params;
}

async function openHost(path = '/', origin = host.origin): Promise<WatchedPage> {
  const w = await browser.newPage();
  await w.page.goto(`${origin}${path}`);
  return w;
}

/** Nothing in the page or the widget's shadow root is still loading (aria-busy, which also shows the results' progress bar). */
async function settled(page: Page) {
  await page.waitForFunction(() => {
    const busy = (root: Document | ShadowRoot): boolean =>
      root.querySelector('[aria-busy="true"]') !== null || [...root.querySelectorAll('*')].some((el) => el.shadowRoot && busy(el.shadowRoot));
    return !busy(document);
  });
}

/** What every widget state must pass: nothing reported on the page and axe clean (axe reads open shadow roots). */
async function checkWidget(w: WatchedPage, options: { settle?: boolean } = {}) {
  if (options.settle !== false) await settled(w.page);
  w.assertClean();
  await expectNoSeriousA11yViolations(w.page);
}

/**
 * Screenshots of the page as it is, light and dark, desktop and phone: widget-<name>-{light,dark}[-phone].png;
 * axe runs in dark mode too (the light one is checked by checkWidget), since the widget has its own dark colours.
 */
async function screenshots(page: Page, name: string) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    if (colorScheme === 'dark') await expectNoSeriousA11yViolations(page);
    await screenshot(page, `widget-${name}-${colorScheme}`, { phone: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The widget's parts, by role and name (Playwright's role queries pierce the open shadow root). */
function parts(page: Page) {
  return {
    box: page.getByRole('combobox', { name: 'Search' }),
    suggestions: page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option'),
    results: page.getByRole('region', { name: 'Search results' }),
    resultItems: page.getByRole('region', { name: 'Search results' }).getByRole('listitem'),
    summary: page.getByRole('region', { name: 'Summary' }),
    chat: page.getByRole('region', { name: 'Chat' }),
    topQuestions: page.getByRole('region', { name: 'Top questions' }),
    followUps: page.getByRole('group', { name: 'Follow-up questions' }).getByRole('button'),
    launcher: page.getByRole('button', { name: 'Search', exact: true }),
    dialog: page.getByRole('dialog', { name: 'Search' }),
    alert: page.getByRole('alert'),
  };
}

/** The answer's state as the widget marks it: loading (placeholder), streaming, done or error. */
const answerState = (region: ReturnType<Page['getByRole']>) => region.locator('.answer').last().getAttribute('data-state');

describe('the widget on a host page of another origin', () => {
  it('shows top questions when the box is empty, then suggestions as the visitor types, then results; opening a result records one click', async () => {
    const w = await openHost('/');
    const { page } = w;
    const p = parts(page);
    await expect.poll(() => p.topQuestions.getByRole('button').allTextContents()).toEqual(TOP_QUESTIONS);
    await checkWidget(w);
    await screenshots(page, 'top-questions');

    await p.box.click();
    await p.box.pressSequentially('inst');
    await expect.poll(() => p.suggestions.allTextContents()).toEqual([SEEDED_QUERY]);
    expect(await p.box.getAttribute('aria-expanded')).toBe('true');
    await checkWidget(w);
    await screenshot(page, 'widget-suggestions');
    await p.suggestions.first().click();
    expect(await p.box.inputValue()).toBe(SEEDED_QUERY);
    await expect.poll(() => p.resultItems.first().textContent()).toContain('Install with npm');
    const first = p.results.getByRole('link', { name: 'Install with npm' });
    expect(await first.getAttribute('href')).toBe(`${docsUrl('install')}#install`);
    await expect.poll(() => answerState(p.summary)).toBe('done');
    await checkWidget(w);
    await screenshots(page, 'results');

    const before = await insights();
    const feedback = requestsTo('/v1/ui/feedback');
    const feedbackData = await p.resultItems.first().getAttribute('data-feedback');
    await first.click();
    await page.waitForURL(`${docsUrl('install')}#install`);
    await expect.poll(async () => (await insights()).clicks, { timeout: 10_000 }).toBe(before.clicks + 1);
    expect(feedback.map(paramsOf)).toEqual([{ type: 'click', feedback_data: feedbackData }]);
    const row = (await insights()).top_queries.find((q) => q.query === SEEDED_QUERY);
    expect(row?.clicks).toBe(1);
    w.assertClean();
    await page.close();
  });

  it('shows the summary placeholder at once, then the answer as it streams, with working reference links', async () => {
    const w = await openHost('/');
    const { page } = w;
    const p = parts(page);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const summaries = requestsTo('/v1/ui/summary');
    await page.route('**/v1/ui/summary?*', async (route) => {
      await held;
      await route.continue();
    });
    stub.state.mode = 'slow-stream';
    try {
      await p.box.fill('How do I install acme?');
      await p.box.press('Enter');
      const placeholder = p.summary.locator('.skeleton');
      await placeholder.waitFor({ state: 'visible' });
      expect(await answerState(p.summary)).toBe('loading');
      expect(await p.summary.locator('.answer').getAttribute('aria-busy')).toBe('true');
      // The results arrive meanwhile; only the summary is still on its way.
      await expect.poll(() => p.results.getAttribute('aria-busy')).toBe('false');
      await expect.poll(() => p.resultItems.count()).toBeGreaterThan(0);
      await checkWidget(w, { settle: false });
      await screenshots(page, 'summary-placeholder');
      release();
      // The slow stand-in model writes a word every 300 ms: the text shows while it grows.
      await expect.poll(() => answerState(p.summary)).toBe('streaming');
      const partial = (await p.summary.locator('.answer-text').textContent()) ?? '';
      expect(partial.length).toBeGreaterThan(0);
      expect(MODEL_REPLY.startsWith(partial.trim())).toBe(true);
      expect(partial.trim().length).toBeLessThan(MODEL_REPLY.length);
      await screenshot(page, 'widget-summary-streaming');
      await expect.poll(() => answerState(p.summary), { timeout: 30_000 }).toBe('done');
    } finally {
      stub.state.mode = 'reply';
      await page.unroute('**/v1/ui/summary?*');
    }
    expect(summaries).toHaveLength(1);
    expect(summaries[0].headers().accept).toBe('text/event-stream');
    expect(await p.summary.locator('.answer-text').textContent()).toBe(MODEL_REPLY.replace(' [1]', ' 1'));
    const cite = p.summary.getByRole('link', { name: 'Source 1: Install with npm' });
    expect(await cite.getAttribute('href')).toBe(`${docsUrl('install')}#install`);
    const refs = p.summary.getByRole('list', { name: 'References' }).getByRole('link');
    expect(await refs.allTextContents()).toEqual(['Install with npm']);
    expect(await refs.first().getAttribute('href')).toBe(`${docsUrl('install')}#install`);
    await checkWidget(w);
    await screenshots(page, 'summary');
    await cite.click();
    await page.waitForURL(`${docsUrl('install')}#install`);
    w.assertClean();
    await page.close();
  });

  it('chats: an answer, then a follow-up button asks in the same conversation', async () => {
    const w = await openHost('/');
    const { page } = w;
    const p = parts(page);
    const chats = requestsTo('/v1/ui/chat');
    const conversationIds: string[] = [];
    page.on('response', async (r) => {
      if (!r.url().startsWith(`${svc.url}/v1/ui/chat`)) return;
      const done = /event: done\ndata: (.*)\n/.exec(await r.text().catch(() => ''));
      if (done) conversationIds.push(JSON.parse(done[1]).conversation_id);
    });
    await p.box.fill('How do I install acme?');
    await page.getByRole('button', { name: 'Ask in chat' }).click();
    await expect.poll(() => answerState(p.chat)).toBe('done');
    await expect.poll(() => p.followUps.count()).toBeGreaterThan(0);
    expect(await p.chat.locator('.answer-text').first().textContent()).toContain('npm install -g acme-cli');
    await checkWidget(w);
    await screenshots(page, 'chat');
    const followUp = (await p.followUps.first().textContent())!;
    await p.followUps.first().click();
    await expect.poll(() => p.chat.locator('.turn').count()).toBe(2);
    await expect.poll(() => answerState(p.chat), { timeout: 30_000 }).toBe('done');
    await expect.poll(() => conversationIds.length).toBe(2);

    const [firstAsk, secondAsk] = chats.map(paramsOf);
    expect(chats).toHaveLength(2);
    expect(firstAsk.query).toBe('How do I install acme?');
    expect(firstAsk['conversation-id']).toBeUndefined();
    expect(secondAsk.query).toBe(followUp);
    expect(secondAsk['conversation-id']).toBe(conversationIds[0]);
    expect(conversationIds[1]).toBe(conversationIds[0]);
    const stored = await svc.call('GET', `/v1/admin/configurations/${uid}/conversations/${encodeURIComponent(conversationIds[0])}`);
    expect(stored.body.turns.map((t: { question: string }) => t.question)).toEqual(['How do I install acme?', followUp]);
    w.assertClean();
    await page.close();
  });

  it('shows an instant answer as authored with its call-to-action, and contact support sends the forward notice first', async () => {
    const w = await openHost('/support');
    const { page } = w;
    const p = parts(page);
    await p.box.fill('refund');
    await expect.poll(() => p.resultItems.count()).toBeGreaterThan(0);
    const instant = p.resultItems.first();
    expect(await instant.textContent()).toContain('Instant answer');
    expect(await instant.locator('strong').textContent()).toBe('30 days');
    const cta = instant.getByRole('link', { name: 'Request a refund' });
    expect(await cta.getAttribute('href')).toBe(docsUrl('refunds'));
    await checkWidget(w);
    await screenshot(page, 'widget-instant-answer');
    const before = await insights();
    const feedback = requestsTo('/v1/ui/feedback');
    await cta.click();
    await page.waitForURL(docsUrl('refunds'));
    await expect.poll(async () => (await insights()).clicks, { timeout: 10_000 }).toBe(before.clicks + 1);
    expect(feedback).toHaveLength(1);

    await page.goto(`${host.origin}/support`);
    await p.box.fill('xqzzv blorptangle');
    await p.results.getByText('No results for “xqzzv blorptangle”').waitFor();
    const forwards = requestsTo('/v1/ui/support-forward');
    await p.results.getByRole('link', { name: 'Contact support' }).click();
    await page.waitForURL(docsUrl('support'));
    await expect.poll(async () => (await insights()).support_forwards, { timeout: 10_000 }).toBe(1);
    expect(forwards.map(paramsOf)).toEqual([expect.objectContaining({ uid, url: `${host.origin}/support`, device: 'desktop' })]);
    w.assertClean();
    await page.close();
  });

  it('says clearly when nothing matches', async () => {
    const w = await openHost('/');
    const p = parts(w.page);
    await p.box.fill('xqzzv blorptangle');
    await p.box.press('Enter');
    await p.results.getByText('No results for “xqzzv blorptangle”').waitFor();
    await expect.poll(() => answerState(p.summary)).toBe('done');
    // Nothing found is nothing to follow up on in chat.
    expect(await p.summary.textContent()).toContain('No relevant results');
    expect(await p.summary.getByRole('button').count()).toBe(0);
    await checkWidget(w);
    await screenshots(w.page, 'no-results');
    await w.page.close();
  });

  it('keeps the last results at full contrast under a progress bar while the next ones load', async () => {
    const w = await openHost('/');
    const { page } = w;
    const p = parts(page);
    await p.box.fill('deploy');
    await expect.poll(() => p.resultItems.first().textContent()).toContain('Deploy your site');
    await settled(page);
    const bar = () => p.results.evaluate((el) => getComputedStyle(el, '::before').content);
    expect(await bar()).toBe('none');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/v1/ui/search?*', async (route) => {
      await held;
      await route.continue();
    });
    try {
      await p.box.fill('deploy preview');
      await expect.poll(() => p.results.getAttribute('aria-busy')).toBe('true');
      expect(await p.resultItems.first().textContent()).toContain('Deploy your site');
      expect(await bar()).not.toBe('none');
      // axe's colour-contrast rule reads the waiting results as the visitor sees them (opacity included).
      await checkWidget(w, { settle: false });
      await screenshots(page, 'results-loading');
    } finally {
      release();
    }
    await settled(page);
    await page.unroute('**/v1/ui/search?*');
    w.assertClean();
    await page.close();
  });
});

/** The element that has focus, looking through shadow roots: its role-ish description and whether it is in the modal. */
async function focused(page: Page) {
  return page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return {
      tag: el?.tagName.toLowerCase() ?? '', id: el?.id ?? '', role: el?.getAttribute('role') ?? '',
      name: el?.getAttribute('aria-label') ?? (el?.textContent ?? '').trim(), inDialog: !!el?.closest('dialog'), inResults: !!el?.closest('.results'),
    };
  });
}

/**
 * Escape closes the modal and focus returns to where the visitor was (the page's own button). Nothing waits for
 * the dialog's close event (Chromium fires it ~15 ms after the dialog closed): the caller presses its next
 * shortcut at once.
 */
async function closeWithEscape(page: Page) {
  await page.keyboard.press('Escape');
  await expect.poll(() => parts(page).dialog.isVisible()).toBe(false);
  await expect.poll(async () => (await focused(page)).id).toBe('host-button');
}

/**
 * Escape, then `shortcut` while the dialog's close event is still on its way: the event is held back (the
 * widget's listener is on the dialog, inside the shadow root, so a capturing listener on the root sees it
 * first) until the shortcut was handled, as when a visitor is quicker than the event. The modal must open
 * again, and the late event must neither close its content nor take focus out of it.
 */
async function reopenBeforeCloseEvent(page: Page, shortcut: string) {
  const p = parts(page);
  await page.evaluate(() => {
    const root = document.querySelector('quarry-search')!.shadowRoot!;
    root.addEventListener('close', (e) => {
      e.stopImmediatePropagation();
      (window as any).__heldClose = e.target;
    }, { capture: true, once: true });
  });
  await page.keyboard.press('Escape');
  await expect.poll(() => page.evaluate(() => (window as any).__heldClose !== undefined)).toBe(true);
  expect(await p.dialog.isVisible()).toBe(false);
  await page.keyboard.press(shortcut);
  await p.dialog.waitFor();
  expect(await focused(page)).toMatchObject({ role: 'combobox', inDialog: true });
  await page.evaluate(() => (window as any).__heldClose.dispatchEvent(new Event('close')));
  expect(await p.dialog.isVisible()).toBe(true);
  expect(await p.box.isVisible()).toBe(true);
  expect(await focused(page)).toMatchObject({ role: 'combobox', inDialog: true });
}

/** Presses Tab until `want` has focus (at most `max` times), checking each stop is inside the modal. */
async function tabTo(page: Page, want: (f: Awaited<ReturnType<typeof focused>>) => boolean, max = 25) {
  const stops: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    stops.push(`${f.tag}:${f.name}`);
    expect(f.inDialog, `focus left the modal: ${JSON.stringify(f)}`).toBe(true);
    if (want(f)) return f;
  }
  throw new Error(`Tab never reached the element; it stopped at ${stops.join(' → ')}`);
}

describe('the widget from the keyboard alone', () => {
  it('opens with Ctrl-K and "/", moves through suggestions with arrows, tabs to results, chats, and Escape returns focus', async () => {
    const w = await openHost('/modal');
    const { page } = w;
    const p = parts(page);
    await p.launcher.waitFor();
    expect(await p.launcher.getAttribute('aria-haspopup')).toBe('dialog');
    await checkWidget(w);
    await screenshots(page, 'modal-closed');
    // The visitor starts on the page's own button.
    await page.locator('#host-button').focus();

    await page.keyboard.press('Control+k');
    await p.dialog.waitFor();
    expect(await focused(page)).toMatchObject({ role: 'combobox', inDialog: true });
    await page.keyboard.type('inst');
    await expect.poll(() => p.suggestions.allTextContents()).toEqual([SEEDED_QUERY]);
    await page.keyboard.press('ArrowDown');
    expect(await p.suggestions.first().getAttribute('aria-selected')).toBe('true');
    expect(await p.box.getAttribute('aria-activedescendant')).toBe(await p.suggestions.first().getAttribute('id'));
    await page.keyboard.press('Enter');
    expect(await p.box.inputValue()).toBe(SEEDED_QUERY);
    await expect.poll(() => answerState(p.summary)).toBe('done');
    await expect.poll(() => p.resultItems.count()).toBe(PAGES.length);
    await checkWidget(w);
    await screenshots(page, 'modal-results');
    await tabTo(page, (f) => f.inResults && f.name === 'Install with npm');
    // On past the last result, Tab wraps to the modal's first stop: focus never reaches the page behind.
    await tabTo(page, (f) => f.tag === 'button' && f.name === 'Close');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toMatchObject({ inResults: true, name: 'Plans and invoices' });
    // Reopened (and back from chat below), the same query's results and summary are shown as they were, not
    // asked for (and counted) again.
    const searches = requestsTo('/v1/ui/search');
    const summaries = requestsTo('/v1/ui/summary');
    const counted = await insights();
    await closeWithEscape(page);

    await page.keyboard.press('/');
    await p.dialog.waitFor();
    expect(await focused(page)).toMatchObject({ role: 'combobox' });
    expect(await p.box.inputValue()).toBe(SEEDED_QUERY);
    await settled(page);
    expect(await answerState(p.summary)).toBe('done');
    expect(await p.resultItems.count()).toBe(PAGES.length);
    await tabTo(page, (f) => f.tag === 'button' && f.name === 'Ask a follow-up in chat');
    await page.keyboard.press('Enter');
    await expect.poll(() => answerState(p.chat)).toBe('done');
    await expect.poll(() => p.followUps.count()).toBeGreaterThan(0);
    const followUp = (await p.followUps.first().textContent())!;
    await tabTo(page, (f) => f.tag === 'button' && f.name === followUp);
    await page.keyboard.press('Enter');
    await expect.poll(() => p.chat.locator('.turn').count()).toBe(2);
    await expect.poll(() => p.chat.locator('.answer[data-state="done"]').count(), { timeout: 30_000 }).toBe(2);
    await checkWidget(w);
    await screenshots(page, 'modal-chat');
    await tabTo(page, (f) => f.tag === 'button' && f.name === 'Back to results');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page)).role).toBe('combobox');
    await settled(page);
    expect(await answerState(p.summary)).toBe('done');
    expect(await p.resultItems.count()).toBe(PAGES.length);
    expect(searches).toHaveLength(0);
    expect(summaries).toHaveLength(0);
    const recounted = await insights();
    expect([recounted.searches, recounted.summaries]).toEqual([counted.searches, counted.summaries]);

    // Emptied, the box offers the top questions; one is asked from the keyboard.
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await expect.poll(() => p.topQuestions.getByRole('button').count()).toBe(TOP_QUESTIONS.length);
    await tabTo(page, (f) => f.tag === 'button' && f.name === TOP_QUESTIONS[1]);
    await page.keyboard.press('Enter');
    expect(await p.box.inputValue()).toBe(TOP_QUESTIONS[1]);
    await expect.poll(() => answerState(p.summary)).toBe('done');
    await expect.poll(() => p.resultItems.first().textContent()).toContain('Deploy your site');

    // Enter on a result follows it, and the click is recorded.
    const feedback = requestsTo('/v1/ui/feedback');
    await tabTo(page, (f) => f.inResults && f.name === 'Deploy your site');
    await reopenBeforeCloseEvent(page, 'Control+k');
    await expect.poll(() => p.resultItems.count()).toBeGreaterThan(0);
    await tabTo(page, (f) => f.inResults && f.name === 'Deploy your site');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${docsUrl('deploy')}#deploy`);
    await expect.poll(() => feedback.length).toBe(1);
    w.assertClean();
    await page.close();
  });
});

/** Computed styles that show whether CSS reached an element. */
const STYLE_PROPS = [
  'color', 'background-color', 'font-family', 'font-size', 'font-weight', 'font-style', 'line-height', 'display', 'visibility',
  'margin-top', 'margin-left', 'padding-top', 'padding-left', 'border-top-width', 'border-top-style', 'border-top-color',
  'border-top-left-radius', 'text-decoration-line', 'text-transform', 'letter-spacing', 'box-sizing', 'opacity',
];

/**
 * Every element the widget draws (its .root and all inside it), with its computed styles, in document order. The
 * bare mount <div> around .root inherits from the host element and draws nothing itself.
 */
function widgetStyles(page: Page): Promise<string[]> {
  return page.evaluate((props) => {
    const root = document.querySelector('quarry-search')!.shadowRoot!.querySelector('.root')!;
    return [root, ...root.querySelectorAll('*')].map((el) => {
      const cs = getComputedStyle(el);
      return `${el.tagName.toLowerCase()}.${el.getAttribute('class') ?? ''}: ${props.map((p) => `${p}=${cs.getPropertyValue(p)}`).join('; ')}`;
    });
  }, STYLE_PROPS);
}

/** The host page's own elements and their computed styles, plus what the document itself holds as stylesheets. */
function hostStyles(page: Page) {
  return page.evaluate((props) => {
    const els = ['html', 'body', 'header', '#host-heading', '#host-link', 'main', '#host-text', '#host-button', '#host-count'];
    return {
      sheets: document.styleSheets.length,
      adopted: document.adoptedStyleSheets.length,
      rootVariables: [...getComputedStyle(document.documentElement)].filter((p) => p.startsWith('--')),
      elements: els.map((sel) => {
        const cs = getComputedStyle(document.querySelector(sel)!);
        return `${sel}: ${props.map((p) => `${p}=${cs.getPropertyValue(p)}`).join('; ')}`;
      }),
    };
  }, STYLE_PROPS);
}

describe('the widget beside the host page', () => {
  it('works on a page with a strict Content-Security-Policy that allows the service origin (the <quarry-search> element form)', async () => {
    const w = await browser.newPage();
    const res = await w.page.goto(`${host.origin}/strict`);
    expect(res!.headers()['content-security-policy']).toBe(STRICT_CSP());
    const p = parts(w.page);
    expect(await w.page.locator('#widget-slot > quarry-search').count()).toBe(1);
    await expect.poll(() => p.topQuestions.getByRole('button').count()).toBe(TOP_QUESTIONS.length);
    await p.box.fill('How do I deploy my site?');
    await p.box.press('Enter');
    await expect.poll(() => answerState(p.summary)).toBe('done');
    await expect.poll(() => p.resultItems.first().textContent()).toContain('Deploy your site');
    await w.page.locator('#host-button').click();
    expect(await w.page.locator('#host-count').textContent()).toBe('1');
    // Nothing was refused (any CSP violation is a problem here), and the policy is really in force.
    await checkWidget(w);
    await w.expecting(/CSP violation|Content Security Policy/, () => w.page.evaluate(() => {
      document.head.append(Object.assign(document.createElement('style'), { textContent: 'p { color: red }' }));
    }));
    await expect.poll(() => w.problems.some((m) => /style-src|Content Security Policy/.test(m))).toBe(true);
    w.assertClean();
    await w.page.close();
  });

  it('on an origin the configuration does not allow: a clear message in the widget and the console, and the host page keeps working', async () => {
    const w = await browser.newPage();
    const message = `This website (${host.otherOrigin}) is not allowed to use this search: add it to the allowed origins of configuration ${uid}.`;
    // Chromium reports each refused request itself too (a CORS error, the failed load).
    await w.expecting(/blocked by CORS policy|net::ERR_FAILED|status of 403|quarry-search: This website/, async () => {
      await w.page.goto(`${host.otherOrigin}/`);
      const p = parts(w.page);
      await expect.poll(() => p.alert.first().textContent()).toBe(message);
      await expect.poll(() => w.problems.filter((m) => m.includes(`quarry-search: ${message}`)).length).toBe(1);
      await w.page.locator('#host-button').click();
      await w.page.locator('#host-button').click();
      expect(await w.page.locator('#host-count').textContent()).toBe('2');
      // Said once, under the box: no summary or results panel repeats it.
      await p.box.fill('deploy');
      await p.box.press('Enter');
      await expect.poll(async () => (await p.results.count()) + (await p.summary.count())).toBe(0);
      expect(await p.alert.allTextContents()).toEqual([message]);
      await expectNoSeriousA11yViolations(w.page);
      await screenshots(w.page, 'origin-not-allowed');
    });
    w.assertClean();
    await w.page.close();
  });

  it("keeps the host page's CSS out of the widget and its own CSS in", async () => {
    const look = async (path: string) => {
      const w = await openHost(path);
      const p = parts(w.page);
      await p.box.fill('deploy');
      await expect.poll(() => p.resultItems.count()).toBeGreaterThan(0);
      await settled(w.page);
      const styles = { widget: await widgetStyles(w.page), host: await hostStyles(w.page), w };
      return styles;
    };
    const plain = await look('/');
    const hostile = await look('/hostile');
    expect(hostile.widget.length).toBeGreaterThan(10);
    expect(hostile.widget).toEqual(plain.widget);
    expect(await hostile.w.page.locator('#host-button').isVisible()).toBe(false);
    await screenshot(hostile.w.page, 'widget-hostile-css');
    for (const [withWidget, path] of [[plain, '/plain'], [hostile, '/hostile-plain']] as const) {
      const w = await openHost(path);
      const without = await hostStyles(w.page);
      expect(withWidget.host).toEqual(without);
      expect(without.adopted).toBe(0);
      await w.page.close();
    }
    for (const s of [plain, hostile]) {
      s.w.assertClean();
      await s.w.page.close();
    }
  });
});

describe('the signals the widget sends', () => {
  it('reports a middle-clicked result with a keepalive request, keeps its session id in sessionStorage (no cookie) and says which device', async () => {
    const w = await browser.newPage();
    // How the widget sends each feedback notice: only a keepalive fetch or sendBeacon survives the page leaving.
    await w.page.addInitScript(() => {
      const sent: { url: string; keepalive: boolean; beacon: boolean }[] = ((window as any).__sent = []);
      const fetch0 = window.fetch;
      window.fetch = (input, init) => {
        sent.push({ url: String(input instanceof Request ? input.url : input), keepalive: init?.keepalive === true, beacon: false });
        return fetch0(input, init);
      };
      const beacon0 = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        sent.push({ url: String(url), keepalive: true, beacon: true });
        return beacon0(url, data);
      };
    });
    const searches = requestsTo('/v1/ui/search');
    const feedback = requestsTo('/v1/ui/feedback');
    await w.page.goto(`${host.origin}/`);
    const p = parts(w.page);
    await p.box.fill('deploy your site');
    await expect.poll(() => p.resultItems.first().textContent()).toContain('Deploy your site');
    await settled(w.page);
    const before = await insights();
    const feedbackData = await p.resultItems.first().getAttribute('data-feedback');
    const opened = browser.context.waitForEvent('page');
    await p.results.getByRole('link', { name: 'Deploy your site' }).click({ button: 'middle' });
    const tab = await opened;
    await expect.poll(() => tab.url()).toBe(`${docsUrl('deploy')}#deploy`);
    expect(w.page.url()).toBe(`${host.origin}/`);
    await expect.poll(async () => (await insights()).clicks, { timeout: 10_000 }).toBe(before.clicks + 1);
    expect(feedback.map(paramsOf)).toEqual([{ type: 'click', feedback_data: feedbackData }]);
    const sent = (await w.page.evaluate(() => (window as any).__sent)) as { url: string; keepalive: boolean }[];
    expect(sent.filter((s) => s.url.includes('/v1/ui/feedback')).map((s) => s.keepalive)).toEqual([true]);
    await tab.close();

    // One random id for the visit, in sessionStorage, on every request; no cookie anywhere.
    const id = await w.page.evaluate(() => sessionStorage.getItem('quarry-session-id'));
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(searches.length).toBeGreaterThan(0);
    for (const r of searches) expect(paramsOf(r)).toMatchObject({ 'session-id': id, device: 'desktop' });
    expect(await w.page.evaluate(() => document.cookie)).toBe('');
    expect(await browser.context.cookies([host.origin, host.otherOrigin, svc.url])).toEqual([]);
    for (const r of [...searches, ...feedback]) expect(await r.headerValue('cookie')).toBeNull();
    await w.page.reload();
    expect(await w.page.evaluate(() => sessionStorage.getItem('quarry-session-id'))).toBe(id);
    w.assertClean();
    await w.page.close();

    // A phone-sized viewport says mobile, and insights count it so.
    const phone = await browser.newPage();
    await phone.page.setViewportSize(PHONE);
    const phoneSearches = requestsTo('/v1/ui/search');
    await phone.page.goto(`${host.origin}/`);
    const q = parts(phone.page);
    await q.box.fill('reading logs');
    await expect.poll(() => q.resultItems.first().textContent()).toContain('Reading logs');
    expect(phoneSearches.map((r) => paramsOf(r).device)).toContain('mobile');
    expect(phoneSearches.every((r) => paramsOf(r).device === 'mobile')).toBe(true);
    await expect.poll(async () => (await insights()).devices.find((d) => d.device === 'mobile')?.searches ?? 0).toBeGreaterThan(0);
    phone.assertClean();
    await phone.page.close();
  });
});
