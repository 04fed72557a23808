import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../scripts/chaos/options.js';
import { runChaos } from '../../scripts/chaos/run.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * `npm run chaos -- --short` in process: the service as separate processes (API, a worker per
 * pipeline queue, the generator, its own redis-server, a stub model server) under a push and a
 * widget load while the API, the embed worker and Redis are SIGKILLed, Redis is stalled past the
 * generation timeout, the data folder's disk fills up and the model endpoints fail; in PostgreSQL
 * mode (`--storage postgres`) the database restarts and its backends are killed instead of the
 * disk filling up. The invariants,
 * not the timings: nothing promised lost, duplicated or stale, nothing hung, no 5xx outside an
 * outage, every process back up. A fixed seed makes a failure replay with the same moments.
 */
describe('chaos, short', () => {
  const modes = [
    { storage: 'sqlite', faults: 'kills, stalls, a full disk and failing models' },
    // PostgreSQL mode adds a restart of the database (through a proxy) and its backends killed, and has no disk to fill.
    { storage: 'postgres', faults: 'kills, stalls, a restarted database, killed backends and failing models' },
  ];
  for (const { storage, faults } of modes) it(`keeps every promise through ${faults} (${storage})`, { timeout: 900_000 }, async () => {
    const opts = parseOptions(['--short', '--seed', '1414', '--quiet', '--storage', storage]);
    const report = await runChaos(ROOT, opts, () => {});

    const ran = report.scenarios.filter((s) => !s.skipped);
    // disk-full may be skipped only for want of a mountable file system, and says so.
    for (const s of report.scenarios.filter((x) => x.skipped)) expect(s.skipped).toMatch(/mount/);
    expect(ran.length).toBeGreaterThanOrEqual(opts.scenarios.length - 1);
    // Every broken invariant of every scenario at once, each with the scenario's name.
    expect(ran.flatMap((s) => s.failures.map((f) => `${s.scenario}: ${f}`))).toEqual([]);
    for (const s of ran) {
      const v = s.verdict!;
      const r = s.requests!;
      const p = s.processes!;
      const where = `${s.scenario}: ${s.failures.join('; ')}`;
      expect({ lost: v.lost.count, wrongVersion: v.wrongVersion.count, resurrected: v.resurrected.count, duplicated: v.duplicated.count }, where)
        .toEqual({ lost: 0, wrongVersion: 0, resurrected: 0, duplicated: 0 });
      expect({ notSearchable: v.notSearchable.count, staleSearchable: v.staleSearchable.count, failed: v.failedDocuments, settled: v.settledMs !== null }, where)
        .toEqual({ notSearchable: 0, staleSearchable: 0, failed: 0, settled: true });
      expect({ hung: r.hung, unexpected5xx: r.unexpected5xx, badBodies: r.badBodies }, where).toEqual({ hung: 0, unexpected5xx: 0, badBodies: 0 });
      expect({ down: p.down, crashes: p.crashes.map((c) => `${c.process} ${c.exit}`) }, where).toEqual({ down: [], crashes: [] });
      for (const k of Object.values(p.kills)) expect(k!.survived, where).toBe(k!.kills);
      // The load ran: pushes were promised and searches answered in every scenario.
      expect(v.promised, where).toBeGreaterThan(0);
      expect(r.requests.search?.ok ?? 0, where).toBeGreaterThan(0);
    }
    expect(report.finalFailures).toEqual([]);
    expect(report.totals.durable).toBe(report.totals.documentsAccepted);
    expect(report.totals.searchable).toBe(report.totals.documentsAccepted);
    expect(report.passed).toBe(true);
  });
});
