// A real browser for end-to-end tests: Debian's Chromium driven by playwright-core (no browser download),
// with what every page visit must satisfy checked in one place: no console errors, no uncaught
// exceptions, no Content-Security-Policy violations, no serious accessibility violations.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = process.env.QUARRY_CHROMIUM ?? '/usr/bin/chromium';
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 812 };
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

export interface TestBrowser {
  context: BrowserContext;
  /** A page whose problems (console errors, page errors, CSP violations) are collected. */
  newPage(): Promise<WatchedPage>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  /** Everything that went wrong on the page since the last assertClean. */
  problems: string[];
  /**
   * Runs `fn` with console messages matching `pattern` expected (e.g. the 401 a wrong key draws) until the
   * next assertClean: Chromium reports a failed request some time after the page has moved on.
   */
  expecting<T>(pattern: RegExp, fn: () => Promise<T>): Promise<T>;
  /** Throws listing the unexpected problems, if any, and forgets them and the expected patterns. */
  assertClean(): void;
}

/**
 * A persistent context in a fresh profile directory: nothing from an earlier run (cookies, storage,
 * cache) can leak in. Headless, no sandbox (CI runs as root), no network calls of Chromium's own.
 */
export async function launchBrowser(options: BrowserContextOptions = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'quarry-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: DESKTOP,
    acceptDownloads: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
    ],
    ...options,
  });
  return {
    context,
    newPage: async () => watch(await context.newPage()),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

function watch(page: Page): WatchedPage {
  const problems: string[] = [];
  const expected: RegExp[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught exception: ${err.message}`));
  // Chromium logs CSP refusals to the console too; the event also catches those reported without a log
  // line (the init script is injected by the browser itself, so the policy does not apply to it).
  void page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline code'}`);
    });
  });
  return {
    page,
    problems,
    async expecting(pattern, fn) {
      expected.push(pattern);
      return fn();
    },
    assertClean() {
      const found = problems.splice(0).filter((p) => !expected.some((e) => e.test(p)));
      expected.splice(0);
      if (found.length) throw new Error(`The page reported problems:\n- ${found.join('\n- ')}`);
    },
  };
}

/**
 * Writes test-results/screenshots/<name>.png (full page) and, with `phone`, <name>-phone.png at 375 px
 * wide, then restores the viewport.
 */
export async function screenshot(page: Page, name: string, options: { phone?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  if (!options.phone) return;
  const size = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(PHONE);
  try {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  } finally {
    await page.setViewportSize(size);
  }
}

let axeSource: string | undefined;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core on the page and throws on serious or critical violations, listing each with its elements.
 * axe is evaluated through the DevTools protocol (page.evaluate of its source), which the page's CSP
 * does not govern: an injected <script> would be refused by `script-src 'self'`, and turning the
 * policy off for the context (bypassCSP) would also hide the violations these tests look for.
 */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (serious.length === 0) return;
  const lines = serious.map((v) => `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, ' ')})` : ''}`).join('\n    ')}`);
  throw new Error(`Serious accessibility violations on ${page.url()}:\n${lines.join('\n')}`);
}

/**
 * What every page visit must pass: nothing still loading (so axe and the screenshot see the page settled),
 * nothing reported on the page, no serious axe violation, and a screenshot to look at.
 */
export async function checkPage(w: WatchedPage, name: string, options: { phone?: boolean } = {}): Promise<void> {
  await w.page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  w.assertClean();
  await expectNoSeriousA11yViolations(w.page);
  await screenshot(w.page, name, options);
}

/** The cells' text of a table found by its caption, row by row. */
export async function tableRows(page: Page, caption: string): Promise<string[][]> {
  const table = page.locator('table', { has: page.locator('caption > span', { hasText: new RegExp(`^${caption}$`) }) });
  return table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
}

/** The 401 a signed-out app draws when it asks for its session (Chromium logs every 4xx as an error). */
export const SIGNED_OUT_PROBE = /status of 401 .*\/v1\/admin\/session/;

/** Opens the app and signs in through its form; resolves once the signed-in shell shows. */
export async function signInThroughForm(w: WatchedPage, baseUrl: string, key: string): Promise<void> {
  await w.expecting(SIGNED_OUT_PROBE, async () => {
    await w.page.goto(`${baseUrl}/app/`);
    await w.page.getByLabel('Admin key').fill(key);
  });
  await w.page.getByRole('button', { name: 'Sign in' }).click();
  await w.page.getByRole('button', { name: 'Sign out' }).waitFor();
}
