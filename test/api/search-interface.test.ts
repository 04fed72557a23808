import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config.js';
import { createEmbedder } from '../../shared/llm/create-embedder.js';
import type { Embedder } from '../../shared/llm/ports/embedder.js';
import { LINE_BREAK } from '../../shared/search/render/paragraph-html.js';
import { MASTER_KEY, startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { clientAddress, widgetCall } from '../helpers/widget-client.js';

let svc: TestService;
/** The real default embedder, which a test can make fail for queries. */
let failEmbedding = false;
const PAGES = [
  { uid: 'refund', title: 'Refund policy', content: '<h2 id="refunds">Refunds</h2><p>You can get a refund within 30 days.<br>Write to billing for a refund.</p>', source_url: 'https://docs.example.com/refund' },
  { uid: 'markup', title: 'Markup in answers', content: '<p>Type &lt;script&gt;alert(1)&lt;/script&gt; &amp; "quotes" to test escaping markup.</p>' },
  { uid: 'install', title: 'Install guide', content: '<pre>pip install quarry\nquarry start</pre>', source_url: 'https://docs.example.com/install' },
  ...Array.from({ length: 8 }, (_, i) => ({
    uid: `tutorial-${i + 1}`, title: `Python tutorial part ${i + 1}`,
    content: `<p>This python tutorial ${'chapter '.repeat(i + 1)}covers lists, loops and functions${' in depth'.repeat(i % 3)}.</p>`,
  })),
];
const configs: Record<string, string> = {};

const settled = () => waitFor(async () => {
  const p = (await svc.call('GET', '/v1/admin/indexes/kb')).body.progress;
  return p.pending === 0 ? p : null;
});
/** Search-interface calls carry no API key: they come from browsers. */
async function widget(method: string, path: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const qs = method === 'GET' ? `?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}` : '';
  const res = await fetch(`${svc.url}${path}${qs}`, {
    method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'GET' ? undefined : JSON.stringify(params),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
const search = (variant: string, query: string, session = 's1', extra: Record<string, unknown> = {}) =>
  widget('GET', `/v1/${variant}/search`, { uid: configs[variant], 'session-id': session, query, ...extra });
const titles = (r: { body: { results: { title?: string }[] } }) => r.body.results.map((x) => x.title);
/** Each named session its own client address: learning counts distinct addresses too (signal-trust.test.ts). */
const addressOf = (session: string) => clientAddress([...session].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 5000, 7));
const searchFrom = (variant: string, uid: string, query: string, session: string) =>
  widgetCall(svc.url, 'GET', `/v1/${variant}/search`, { uid, 'session-id': session, query }, { from: addressOf(session) });

async function createConfig(variant: 'tool' | 'ui', extra: Record<string, unknown> = {}) {
  const r = await svc.call('POST', '/v1/admin/configurations', { variant, name: `${variant} config`, indexes: ['kb'], result_count: 5, ...extra });
  expect(r.status).toBe(201);
  return r.body.uid as string;
}

/** Every table's row count in the storage, plus the service's Redis keys: what "no trace" compares. */
async function footprint() {
  const counts = await svc.tableCounts();
  // BullMQ workers write `<queue>:stalled-check` on their own timer (every 30 s), whatever requests come: not a trace.
  const keys = (await svc.redis.keys(`${svc.prefix}:*`)).filter((k) => !k.includes(':bull:') && !k.includes(':metrics:') && !k.endsWith(':stalled-check')).sort();
  // Values too: a rate-limit counter that moved would be a trace of the request.
  const values = await Promise.all(keys.map(async (k) => ((await svc.redis.type(k)) === 'string' ? svc.redis.get(k) : svc.redis.type(k))));
  return { counts, keys, values };
}

beforeAll(async () => {
  // Far above what the suite sends: the limits themselves are tested in rate-limit.test.ts.
  const glove = await createEmbedder(loadConfig({}).embeddings);
  const embedder: Embedder = {
    id: glove.id, dimensions: glove.dimensions,
    embed: (texts, signal) => (failEmbedding ? Promise.reject(new Error('embedding service down')) : glove.embed(texts, signal)),
  };
  svc = await startTestService({ embedder, env: { QUARRY_RATE_LIMIT_CLIENT: '100000/10', QUARRY_RATE_LIMIT_UID: '100000/10' } });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'kb' })).status).toBe(201);
  for (const { uid, ...body } of PAGES) expect((await svc.call('PUT', `/v2/indexes/kb/documents/${uid}`, body)).status).toBe(204);
  await settled();
  configs.tool = await createConfig('tool', { top_questions: ['How do I get a refund?'], autocomplete_min_queries: 6 });
  configs.ui = await createConfig('ui', { top_questions: ['How do I install it?'], autocomplete_min_queries: 6 });
}, 60_000);
afterAll(() => svc.close());

describe('admin configurations', () => {
  it('creates, reads, updates and deletes, with defaults and clear 400/404s', async () => {
    const uid = await createConfig('tool');
    const got = await svc.call('GET', `/v1/admin/configurations/${uid}`);
    expect(got.body).toMatchObject({ uid, variant: 'tool', indexes: ['kb'], result_count: 5, allowed_origins: ['*'], autocomplete_min_sessions: 3, fusion: 'weighted', keyword_weight: 0.85 });
    const patched = await svc.call('PATCH', `/v1/admin/configurations/${uid}`, { result_count: 3, name: 'renamed' });
    expect(patched.body).toMatchObject({ result_count: 3, name: 'renamed', indexes: ['kb'] });
    const bad = await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'x', indexes: ['nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("'nope' does not exist");
    expect((await svc.call('POST', '/v1/admin/configurations', { variant: 'web', name: 'x', indexes: ['kb'] })).body.message).toContain('variant');
    expect((await svc.call('DELETE', `/v1/admin/configurations/${uid}`)).status).toBe(204);
    expect((await svc.call('GET', `/v1/admin/configurations/${uid}`)).status).toBe(404);
    expect((await svc.call('GET', '/v1/admin/configurations', undefined, { 'x-api-key': 'wrong-key-0123456789' })).status).toBe(401);
  });

  it('can be managed from the CLI through the admin API', async () => {
    const cli = (...args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/configurations.ts', ...args], {
      env: { ...process.env, QUARRY_URL: svc.url, QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_DATA_DIR: svc.dataDir },
    });
    const created = JSON.parse((await cli('create', '--variant', 'ui', '--name', 'From CLI', '--indexes', 'kb', '--result-count', '4')).stdout);
    expect(created).toMatchObject({ variant: 'ui', name: 'From CLI', indexes: ['kb'], result_count: 4 });
    const updated = JSON.parse((await cli('update', created.uid, '--top-questions', 'How?|Why?')).stdout);
    expect(updated.top_questions).toEqual(['How?', 'Why?']);
    await expect(cli('create', '--variant', 'ui', '--name', 'x', '--indexes', 'missing')).rejects.toMatchObject({ stderr: expect.stringContaining("'missing' does not exist") });
    await cli('delete', created.uid);
    expect((await svc.call('GET', `/v1/admin/configurations/${created.uid}`)).status).toBe(404);
  });

  it('sanitizes instant answers when they are saved', async () => {
    const r = await svc.call('POST', `/v1/admin/configurations/${configs.ui}/instant-answers`, {
      title: 'Opening hours', content: '<p onclick="steal()">We are open <b>9-17</b>.<script>alert(1)</script><a href="javascript:alert(1)">x</a></p>',
      url: 'https://example.com/hours', keywords: ['opening hours', 'open'], configuration: { cta: 'Call us' },
    });
    expect(r.status).toBe(201);
    expect(r.body.content).toBe('<p>We are open <b>9-17</b>.<a>x</a></p>');
  });
});

describe.each(['tool', 'ui'])('search interface, %s variant', (variant) => {
  it('returns paragraph results: escaped plain text in <p>, line-break placeholders, url with anchor, signed feedback_data', async () => {
    const r = await search(variant, 'refund billing');
    expect(r.status).toBe(200);
    const first = r.body.results[0];
    expect(first).toMatchObject({ type: 'paragraph', title: 'Refunds', url: 'https://docs.example.com/refund#refunds' });
    expect(first.content).toBe(`<p>You can get a refund within 30 days.${LINE_BREAK}Write to billing for a refund.</p>`);
    expect(first.feedback_data).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const markup = (await search(variant, 'escaping markup')).body.results[0];
    expect(markup.content).toBe('<p>Type &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; to test escaping markup.</p>');
    const install = (await search(variant, 'pip install')).body.results[0];
    expect(install.content).toBe(`<p>pip install quarry${LINE_BREAK}quarry start</p>`);
  });

  it('returns the configured number of results, one per document', async () => {
    const r = await search(variant, 'python tutorial');
    expect(r.body.results).toHaveLength(5);
    expect(new Set(titles(r)).size).toBe(5);
  });

  it('accepts POST with a JSON body (the body wins over the query string) and the X-Session-Id header', async () => {
    const r = await fetch(`${svc.url}/v1/${variant}/search?query=nothing-matches-this`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-session-id': 'header-session' },
      body: JSON.stringify({ uid: configs[variant], query: 'refund', preview: 'true' }),
    });
    expect(r.status).toBe(200);
    expect((await r.json()).results[0].title).toBe('Refunds');
  });

  it('answers 404 for an unknown uid or the other variant, 400 naming a bad parameter', async () => {
    const other = variant === 'tool' ? configs.ui : configs.tool;
    const unknown = await widget('GET', `/v1/${variant}/search`, { uid: 'no-such-uid', 'session-id': 's', query: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 404, message: expect.stringContaining('no-such-uid'), error: 'not_found' });
    expect((await widget('GET', `/v1/${variant}/search`, { uid: other, 'session-id': 's', query: 'x' })).status).toBe(404);
    const device = await search(variant, 'refund', 's1', { device: 'tablet' });
    expect(device.status).toBe(400);
    expect(device.body.message).toContain('device: must be one of desktop, mobile, unknown');
    const session = await widget('GET', `/v1/${variant}/search`, { uid: configs[variant], query: 'x' });
    expect(session.status).toBe(400);
    expect(session.body.message).toContain('session-id');
    const long = await search(variant, 'x'.repeat(501));
    expect(long.status).toBe(400);
    expect(long.body.message).toContain('query: must be at most 500 characters');
    expect((await search(variant, 'refund', 's1', { preview: 'maybe' })).body.message).toContain('preview');
  });

  it('lists top questions', async () => {
    const r = await widget('GET', `/v1/${variant}/top-questions`, { uid: configs[variant] });
    expect(r.body).toEqual({ questions: [{ question: variant === 'tool' ? 'How do I get a refund?' : 'How do I install it?' }] });
  });

  it('records support forwards with uid and url', async () => {
    expect((await widget('POST', `/v1/${variant}/support-forward`, { uid: configs[variant], url: 'https://example.com/help' })).status).toBe(204);
    expect((await widget('POST', `/v1/${variant}/support-forward`, { uid: configs[variant], url: 'not a url' })).status).toBe(400);
    expect((await widget('POST', `/v1/${variant}/support-forward`, { uid: 'nope', url: 'https://example.com/help' })).status).toBe(404);
    const insights = await svc.call('GET', `/v1/admin/configurations/${configs[variant]}/insights?from=2000-01-01&to=2100-01-01`);
    expect(insights.body.support_forwards).toBe(1);
  });

  it('preview leaves no trace in any table or Redis key', async () => {
    await svc.flushEvents();
    const before = await footprint();
    const r = await search(variant, 'python tutorial', 'preview-session', { preview: true });
    expect(r.body.results.length).toBeGreaterThan(0);
    expect((await widget('POST', `/v1/${variant}/feedback`, { type: 'click', feedback_data: r.body.results[0].feedback_data })).status).toBe(204);
    await svc.flushEvents();
    expect(await footprint()).toEqual(before);
  });
});

describe('background warm-up', () => {
  it('runs both legs and content search over an index without recording anything', async () => {
    await svc.flushEvents();
    const before = await footprint();
    await svc.warmUp('kb');
    await svc.flushEvents();
    expect(await footprint()).toEqual(before);
  });
});

describe('public-facing safety', () => {
  it('allows browsers only from the configured origins', async () => {
    const uid = await createConfig('ui', { allowed_origins: ['https://shop.example', 'https://*.help.example'] });
    const from = (origin: string) => widget('GET', '/v1/ui/search', { uid, 'session-id': 's', query: 'refund' }, { origin });
    const ok = await from('https://shop.example');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect((await from('https://eu.help.example')).status).toBe(200);
    const evil = await from('https://evil.example');
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(evil.body.message).toContain('allowed_origins');
    // Servers (no Origin header) are not browsers: CORS does not apply.
    expect((await widget('GET', '/v1/ui/search', { uid, 'session-id': 's', query: 'refund' })).status).toBe(200);
  });

  it('counts requests per client address and uid in Redis', async () => {
    const r = await search('ui', 'refund');
    expect(Number(r.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
    expect((await svc.redis.keys(`${svc.prefix}:rl*`)).length).toBeGreaterThan(0);
  });
});

describe('hybrid retrieval', () => {
  it('ranks by both legs, each alone on request, and falls back to keywords when embedding fails', async () => {
    const vector = await search('ui', 'how do I set up the software', 's1', { retrieval: 'vector', preview: true });
    expect(vector.body.results.length).toBeGreaterThan(0);
    const keyword = await search('ui', 'refund billing', 's1', { retrieval: 'keyword', preview: true });
    expect(keyword.body.results[0].title).toBe('Refunds');
    failEmbedding = true;
    try {
      const r = await search('ui', 'refund billing', 's1', { preview: true });
      expect(r.status).toBe(200);
      expect(titles(r)).toEqual(titles(keyword));
      expect((await search('ui', 'refund billing', 's1', { retrieval: 'vector', preview: true })).body.results).toEqual([]);
    } finally {
      failEmbedding = false;
    }
  });
});

describe('instant answers in search', () => {
  it('come first with their full HTML, url and configuration, and no title', async () => {
    const r = await search('ui', 'what are your opening hours?');
    expect(r.body.results[0]).toEqual({
      type: 'instant_answer', url: 'https://example.com/hours', content: '<p>We are open <b>9-17</b>.<a>x</a></p>',
      configuration: { cta: 'Call us' }, feedback_data: expect.any(String),
    });
    expect((await search('ui', 'python tutorial')).body.results.every((x: { type: string }) => x.type === 'paragraph')).toBe(true);
  });
});

describe('sessions', () => {
  it('never stores the raw session id', async () => {
    const secret = 'raw-session-id-4e8f1c-should-never-be-stored';
    await search('ui', 'refund', secret);
    await widget('POST', '/v1/ui/support-forward', { uid: configs.ui, url: 'https://example.com/x', 'session-id': secret });
    await svc.flushEvents();
    for (const f of readdirSync(svc.dataDir)) {
      if (f.endsWith('.db') || f.endsWith('-wal')) expect(readFileSync(join(svc.dataDir, f)).includes(secret), f).toBe(false);
    }
    expect((await svc.redis.keys(`*${secret}*`))).toEqual([]);
  });
});

describe('autocomplete', () => {
  it('tool: 409 until enough earlier queries exist; ui: [] meanwhile', async () => {
    const tool = await createConfig('tool', { autocomplete_min_queries: 3 });
    const ui = await createConfig('ui', { autocomplete_min_queries: 3 });
    const early = await widget('GET', '/v1/tool/autocomplete', { uid: tool, query: 'py' });
    expect(early.status).toBe(409);
    expect(early.body.message).toContain('needs 3 earlier searches');
    expect(early.body.message).toContain('0 exist');
    expect((await widget('GET', '/v1/ui/autocomplete', { uid: ui, query: 'py' })).body).toEqual({ suggestions: [] });
  });

  it.each(['tool', 'ui'])('%s: suggests queries asked by enough distinct sessions, most asked first, by prefix and limit', async (variant) => {
    const asks: [string, string][] = [
      ['Python Tutorial', 'a'], ['python  tutorial', 'b'], ['python tutorial', 'c'], ['python tutorial', 'c'],
      ['python loops', 'a'], ['python loops', 'b'], ['python loops', 'c'],
      ['python secret plans', 'a'], ['python secret plans', 'a'], ['python secret plans', 'a'], ['python secret plans', 'a'],
      ['refund', 'a'], ['refund', 'b'], ['refund', 'd'],
    ];
    for (const [q, s] of asks) await searchFrom(variant, configs[variant], q, s);
    await search(variant, 'python preview only', 'a', { preview: true });
    await search(variant, 'python preview only', 'b', { preview: true });
    await search(variant, 'python preview only', 'c', { preview: true });
    await svc.flushEvents();
    const ac = (query: string, limit?: number) => widget('GET', `/v1/${variant}/autocomplete`, { uid: configs[variant], query, ...(limit ? { limit } : {}) });
    const shape = (list: string[]) => (variant === 'tool' ? list : list.map((suggestion) => ({ suggestion })));
    expect((await ac('Py')).body).toEqual({ suggestions: shape(['python tutorial', 'python loops']) });
    expect((await ac('python', 1)).body).toEqual({ suggestions: shape(['python tutorial']) });
    expect((await ac('ref')).body).toEqual({ suggestions: shape(['refund']) });
    expect((await ac('zzz')).body).toEqual({ suggestions: variant === 'tool' ? null : [] });
    expect((await ac('py', 21)).status).toBe(400);
  });
});

describe('feedback', () => {
  const clicks = async (uid: string) => (await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=2000-01-01&to=2100-01-01`)).body.clicks as number;

  it('records a valid click and rejects garbled or forged feedback_data with 400, recording nothing', async () => {
    const data = (await search('ui', 'refund')).body.results[0].feedback_data as string;
    const before = await clicks(configs.ui);
    const raw = Buffer.from(data, 'base64');
    const flipped = Buffer.from(raw);
    flipped[Math.floor(raw.length / 2)] ^= 0x04;
    const forgedPayload = Buffer.from(raw);
    forgedPayload.write('{"e":"x"', 1);
    const bad = [
      flipped.toString('base64'), data.slice(0, -4), data.slice(0, data.length - 1), data.toLowerCase(),
      Buffer.from('random bytes that are not a token at all').toString('base64'), forgedPayload.toString('base64'), 'not base64 at all!', '',
    ];
    for (const b of bad) {
      const r = await widget('POST', '/v1/ui/feedback', { type: 'click', feedback_data: b });
      expect(r.status, b).toBe(400);
      expect(r.body.message).toContain('feedback_data');
    }
    expect((await widget('POST', '/v1/tool/feedback', { type: 'click', feedback_data: data })).status).toBe(400);
    expect((await widget('POST', '/v1/ui/feedback', { type: 'view', feedback_data: data })).status).toBe(400);
    expect(await clicks(configs.ui)).toBe(before);
    expect((await widget('POST', '/v1/ui/feedback', { type: 'click', feedback_data: data })).status).toBe(204);
    expect(await clicks(configs.ui)).toBe(before + 1);
  });

  it('a result that several sessions keep choosing rises for that query; one session alone cannot move it', async () => {
    const uid = await createConfig('ui', { result_count: 6 });
    const run = (query: string, session: string) => searchFrom('ui', uid, query, session);
    const query = 'python tutorial chapter';
    const initial = titles(await run(query, 'observer'));
    const fourth = initial[3];
    // One session, many clicks on the 4th result: nothing moves.
    for (let i = 0; i < 8; i++) {
      const r = await run(query, 'lonely');
      const hit = r.body.results.find((x: { title: string }) => x.title === fourth);
      expect((await widgetCall(svc.url, 'POST', '/v1/ui/feedback', { type: 'click', feedback_data: hit.feedback_data }, { from: addressOf('lonely') })).status).toBe(204);
    }
    expect(titles(await run(query, 'observer'))).toEqual(initial);
    // Several sessions choosing it: it rises.
    for (const s of ['s2', 's3', 's4', 's5']) {
      const r = await run(query, s);
      const hit = r.body.results.find((x: { title: string }) => x.title === fourth);
      await widgetCall(svc.url, 'POST', '/v1/ui/feedback', { type: 'click', feedback_data: hit.feedback_data }, { from: addressOf(s) });
    }
    const after = titles(await run(query, 'observer'));
    expect(after.indexOf(fourth)).toBeLessThan(3);
    // Only for that query.
    expect(titles(await run('python tutorial', 'observer')).indexOf(fourth)).toBe(titles(await run('python tutorial', 'observer2')).indexOf(fourth));
  });
});

describe('insights', () => {
  it('aggregates searches, clicks, no-result queries and click positions over a date range', async () => {
    const uid = await createConfig('tool');
    const s = (query: string, session: string) => widget('GET', '/v1/tool/search', { uid, 'session-id': session, query, device: 'mobile' });
    const r = await s('refund', 'a');
    await s('refund', 'b');
    await s('xqzzy unknownword', 'a');
    await widget('POST', '/v1/tool/feedback', { type: 'click', feedback_data: r.body.results[1].feedback_data });
    await svc.flushEvents();
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const i = (await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=${today}&to=${tomorrow}`)).body;
    expect(i).toMatchObject({
      searches: 3, sessions: 2, clicks: 1, searches_with_click: 1, no_result_searches: 1,
      top_queries: [{ query: 'refund', searches: 2, clicks: 1 }, { query: 'xqzzy unknownword', searches: 1, clicks: 0 }],
      no_result_queries: [{ query: 'xqzzy unknownword', searches: 1 }], click_positions: [{ position: 2, clicks: 1 }],
      by_day: [{ day: today, searches: 3, clicks: 1, no_results: 1 }],
    });
    expect(i.ctr).toBeCloseTo(1 / 3);
    const empty = (await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=2000-01-01&to=2000-01-02`)).body;
    expect(empty.searches).toBe(0);
    expect((await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=tomorrow&to=x`)).status).toBe(400);
  });
  it('counts a query typed keystroke by keystroke as one search, and a clicked one as searched', async () => {
    const uid = await createConfig('ui');
    const s = (query: string, session: string) => widget('GET', '/v1/ui/search', { uid, 'session-id': session, query });
    for (const q of ['pyt', 'pyth', 'pytho', 'python', 'python t', 'python tutorial']) await s(q, 'typist');
    const clicked = await s('refund', 'clicker');
    await widget('POST', '/v1/ui/feedback', { type: 'click', feedback_data: clicked.body.results[0].feedback_data });
    await s('refund policy', 'clicker');
    await svc.flushEvents();
    const i = (await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=2000-01-01&to=2100-01-01`)).body;
    expect(i.searches).toBe(3);
    expect(i.top_queries.map((q: { query: string }) => q.query).sort()).toEqual(['python tutorial', 'refund', 'refund policy']);
    expect(i.searches_with_click).toBe(1);
  });
});

describe('rate limits through the real app', () => {
  it('answers 429 with Retry-After once a client address spends its budget; previews count apart, in memory', async () => {
    const small = await startTestService({ workers: false, env: { QUARRY_RATE_LIMIT_CLIENT: '3/60' } });
    try {
      await small.call('POST', '/v1/admin/indexes', { uid: 'empty' });
      const uid = (await small.call('POST', '/v1/admin/configurations', { variant: 'tool', name: 'x', indexes: ['empty'] })).body.uid;
      const get = (preview = false) => fetch(`${small.url}/v1/tool/search?uid=${uid}&session-id=s&query=x${preview ? '&preview=true' : ''}`);
      for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
      const limited = await get();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await limited.json()).toMatchObject({ code: 429, message: expect.stringContaining('per client address') });
      expect((await get(true)).status).toBe(200);
      // The refused search ran beside its count (rate-limit.ts, overlaps) but recorded nothing.
      await small.flushEvents();
      const insights = (await small.call('GET', `/v1/admin/configurations/${uid}/insights?from=2000-01-01&to=2100-01-01`)).body;
      expect(insights.searches).toBe(3);
    } finally {
      await small.close();
    }
  });
});
