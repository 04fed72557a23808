import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HOLD_MS } from '../../shared/search/engine/search-budget.js';
import { MAX_WILDCARDS, MAX_WILDCARD_CHARS } from '../../shared/search/query/fq-parser.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

// Filters and queries sized to hurt, through the real app over HTTP. Search runs on the API's event
// loop: a costly one must neither hang nor stop the process's other routes (a probe says so).
let svc: TestService;
const SEARCH_TIMEOUT_MS = 3000;
const URL_80 = `https://shop.example.com/catalogue/outdoor/footwear/trail-running/${'x'.repeat(15)}`;
const LONG = 'a'.repeat(2000);
/** Documents whose `u` makes each of the costly filter's clauses take value × pattern steps. */
const COSTLY_DOCS = 400;

/**
 * Clauses within the bounds that cost |u| × run steps per document each (the greedy matcher's worst
 * case: after the last star a long literal run is tried at every position). The leading `*?` pairs
 * are what made the old regular expression backtrack without end.
 */
const costlyFilter = (clauses: number, run: number) =>
  Array.from({ length: clauses }, (_, i) => `u:${'*?'.repeat(8)}${'a'.repeat(run)}${String.fromCharCode(98 + i)}`).join(' OR ');

const search = (body: Record<string, unknown>) =>
  svc.call('POST', '/v1/content/search', { index_uid: 'abuse', query: '', boosting: 'body', filter: '', fields: [], limit: 10, ...body });

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_SEARCH_TIMEOUT_MS: String(SEARCH_TIMEOUT_MS) } });
  const schema = { fields: { title: { type: 'text' }, body: { type: 'text' }, u: { type: 'string' }, t: { type: 'text' } } };
  expect((await svc.call('POST', '/v1/content/indexes', { uid: 'abuse', language_code: 'en', schema })).status).toBe(200);
  const docs = [
    { uid: 'url', fields: { title: 'A shoe page', body: 'trail shoes', u: URL_80, t: `${'a'.repeat(255)} ${'a'.repeat(200)}` } },
    ...Array.from({ length: COSTLY_DOCS }, (_, i) => ({ uid: `long-${i}`, fields: { title: `Long ${i}`, body: 'padding', u: LONG } })),
  ];
  for (const d of docs) expect((await svc.call('POST', '/v1/content/indexes/abuse/documents', d)).status).toBe(204);
  // One document whose check alone is long: a 32,768-character value (the most a string field holds).
  expect((await svc.call('POST', '/v1/content/indexes', { uid: 'hold', language_code: 'en', schema })).status).toBe(200);
  expect((await svc.call('POST', '/v1/content/indexes/hold/documents', { uid: 'big', fields: { title: 'Big', body: 'x', u: 'a'.repeat(32_768) } })).status).toBe(204);
  for (const [uid, count] of [['abuse', docs.length], ['hold', 1]] as const) {
    const progress = async () => (await svc.call('GET', `/v1/admin/indexes/${uid}`)).body.progress;
    await waitFor(async () => (await progress()).pending === 0, 120_000);
    expect(await progress()).toMatchObject({ pending: 0, indexed: count, failed: 0 });
  }
}, 180_000);
afterAll(() => svc?.close());

describe('wildcard filters', () => {
  // Failed before the fix (vitest timeout): the regular expression built from this 17-character
  // pattern backtracks through every split of the 80-character url among its stars.
  it('u:*?*?*?*?*?*?*?*?Q on a string field holding an 80-character url answers at once', async () => {
    const r = await search({ filter: 'u:*?*?*?*?*?*?*?*?Q' });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([]);
    const hit = await search({ filter: `u:*?*?*?*?*?*?*?*?${URL_80.slice(-1)}` });
    expect(hit.body.results.map((x: { uid: string }) => x.uid)).toEqual(['url']);
  }, 60_000);

  it('nested wildcards over long terms of a text field answer at once', async () => {
    const r = await search({ filter: 't:*a*a*a*a*a*a*a*a*a*b' });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([]);
    expect((await search({ filter: 't:*a*a*a*a*a*a*a*a*a*a' })).body.results.map((x: { uid: string }) => x.uid)).toEqual(['url']);
  }, 60_000);

  it(`a pattern over ${MAX_WILDCARD_CHARS} characters or over ${MAX_WILDCARDS} wildcards is a 400 naming filter`, async () => {
    const long = await search({ filter: `u:*${'a'.repeat(MAX_WILDCARD_CHARS)}` });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 400, error: 'invalid_filter', details: { position: 2 } });
    expect(long.body.message).toMatch(/^Invalid request: filter: .*at most 256 characters/);
    const many = await search({ filter: Array.from({ length: MAX_WILDCARDS + 1 }, (_, i) => `u:*${i}*`).join(' OR ') });
    expect(many.status).toBe(400);
    expect(many.body.message).toMatch(/^Invalid request: filter: .*at most 16 wildcard terms/);
  });
});

describe('search time budget', () => {
  // Failed before the fix: the search held the event loop until the run was killed (no probe answered).
  it('a filter within the bounds but costly over the index is cut off with 504 while other routes keep answering', async () => {
    // 400 documents × 16 clauses × 2,000 × 180 steps: far beyond the budget.
    const filter = costlyFilter(MAX_WILDCARDS, 180);
    let finished = false;
    const attack = search({ filter }).finally(() => {
      finished = true;
    });
    // Let the search start before probing, so a probe answered now was answered during it.
    await new Promise((r) => setTimeout(r, 300));
    let answeredDuring = 0;
    while (!finished) {
      const probe = await fetch(`${svc.url}/healthz`);
      expect(probe.status).toBe(200);
      if (!finished) answeredDuring++;
    }
    const r = await attack;
    expect(r.status).toBe(504);
    expect(r.body).toMatchObject({ code: 504, error: 'timeout' });
    expect(r.body.message).toContain(`took longer than ${SEARCH_TIMEOUT_MS} ms`);
    expect(r.body.message).toContain('wildcards');
    expect(answeredDuring).toBeGreaterThan(0);
    // The process is none the worse: an ordinary search answers, the same filter on one document too.
    const ok = await search({ query: 'trail', filter: 'u:https*' });
    expect(ok.status).toBe(200);
    expect(ok.body.results.map((x: { uid: string }) => x.uid)).toEqual(['url']);
  }, 120_000);

  it(`a document whose check alone would hold the event loop is cut off after ${MAX_HOLD_MS} ms without a pause`, async () => {
    const filter = costlyFilter(MAX_WILDCARDS, 200);
    const r = await svc.call('POST', '/v1/content/search', { index_uid: 'hold', query: '', boosting: 'body', filter, fields: [], limit: 10 });
    expect(r.status).toBe(504);
    expect(r.body).toMatchObject({ code: 504, error: 'timeout' });
    expect(r.body.message).toContain(`ran ${MAX_HOLD_MS} ms without a pause`);
  }, 120_000);

  it('a costly query that cannot use the filter cache is cut off the same way (NOW in the filter)', async () => {
    const filter = `${costlyFilter(8, 180)} OR u:[NOW TO *]`;
    const r = await search({ filter });
    expect(r.status).toBe(504);
    expect(r.body.error).toBe('timeout');
  }, 120_000);
});
