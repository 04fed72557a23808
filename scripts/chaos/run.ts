import os from 'node:os';
import { prng } from '../../test/helpers/prng.js';
import { startCluster, type Cluster } from './cluster.js';
import { runLoad } from './load.js';
import { Ledger } from './ledger.js';
import type { ChaosOptions } from './options.js';
import { failuresOf, printTable, processFigures, requestFigures, type ScenarioRow } from './report.js';
import { startHealthProbe } from './probe.js';
import { Recorder } from './requests.js';
import { SCENARIO_TABLE, type Outage } from './scenarios.js';
import type { ProcessKind, ProcessStats } from './supervisor.js';
import { verify, type Verdict } from './verify.js';

export interface ChaosReport {
  options: ChaosOptions;
  machine: { cpus: number; node: string; platform: string; totalMemMB: number };
  startedAt: string;
  seconds: number;
  scenarios: ScenarioRow[];
  /** The check over every document at the end of the run. */
  final: Verdict | null;
  /** Invariants the final check found broken. */
  finalFailures: string[];
  totals: {
    documentsAccepted: number;
    durable: number;
    searchable: number;
    killsSurvived: Partial<Record<ProcessKind, string>>;
    crashes: number;
    longestPushGapMs: number;
    longestSearchGapMs: number;
    hung: number;
    unexpected5xx: number;
  };
  passed: boolean;
}

const INDEX = 'chaos';

/**
 * The chaos run: one installation, one long push spread over the scenarios with a steady widget
 * load beside it; each scenario breaks something while the load runs, restores it, waits for the
 * index to settle and checks the invariants. A last check covers every document pushed.
 */
export async function runChaos(root: string, opts: ChaosOptions, say: (m: string) => void): Promise<ChaosReport> {
  const t0 = Date.now();
  const rand = prng(opts.seed);
  say(`seed ${opts.seed}; ${opts.scenarios.length} scenarios of ${opts.seconds} s; ${opts.docs} new documents in all; storage ${opts.storage}`);
  const cluster = await startCluster(root, { storage: opts.storage, short: opts.short, say });
  const rows: ScenarioRow[] = [];
  let final: Verdict | null = null;
  // Ctrl-C stops every process and unmounts the small disk before exiting.
  const onSignal = (sig: string) => {
    say(`${sig}: stopping the cluster`);
    void cluster.close().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const admin = (method: string, path: string, body?: unknown) => adminCall(cluster, method, path, body);
    const made = await admin('POST', '/v1/admin/indexes', { uid: INDEX, language_code: 'en' });
    if (made.status !== 201 && made.status !== 200) throw new Error(`creating the index answered ${made.status}: ${JSON.stringify(made.json)}`);
    const config = await admin('POST', '/v1/admin/configurations', { variant: 'ui', name: 'Chaos', indexes: [INDEX], result_count: 10 });
    if (config.status !== 201) throw new Error(`creating the configuration answered ${config.status}: ${JSON.stringify(config.json)}`);
    const configUid = config.json.uid as string;
    const rec = new Recorder(cluster.baseUrl, { 'x-api-key': cluster.masterKey });
    const ledger = new Ledger(rand);
    const perScenario = Math.ceil(opts.docs / opts.scenarios.length);
    const settleTimeoutMs = Math.max(120_000, perScenario * 20);

    for (const name of opts.scenarios) {
      const scenario = SCENARIO_TABLE[name];
      const skipped = scenario.unavailable?.(cluster, opts.storage) ?? null;
      if (skipped) {
        say(`${name}: skipped: ${skipped}`);
        rows.push({ scenario: name, about: scenario.about, skipped, seconds: 0, load: null, health: null, outages: [], requests: null, processes: null, verdict: null, passed: true, failures: [] });
        continue;
      }
      say(`${name}: ${scenario.about}`);
      const started = Date.now();
      const before = new Map<string, ProcessStats>(cluster.processes.map((p) => [p.name, structuredClone(p.stats)]));
      const from = rec.records.length;
      const outages: Outage[] = [];
      const durationMs = Math.max(opts.seconds * 1000, scenario.minDurationMs ?? 0);
      const probe = startHealthProbe(cluster.baseUrl);
      const [load] = await Promise.all([
        runLoad(rec, ledger, rand, { index: INDEX, configUid, newDocs: perScenario, durationMs, batch: opts.batch, searchRate: opts.searchRate }),
        scenario.inject({ cluster, rand, durationMs, outageMs: opts.outageSeconds * 1000, kills: opts.kills, outages, say }),
      ]);
      const health = await probe.stop();
      await Promise.all(cluster.processes.map((p) => p.waitUp(60_000)));
      const touched = ledger.takeTouched();
      const verdict = await verify({
        call: admin, ledger, index: INDEX, configUid, settleTimeoutMs,
        check: [...new Set([...touched, ...sample(rand, ledger.docs, 200)])], uiSample: sample(rand, touched, opts.uiSample),
      });
      const partial = {
        scenario: name, about: scenario.about, skipped: null, seconds: Math.round((Date.now() - started) / 1000), load, health,
        outages: outages.map((o) => ({ what: o.what, ms: o.to - o.from })),
        requests: requestFigures(rec.since(from), outages),
        processes: processFigures(before, cluster.processes.map((p) => ({ name: p.name, kind: p.kind, stats: p.stats, up: p.up }))),
        verdict,
      };
      const failures = failuresOf(partial);
      const logs = failures.length ? Object.fromEntries(cluster.processes.map((p) => [p.name, p.lastLines(40).map((l) => l.slice(0, 600))])) : undefined;
      const row = { ...partial, passed: failures.length === 0, failures, logs };
      rows.push(row);
      printTable([row], say);
    }
    say('final check: every document pushed');
    final = await verify({
      call: admin, ledger, index: INDEX, configUid, settleTimeoutMs, check: ledger.docs, uiSample: sample(rand, ledger.docs, opts.uiSample),
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cluster.close();
  }
  return summarize(opts, t0, rows, final);
}

function summarize(opts: ChaosOptions, t0: number, rows: ScenarioRow[], final: Verdict | null): ChaosReport {
  const ran = rows.filter((r) => !r.skipped);
  const kills: Partial<Record<ProcessKind, { kills: number; survived: number }>> = {};
  for (const r of ran) {
    for (const [kind, k] of Object.entries(r.processes!.kills) as [ProcessKind, { kills: number; survived: number }][]) {
      const t = (kills[kind] ??= { kills: 0, survived: 0 });
      t.kills += k.kills;
      t.survived += k.survived;
    }
  }
  const sum = (f: (r: ScenarioRow) => number) => ran.reduce((a, r) => a + f(r), 0);
  const max = (f: (r: ScenarioRow) => number) => ran.reduce((a, r) => Math.max(a, f(r)), 0);
  const finalFailures = final ? failuresOf({ scenario: 'final', about: '', skipped: null, seconds: 0, load: null, health: null, outages: [], requests: null, processes: null, verdict: final }) : ['the final check did not run'];
  return {
    options: opts,
    machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.release()}`, totalMemMB: Math.round(os.totalmem() / 2 ** 20) },
    startedAt: new Date(t0).toISOString(),
    seconds: Math.round((Date.now() - t0) / 1000),
    scenarios: rows,
    final,
    finalFailures,
    totals: {
      documentsAccepted: final?.promised ?? 0,
      durable: final?.durable ?? 0,
      searchable: final?.promisedSearchable ?? 0,
      killsSurvived: Object.fromEntries(Object.entries(kills).map(([k, v]) => [k, `${v.survived}/${v.kills}`])),
      crashes: sum((r) => r.processes!.crashes.length),
      longestPushGapMs: max((r) => r.requests!.longestPushGapMs),
      longestSearchGapMs: max((r) => r.requests!.longestSearchGapMs),
      hung: sum((r) => r.requests!.hung),
      unexpected5xx: sum((r) => r.requests!.unexpected5xx),
    },
    passed: rows.every((r) => r.passed) && finalFailures.length === 0,
  };
}

function sample<T>(rand: () => number, xs: T[], n: number): T[] {
  if (xs.length <= n) return [...xs];
  const picked = new Set<number>();
  while (picked.size < n) picked.add(Math.floor(rand() * xs.length));
  return [...picked].map((i) => xs[i]);
}

/** Requests of the checks (not part of the load): the master key, a generous deadline, no recording. */
async function adminCall(cluster: Cluster, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${cluster.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': cluster.masterKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}
