// Random parameters through every public search-interface route (no key, the browser-facing surface):
// every request must end in a 2xx, a 400, 404 or 409 with a {code, message} body, never a 500, a hang
// or a crashed process. Seeded, so a failure replays. FUZZ_WIDGET_REQUESTS raises the count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../helpers/prng.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

const REQUESTS = Number(process.env.FUZZ_WIDGET_REQUESTS ?? 1500);
let svc: TestService;
let uid = '';
let feedback = '';

const VALUES: unknown[] = [
  '', ' ', 'python', 'refund', '"quoted', '<script>alert(1)</script>', 'a'.repeat(501), 'ü🙂中文', '%00', '\u0000', '../../etc',
  0, -1, 1.5, 1e300, true, false, null, [], ['a'], {}, { a: 1 }, 'true', '1', 'desktop', 'mobile', 'tablet', 'click', 'view',
  'https://example.com/x', 'javascript:alert(1)', 'html', 'markdown',
];
const NAMES = ['uid', 'query', 'session-id', 'preview', 'device', 'limit', 'type', 'feedback_data', 'url', 'retrieval', 'reference_format', 'extra'];
const ROUTES: [string, string][] = [
  ['GET', 'search'], ['POST', 'search'], ['GET', 'autocomplete'], ['POST', 'feedback'], ['POST', 'support-forward'], ['GET', 'top-questions'],
  ['GET', 'summary'], ['POST', 'chat'],
];

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_RATE_LIMIT_CLIENT: '1000000/10', QUARRY_RATE_LIMIT_UID: '1000000/10' } });
  await svc.call('POST', '/v1/admin/indexes', { uid: 'kb' });
  await svc.call('PUT', '/v2/indexes/kb/documents/a', { title: 'Python tutorial', content: '<h2>Lists</h2><p>Python lists hold items. Append to a list with append.</p>' });
  await waitFor(async () => ((await svc.call('GET', '/v1/admin/indexes/kb')).body.progress.indexed === 1 ? true : null));
  uid = (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'fuzz', indexes: ['kb'], autocomplete_min_queries: 0 })).body.uid;
  const r = await fetch(`${svc.url}/v1/ui/search?uid=${uid}&session-id=s&query=python`);
  feedback = (await r.json()).results[0].feedback_data;
}, 60_000);
afterAll(() => svc.close());

describe('search interface fuzzing', () => {
  it(`answers ${REQUESTS} random requests with 2xx or a 4xx {code, message}, never a 5xx`, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261122);
    const rand = prng(seed);
    const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
    const statuses = new Map<number, number>();
    for (let i = 0; i < REQUESTS; i++) {
      const [method, op] = pick(ROUTES);
      const variant = rand() < 0.5 ? 'ui' : 'tool';
      // Half the requests start valid and get one parameter garbled; the rest are random throughout.
      const params: Record<string, unknown> = {};
      if (rand() < 0.5) {
        Object.assign(params, { uid, 'session-id': `s${i % 7}`, query: pick(['python lists', 'append', 'refund', 'how do I append to a list?']), type: 'click', url: 'https://example.com/help', feedback_data: feedback });
        if (rand() < 0.7) params[pick(NAMES)] = pick(VALUES);
      } else {
        if (rand() < 0.8) params.uid = rand() < 0.8 ? uid : pick(VALUES);
        for (const name of NAMES) if (rand() < 0.35) params[name] = pick(VALUES);
      }
      if (op === 'feedback' && rand() < 0.5) params.feedback_data = rand() < 0.5 ? feedback : feedback.slice(0, Math.floor(rand() * feedback.length));
      const qs = new URLSearchParams(Object.entries(params).filter(([, v]) => typeof v === 'string' || typeof v === 'number').map(([k, v]) => [k, String(v)]));
      const rawBody = rand() < 0.05 ? '{"broken": ' : JSON.stringify(params);
      const res = await fetch(`${svc.url}/v1/${variant}/${op}${method === 'GET' ? `?${qs}` : ''}`, {
        method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : rawBody,
      });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) throw new Error(`seed ${seed}, request ${i}: ${method} /v1/${variant}/${op} ${JSON.stringify(params).slice(0, 300)} -> ${res.status} ${text.slice(0, 300)}`);
      if (res.status >= 400) {
        const body = JSON.parse(text);
        expect(body.code, text).toBe(res.status);
        expect(typeof body.message).toBe('string');
      }
    }
    console.log(`widget fuzz: ${REQUESTS} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    // The service still answers normally afterwards.
    expect((await fetch(`${svc.url}/v1/ui/search?uid=${uid}&session-id=s&query=python`)).status).toBe(200);
  }, 300_000);
});
