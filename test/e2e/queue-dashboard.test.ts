// The queue dashboard (bull-board) in a real Chromium with Basic credentials the browser remembers (issue 22,
// finding 1): its own page still works under its Content-Security-Policy and its changes carry the CSRF
// token its client sends by itself, while a page on another port of the same host can no longer frame it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshot, type TestBrowser, type WatchedPage } from '../helpers/browser.js';
import { startHostServer, type HostServer } from '../helpers/host-page.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let host: HostServer;
let browser: TestBrowser;
let w: WatchedPage;
let page: Page;
/** Changes the dashboard's page sent, with the CSRF header as sent. */
const changes: { method: string; path: string; xsrf: string | undefined }[] = [];

beforeAll(async () => {
  svc = await startTestService({ workers: false });
  host = await startHostServer();
  browser = await launchBrowser({ httpCredentials: { username: 'admin', password: MASTER_KEY } });
  w = await browser.newPage();
  page = w.page;
  // bull-board's page asks Google Fonts for its typeface; the test machine has no network to give it.
  await page.route(/^https:\/\/fonts\.(googleapis|gstatic)\.com\//, (r) => r.fulfill({ status: 200, contentType: 'text/css', body: '' }));
  page.on('request', (r) => {
    if (r.method() !== 'GET') changes.push({ method: r.method(), path: new URL(r.url()).pathname, xsrf: r.headers()['x-xsrf-token'] });
  });
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await svc?.close();
});

describe('the queue dashboard', () => {
  it('loads under its own Content-Security-Policy without a violation', async () => {
    await page.goto(`${svc.url}/admin/queues`);
    await page.getByRole('link', { name: 'index' }).first().waitFor();
    w.assertClean();
    await screenshot(page, 'queue-dashboard');
  });

  it('"Pause all" and "Resume all" from its own page work: its client sends the token', async () => {
    const confirm = async () => {
      const button = page.getByRole('button', { name: 'Confirm' });
      if (await button.isVisible().catch(() => false)) await button.click();
    };
    // The overview's menu (the first menu button of the page's main part; the others are each queue's).
    const overviewMenu = () => page.locator('main button[aria-haspopup="menu"]').first().click();
    await overviewMenu();
    await page.getByText('Pause all', { exact: true }).click();
    await confirm();
    await expect.poll(() => svc.queues.index.isPaused()).toBe(true);
    await screenshot(page, 'queue-dashboard-paused');
    await overviewMenu();
    await page.getByText('Resume all', { exact: true }).click();
    await confirm();
    await expect.poll(() => svc.queues.index.isPaused()).toBe(false);
    expect(changes.length).toBeGreaterThanOrEqual(2);
    for (const c of changes) expect(c.xsrf, `${c.method} ${c.path}`).toMatch(/^[\w-]{20,}$/);
    w.assertClean();
  });

  it('a page on another port of the same host cannot frame it, though the browser remembers the credentials', async () => {
    host.set('/frame.html', { type: 'text/html', body: `<!doctype html><title>framing</title><iframe id="f" src="${svc.url}/admin/queues"></iframe>` });
    const framer = await browser.newPage();
    const dashboardCalls: string[] = [];
    framer.page.on('request', (r) => {
      if (r.url().startsWith(`${svc.url}/admin/queues/api/`)) dashboardCalls.push(r.url());
    });
    await framer.expecting(/frame-ancestors|X-Frame-Options|ERR_BLOCKED_BY_RESPONSE/i, async () => {
      const document = framer.page.waitForResponse(`${svc.url}/admin/queues`);
      await framer.page.goto(`${host.otherOrigin}/frame.html`);
      const response = await document;
      expect(response.headers()['x-frame-options']).toBe('DENY');
      expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      await framer.page.waitForTimeout(1000);
    });
    // The framed document never ran: none of its scripts asked for the queues.
    expect(dashboardCalls).toEqual([]);
    const frame = framer.page.frames().find((f) => f !== framer.page.mainFrame());
    expect(await frame?.locator('#root').count().catch(() => 0)).toBe(0);
    await screenshot(framer.page, 'queue-dashboard-framed');
    framer.assertClean();
    await framer.page.close();
  });
});
