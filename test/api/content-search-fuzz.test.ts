// Random and mutated filters through the real HTTP route: every request must end in a 200 or in a
// 400 whose body has a message, never a 500, a hang or a crashed process. Seeded, so failures replay.
// FUZZ_HTTP_REQUESTS raises the count (the acceptance run used 100000).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../helpers/prng.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

const REQUESTS = Number(process.env.FUZZ_HTTP_REQUESTS ?? 10_000);
let svc: TestService;

const SEEDS = [
  'status:published', '-status:draft', 'price:[10 TO 100}', 'price:{* TO 5]', 'published:[NOW-7DAYS TO NOW/DAY]',
  'title:(trail OR road) AND NOT status:draft', 'title:"trail shoes"~2', 'status:pub*', 'title:*', '*:*', 'featured:true',
  'stock:3 || stock:[5 TO *]', '+title:shoe -price:[100 TO *]', 'status:(a b c)', 'unknown:x', 'price:abc',
];
const ALPHABET = [...'()[]{}:"\\*?~^+-!&| TOANDORNOT0123456789az.'];

function mutate(rand: () => number, s: string): string {
  let out = s;
  const edits = 1 + Math.floor(rand() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (out.length + 1));
    const r = rand();
    const c = r < 0.9 ? ALPHABET[Math.floor(rand() * ALPHABET.length)] : String.fromCharCode(Math.floor(rand() * 0x10000));
    if (r < 0.4) out = out.slice(0, at) + c + out.slice(at);
    else if (r < 0.7) out = out.slice(0, at) + out.slice(at + 1);
    else out = out.slice(0, at) + c + out.slice(at + 1);
  }
  return rand() < 0.1 ? `${out} ${SEEDS[Math.floor(rand() * SEEDS.length)]}` : out;
}

beforeAll(async () => {
  svc = await startTestService();
  const schema = { fields: { title: { type: 'text' }, status: { type: 'string' }, price: { type: 'float' }, stock: { type: 'int' }, published: { type: 'date' }, featured: { type: 'boolean' } } };
  await svc.call('POST', '/v1/content/indexes', { uid: 'fuzz', language_code: 'en', schema });
  await svc.call('POST', '/v1/content/indexes/fuzz/documents', { uid: 'a', fields: { title: 'Trail shoes', status: 'published', price: 90, stock: 3, published: '2026-01-01', featured: true } });
  await waitFor(async () => (await svc.call('GET', '/v1/admin/indexes/fuzz')).body.progress.indexed === 1);
});
afterAll(() => svc.close());

describe('fuzzed filters over HTTP', () => {
  it(`${REQUESTS} random and mutated filters: each a 200 or a 400 with a message`, { timeout: 600_000 }, async () => {
    const rand = prng(0xf1175);
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const i = next++;
        const base = SEEDS[i % SEEDS.length];
        const filter = rand() < 0.2 ? Array.from({ length: Math.floor(rand() * 40) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join('') : mutate(rand, base);
        const r = await svc.call('POST', '/v1/content/search', { index_uid: 'fuzz', query: 'trail', boosting: 'title', filter, fields: [] });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status !== 200 && !(r.status === 400 && typeof r.body?.message === 'string' && r.body.message.length > 0)) {
          throw new Error(`filter ${JSON.stringify(filter)} -> ${r.status} ${JSON.stringify(r.body)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect((statuses.get(200) ?? 0) + (statuses.get(400) ?? 0)).toBe(REQUESTS);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect((await svc.call('GET', '/healthz')).status).toBe(200);
  });
});
