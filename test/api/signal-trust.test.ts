import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { clientAddress, widgetCall } from '../helpers/widget-client.js';

/**
 * Click learning and autocomplete learn from visitors (issue 14). Session ids are the client's to choose, so
 * one client inventing sessions must not lift a result or publish a suggestion: what counts is distinct
 * client addresses too (QUARRY_LEARNING_MIN_ADDRESSES, default 3). Each client here connects from its own
 * loopback address, as the service sees real visitors (no proxy header is trusted).
 */
let svc: TestService;
const PAGES = Array.from({ length: 8 }, (_, i) => ({
  uid: `tutorial-${i + 1}`, title: `Python tutorial part ${i + 1}`,
  content: `<p>This python tutorial ${'chapter '.repeat(i + 1)}covers lists, loops and functions${' in depth'.repeat(i % 3)}.</p>`,
}));
const ATTACKER = '127.0.99.1';

const createConfig = async (variant: 'tool' | 'ui') =>
  (await svc.call('POST', '/v1/admin/configurations', { variant, name: `${variant} signals`, indexes: ['kb'], result_count: 6, autocomplete_min_queries: 0 })).body.uid as string;
const search = (uid: string, query: string, session: string, from: string) =>
  widgetCall(svc.url, 'GET', '/v1/ui/search', { uid, 'session-id': session, query }, { from });
const titles = (r: { body: { results: { title?: string }[] } }) => r.body.results.map((x) => x.title);

/** A visitor searching and clicking the result titled `title`. */
async function choose(uid: string, query: string, title: string, session: string, from: string) {
  const hit = (await search(uid, query, session, from)).body.results.find((x: { title: string }) => x.title === title);
  expect((await widgetCall(svc.url, 'POST', '/v1/ui/feedback', { type: 'click', feedback_data: hit.feedback_data }, { from })).status).toBe(204);
}

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_RATE_LIMIT_CLIENT: '100000/10', QUARRY_RATE_LIMIT_UID: '100000/10' } });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'kb' })).status).toBe(201);
  for (const { uid, ...body } of PAGES) expect((await svc.call('PUT', `/v2/indexes/kb/documents/${uid}`, body)).status).toBe(204);
  await waitFor(async () => ((await svc.call('GET', '/v1/admin/indexes/kb')).body.progress.pending === 0 ? true : null));
}, 60_000);
afterAll(() => svc.close());

describe('click learning', () => {
  it('sessions invented by one address cannot lift a result; visitors from several addresses can', async () => {
    const uid = await createConfig('ui');
    const query = 'python tutorial chapter';
    const initial = titles(await search(uid, query, 'observer', clientAddress(0)));
    const fourth = initial[3]!;
    for (let i = 0; i < 12; i++) await choose(uid, query, fourth, `invented-${i}`, ATTACKER);
    expect(titles(await search(uid, query, 'observer', clientAddress(0)))).toEqual(initial);

    // One more address makes two: still fewer than the minimum of three.
    await choose(uid, query, fourth, 'visitor-1', clientAddress(1));
    expect(titles(await search(uid, query, 'observer', clientAddress(0)))).toEqual(initial);
    for (const n of [2, 3, 4]) await choose(uid, query, fourth, `visitor-${n}`, clientAddress(n));
    expect(titles(await search(uid, query, 'observer', clientAddress(0))).indexOf(fourth)).toBeLessThan(3);
  });
});

describe('autocomplete', () => {
  const ac = (variant: 'tool' | 'ui', uid: string, query: string) => widgetCall(svc.url, 'GET', `/v1/${variant}/autocomplete`, { uid, query });
  const suggestions = async (variant: 'tool' | 'ui', uid: string, query: string) => {
    const body = (await ac(variant, uid, query)).body.suggestions;
    return variant === 'tool' ? (body ?? []) : body.map((s: { suggestion: string }) => s.suggestion);
  };

  it.each(['tool', 'ui'] as const)('%s: sessions invented by one address publish nothing; a query asked from several addresses is suggested', async (variant) => {
    const uid = await createConfig(variant);
    const ask = (query: string, session: string, from: string) => widgetCall(svc.url, 'GET', `/v1/${variant}/search`, { uid, 'session-id': session, query }, { from });
    for (let i = 0; i < 20; i++) await ask('python is a scam visit evil example', `bot-${i}`, ATTACKER);
    for (const n of [1, 2, 3]) await ask('python loops', `visitor-${n}`, clientAddress(n));
    await svc.flushEvents();
    expect(await suggestions(variant, uid, 'python')).toEqual(['python loops']);
  });

  it('an operator blocks a suggestion: it never shows until unblocked', async () => {
    const uid = await createConfig('ui');
    for (const n of [1, 2, 3, 4]) {
      await search(uid, 'python loops', `visitor-${n}`, clientAddress(n));
      await search(uid, 'Python   Lists', `visitor-${n}`, clientAddress(n));
    }
    await svc.flushEvents();
    expect((await suggestions('ui', uid, 'py')).sort()).toEqual(['python lists', 'python loops']);

    const path = `/v1/admin/configurations/${uid}/blocked-suggestions`;
    const blocked = await svc.call('PUT', path, { suggestion: 'PYTHON  Lists' });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({ blocked_suggestions: ['python lists'], next_cursor: null });
    expect((await svc.call('PUT', path, { suggestion: 'python lists' })).body).toEqual({ blocked_suggestions: ['python lists'], next_cursor: null });
    expect(await suggestions('ui', uid, 'py')).toEqual(['python loops']);
    // Asked again by many more visitors, it stays blocked.
    for (const n of [5, 6, 7, 8]) await search(uid, 'python lists', `visitor-${n}`, clientAddress(n));
    await svc.flushEvents();
    expect(await suggestions('ui', uid, 'python l')).toEqual(['python loops']);
    expect((await svc.call('GET', path)).body).toEqual({ blocked_suggestions: ['python lists'], next_cursor: null });

    expect((await svc.call('DELETE', `${path}?suggestion=${encodeURIComponent('Python lists')}`)).status).toBe(204);
    expect((await svc.call('GET', path)).body).toEqual({ blocked_suggestions: [], next_cursor: null });
    expect((await suggestions('ui', uid, 'py')).sort()).toEqual(['python lists', 'python loops']);
  });

  it('blocking is admin-only and checks its input', async () => {
    const uid = await createConfig('ui');
    const path = `/v1/admin/configurations/${uid}/blocked-suggestions`;
    const put = await svc.call('PUT', path, {});
    expect(put.status).toBe(400);
    expect(put.body.message).toContain('suggestion');
    expect((await svc.call('PUT', path, { suggestion: '   ' })).status).toBe(400);
    expect((await svc.call('PUT', path, { suggestion: 'x'.repeat(501) })).status).toBe(400);
    expect((await svc.call('PUT', '/v1/admin/configurations/no-such-uid/blocked-suggestions', { suggestion: 'x' })).status).toBe(404);
    const reader = (await svc.call('POST', '/v1/admin/keys', { name: 'reader', permissions: ['read'] })).body.key;
    expect((await svc.call('PUT', path, { suggestion: 'x' }, { 'x-api-key': reader })).status).toBe(403);
    expect((await svc.call('GET', path, undefined, { 'x-api-key': '' })).status).toBe(401);
  });
});
