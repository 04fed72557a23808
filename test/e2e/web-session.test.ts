// The browser side of the session's bad cases (the HTTP-level ones are in test/api): what a page on
// another origin can do with a signed-in operator's browser, and what the browser keeps of the key.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWeb } from '../../scripts/build-web.mjs';
import { launchBrowser, signInThroughForm, type TestBrowser } from '../helpers/browser.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let browser: TestBrowser;
let attacker: Server;
let attackerPort: number;

/** A page of another origin that, once opened, fires state-changing requests at the service. */
function attackerPage(target: string): string {
  return `<!doctype html><html lang="en"><head><title>Win a prize</title></head><body>
<form id="f" method="POST" action="${target}/v1/admin/indexes" enctype="text/plain">
<input name='{"uid":"evil-form","x":"' value='"}'></form>
<script>
fetch('${target}/v1/admin/keys', { method: 'POST', mode: 'no-cors', credentials: 'include',
  headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'evil-fetch', permissions: ['admin'] }) })
  .finally(() => document.getElementById('f').submit());
</script></body></html>`;
}

beforeAll(async () => {
  await ensureWeb();
  svc = await startTestService({ workers: false });
  browser = await launchBrowser();
  attacker = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage(svc.url));
  });
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
  attackerPort = (attacker.address() as AddressInfo).port;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => attacker?.close(r));
  await svc?.close();
});

async function adminState() {
  const keys = (await svc.call('GET', '/v1/admin/keys')).body.keys.map((k: { name: string }) => k.name);
  const indexes = (await svc.call('GET', '/v1/admin/indexes')).body.indexes.map((i: { uid: string }) => i.uid);
  return { keys, indexes };
}

describe('web-app session in a real browser', () => {
  it('keeps the key out of the page: only an httpOnly, SameSite=Strict cookie holds the session', async () => {
    const w = await browser.newPage();
    await signInThroughForm(w, svc.url, MASTER_KEY);
    const stored = await w.page.evaluate(() => ({
      cookie: document.cookie,
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      html: document.documentElement.outerHTML,
    }));
    expect(stored.cookie).not.toContain('quarry_session');
    for (const place of Object.values(stored)) expect(place).not.toContain(MASTER_KEY);
    const cookies = await browser.context.cookies(svc.url);
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([
      { name: 'quarry_session', httpOnly: true, sameSite: 'Strict' },
    ]);
    expect(cookies[0].value).not.toContain(MASTER_KEY);
    w.assertClean();
    await w.page.close();
  });

  // 127.0.0.1 on another port is the same site (the cookie goes along; the server's origin and CSRF
  // checks refuse), localhost is another site (SameSite=Strict keeps the cookie home).
  it.each(['127.0.0.1', 'localhost'])('refuses a POST from a page served at %s on another port, and nothing changes', async (host) => {
    const before = await adminState();
    await browser.context.clearCookies();
    const w = await browser.newPage();
    await signInThroughForm(w, svc.url, MASTER_KEY);
    const answers: { url: string; status: number }[] = [];
    const evil = await browser.context.newPage();
    evil.on('response', (r) => {
      if (r.url().startsWith(svc.url)) answers.push({ url: new URL(r.url()).pathname, status: r.status() });
    });
    await evil.goto(`http://${host}:${attackerPort}/`);
    // The form submission navigates the attacker's tab to the service's answer.
    await evil.waitForURL(`${svc.url}/v1/admin/indexes`);
    expect(answers.map((a) => a.url).sort()).toEqual(['/v1/admin/indexes', '/v1/admin/keys']);
    for (const a of answers) expect([401, 403], JSON.stringify(a)).toContain(a.status);
    expect(await adminState()).toEqual(before);
    // The operator's own session is untouched and still works.
    await w.page.reload();
    await w.page.getByRole('button', { name: 'Sign out' }).waitFor();
    await evil.close();
    await w.page.close();
  });

  it('shows the sign-in form for a forged session cookie, and the key-without-admin message', async () => {
    await browser.context.clearCookies();
    const host = new URL(svc.url).hostname;
    await browser.context.addCookies([{ name: 'quarry_session', value: 'A'.repeat(43), domain: host, path: '/', httpOnly: true, sameSite: 'Strict' }]);
    const w = await browser.newPage();
    await w.expecting(/status of 401/, async () => {
      await w.page.goto(`${svc.url}/app/indexes`);
      await w.page.getByLabel('Admin key').waitFor();
      const reader = await svc.call('POST', '/v1/admin/keys', { name: 'reader', permissions: ['read'] });
      await w.expecting(/status of 403/, async () => {
        await w.page.getByLabel('Admin key').fill(reader.body.key);
        await w.page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => w.page.getByRole('alert').textContent()).toContain('lacks the admin permission');
      });
    });
    w.assertClean();
    await w.page.close();
  });
});
