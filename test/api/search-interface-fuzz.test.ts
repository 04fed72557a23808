// Random parameters through every search-interface route (the browser-facing surface, no key but the
// conversation listing's), a quarter of them with proxy headers of every form (believed: the service trusts
// loopback): every request must end in a 2xx, or a 4xx with a {code, message} body, never a 5xx, a hang or a
// crashed process; streamed answers end in `done` or an error event of a 4xx. The short mode of
// `npm run fuzz -- --targets widget` (same generators and checks, scripts/fuzz/); input i of the seed replays
// alone. FUZZ_WIDGET_REQUESTS raises the count per route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareFuzzData } from '../../scripts/fuzz/fixtures.js';
import { runHttp } from '../../scripts/fuzz/runner.js';
import { TARGETS, type HttpFuzzContext, type HttpTarget } from '../../scripts/fuzz/targets.js';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';

const REQUESTS = Number(process.env.FUZZ_WIDGET_REQUESTS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const WIDGET = TARGETS.filter((t): t is HttpTarget => t.kind === 'http' && t.name.startsWith('widget:'));
let svc: TestService;
let ctx: HttpFuzzContext;

beforeAll(async () => {
  // Behind a trusted proxy (loopback): the fuzzed proxy headers reach the client rule and every limit keyed on it.
  svc = await startTestService({ env: { QUARRY_RATE_LIMIT_CLIENT: '1000000/10', QUARRY_RATE_LIMIT_UID: '1000000/10', QUARRY_TRUST_PROXY: 'loopback' } });
  ctx = await prepareFuzzData(svc.url, MASTER_KEY);
}, 120_000);
afterAll(() => svc?.close());

describe('search interface fuzzing', () => {
  it('covers every search-interface route', () => {
    expect(WIDGET.map((t) => t.name).sort()).toEqual(
      ['autocomplete', 'chat', 'conversations', 'feedback', 'search', 'summary', 'support-forward', 'top-questions'].map((op) => `widget:${op}`));
  });

  for (const target of WIDGET) {
    it(`${target.name}: ${REQUESTS} random requests answered with 2xx or a 4xx {code, message} (seed ${SEED})`, { timeout: 300_000 }, async () => {
      const r = await runHttp(target, svc.url, ctx, { seed: SEED, count: REQUESTS, concurrency: 4 });
      console.log(`fuzz ${target.name}: ${r.inputs} requests in ${r.seconds} s, ${JSON.stringify(r.outcomes)}`);
      expect(r.failures).toEqual([]);
      expect(r.inputs).toBe(REQUESTS);
      // Both a success and a refusal reached: the generator gets past validation and also breaks it.
      expect(Object.keys(r.outcomes).some((s) => s.startsWith('2'))).toBe(true);
      expect(Object.keys(r.outcomes).some((s) => s.startsWith('4'))).toBe(true);
      // The service still answers normally afterwards.
      expect((await fetch(`${svc.url}/v1/ui/search?uid=${ctx.uid}&session-id=s&query=python`)).status).toBe(200);
    });
  }
});
