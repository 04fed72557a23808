// Random and mutated filters through the real HTTP route: every request must end in a 200 or in a
// 400 whose body has {code, message}, never a 500, a hang or a crashed process. The short mode of
// `npm run fuzz -- --targets content-search` (same generator and check, scripts/fuzz/); input i of the
// seed replays alone. FUZZ_HTTP_REQUESTS raises the count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareFuzzData } from '../../scripts/fuzz/fixtures.js';
import { runHttp } from '../../scripts/fuzz/runner.js';
import { targetNamed, type HttpFuzzContext, type HttpTarget } from '../../scripts/fuzz/targets.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

const REQUESTS = Number(process.env.FUZZ_HTTP_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 0xf1175);
let svc: TestService;
let ctx: HttpFuzzContext;

beforeAll(async () => {
  svc = await startTestService();
  ctx = await prepareFuzzData(svc.url, MASTER_KEY);
}, 120_000);
afterAll(() => svc?.close());

describe('fuzzed filters over HTTP', () => {
  it(`${REQUESTS} random and mutated filters: each a 200 or a 400 with a message (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const r = await runHttp(targetNamed('content-search') as HttpTarget, svc.url, ctx, { seed: SEED, count: REQUESTS, concurrency: 16 });
    console.log(`fuzz content-search: ${r.inputs} requests in ${r.seconds} s, ${JSON.stringify(r.outcomes)}`);
    expect(r.failures).toEqual([]);
    expect(r.inputs).toBe(REQUESTS);
    expect(r.outcomes['200']).toBeGreaterThan(0);
    expect(r.outcomes['400']).toBeGreaterThan(0);
    expect((await svc.call('GET', '/healthz')).status).toBe(200);
  });
});
