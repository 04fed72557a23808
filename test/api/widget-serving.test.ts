import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_POLICY } from '../../api/middleware/security-headers.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let root: string;
let widgetDir: string;

/** Raw HTTP, so the bytes on the wire (gzip or not) are what the test sees, not what fetch decoded. */
function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What scripts/build-widget.mjs leaves behind, swapped in by a rename as it does. */
function publish(hash: string, code: string) {
  const next = `${widgetDir}.next`;
  mkdirSync(next);
  writeFileSync(join(next, `widget-${hash}.js`), code);
  writeFileSync(join(next, 'manifest.json'), JSON.stringify({ file: `widget-${hash}.js`, hash }));
  rmSync(widgetDir, { recursive: true, force: true });
  renameSync(next, widgetDir);
}

const V1 = `(()=>{customElements.define("quarry-search",class extends HTMLElement{});${'/* padding */'.repeat(50)}})();`;
const V2 = '(()=>{console.log("second build")})();';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'quarry-widget-'));
  widgetDir = join(root, 'dist');
  svc = await startTestService({ workers: false, env: { QUARRY_WIDGET_DIR: widgetDir } });
});

afterAll(async () => {
  await svc?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('widget serving', () => {
  it('answers 503 with what to run while the widget is not built, uncached and readable from any origin', async () => {
    for (const path of ['/widget.js', '/widget/ABCD1234.js']) {
      const res = await get(path, { origin: 'https://customer.example' });
      expect(res.status, path).toBe(503);
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 503, message: expect.stringMatching(/npm run build:widget/) });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
  });

  it('serves the current build as JavaScript any site may load, cached for 5 minutes, gzip when accepted', async () => {
    publish('AAAA1111', V1);
    const plain = await get('/widget.js', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.body.toString()).toBe(V1);
    expect(plain.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=300, stale-while-revalidate=86400',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
      vary: 'Accept-Encoding',
      'content-length': String(Buffer.byteLength(V1)),
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    // The web app's policy is for /app only. A host page runs the widget under its own: the policy every
    // response carries (API_POLICY) governs nothing when a page runs the script.
    expect(plain.headers['content-security-policy']).toBe(API_POLICY);

    const zipped = await get('/widget.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toBe(V1);
    expect(zipped.body.length).toBeLessThan(Buffer.byteLength(V1));
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);

    // No Accept-Encoding (curl without --compressed): plain text, never bytes the client cannot read.
    const bare = await get('/widget.js');
    expect(bare.headers['content-encoding']).toBeUndefined();
    expect(bare.body.toString()).toBe(V1);

    const head = await get('/widget.js', { 'accept-encoding': 'identity' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.etag).toBe(plain.headers.etag);
  });

  it('answers 304 to a matching If-None-Match, and the full script to a stale or other-encoding one', async () => {
    publish('AAAA1111', V1);
    const first = await get('/widget.js', { 'accept-encoding': 'gzip' });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await get('/widget.js', { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect((await get('/widget.js', { 'accept-encoding': 'gzip', 'if-none-match': '"older"' })).status).toBe(200);
    expect((await get('/widget.js', { 'accept-encoding': 'identity', 'if-none-match': etag })).status).toBe(200);
  });

  it('serves the versioned file as immutable, and 404 for any other name', async () => {
    publish('AAAA1111', V1);
    const pinned = await get('/widget/AAAA1111.js', { 'accept-encoding': 'identity' });
    expect(pinned.status).toBe(200);
    expect(pinned.body.toString()).toBe(V1);
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pinned.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(pinned.headers['access-control-allow-origin']).toBe('*');
    for (const path of ['/widget/BBBB2222.js', '/widget/AAAA1111.js.map', '/widget/manifest.json', '/widget/widget-AAAA1111.js']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 404, message: expect.stringMatching(/\/widget\.js/) });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('a new build replaces the old one at once: new content and ETag, the old hash gone', async () => {
    publish('AAAA1111', V1);
    const before = await get('/widget.js', { 'accept-encoding': 'identity' });
    publish('CCCC3333', V2);
    const after = await get('/widget.js', { 'accept-encoding': 'identity', 'if-none-match': String(before.headers.etag) });
    expect(after.status).toBe(200);
    expect(after.body.toString()).toBe(V2);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await get('/widget/CCCC3333.js')).status).toBe(200);
    expect((await get('/widget/AAAA1111.js')).status).toBe(404);
  });

  it('openapi.json documents both paths', async () => {
    const doc = (await svc.call('GET', '/openapi.json')).body;
    expect(doc.paths['/widget.js'].get.responses['200']).toBeDefined();
    expect(doc.paths['/widget/{file}'].get.responses['404']).toBeDefined();
  });
});
