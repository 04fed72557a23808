// One group of the abuse catalogue (scripts/abuse/attacks.ts) against the real app over HTTP: each attack
// must get only answers the spec allows (a 2xx or its 4xx with {code, message}) while every probe request
// (GET /healthz, a normal widget search, from another client address) is answered; attacks that hold
// connections must have probes answered while they hold them. Times are measured by `npm run abuse`, not
// asserted here: a request the service cannot finish fails by the generous vitest timeout instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Attack } from '../../scripts/abuse/attacks.js';
import { prepareAbuseTarget, type AbuseTarget } from '../../scripts/abuse/fixtures.js';
import { attacksIn, runAttack } from '../../scripts/abuse/runner.js';
import type { ChildProcess } from 'node:child_process';
import { MASTER_KEY, startTestService, type TestService } from '../helpers/test-service.js';
import { spawnGenerator, spawnWorker, stopProcess } from '../helpers/worker-process.js';

/** Short request timeout, so slow-loris attacks are cut off within the test's time. */
const LIMITS = { requestTimeoutMs: 8000 };

export function abuseSuite(group: Attack['group']): void {
  let svc: TestService;
  let target: AbuseTarget;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    // Behind a trusted proxy (loopback): attacks and probes come from different client addresses. Indexing and
    // answers run in worker processes of their own, as deployed: a 10 MB page sectioned in this process
    // would hold the API's event loop for reasons no API request causes.
    svc = await startTestService({ workers: false, env: { QUARRY_TRUST_PROXY: 'loopback', QUARRY_REQUEST_TIMEOUT_SECONDS: String(LIMITS.requestTimeoutMs / 1000) } });
    const env = { QUARRY_DATA_DIR: svc.dataDir, QUARRY_REDIS_PREFIX: svc.prefix, REDIS_URL: svc.config.redis.url };
    workers.push(await spawnWorker(env), await spawnGenerator(env));
    target = await prepareAbuseTarget(svc.url, MASTER_KEY);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => stopProcess(w, 'SIGKILL')));
    await svc?.close();
  });

  describe(`abuse: ${group}`, () => {
    for (const attack of attacksIn(group)) {
      it(`${attack.id}: ${attack.route}, ${attack.input}`, { timeout: 300_000 }, async () => {
        const r = await runAttack(attack, target, LIMITS);
        expect(r.problems).toEqual([]);
        expect(r.probes.answered).toBe(r.probes.sent);
        expect(r.probes.answered).toBeGreaterThan(0);
      });
    }
  });
}
