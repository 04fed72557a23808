// The abuse suite, measured: every attack of scripts/abuse/attacks.ts against real processes (a private
// Redis, the API, an indexing worker, a generation worker; scripts/bench/processes.ts), one at a time, with
// probe requests (GET /healthz, a widget search) from another client address during each. Prints each
// attack's budget against the time measured, its answers, and the probes' slowest answer; writes
// bench-results/abuse.json. Exit code 1 when an answer was not one the spec allows, a probe went
// unanswered, or a budget was exceeded.
//   npm run abuse -- [--only id,id|public|keyed|connections] [--request-timeout 20]
// The API runs behind a trusted proxy (QUARRY_TRUST_PROXY=loopback) so attacks and probes can be told
// apart by X-Forwarded-For, and with QUARRY_REQUEST_TIMEOUT_SECONDS=20 (default 120) so the slow-loris
// attacks end within the run; their budgets follow it.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ATTACKS } from './abuse/attacks.js';
import { prepareAbuseTarget } from './abuse/fixtures.js';
import { PROBE_BUDGET_MS, runAttack, type AttackReport } from './abuse/runner.js';
import { Cleanup, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { markdownTable } from './bench/stats.js';

const { values } = parseArgs({ options: { only: { type: 'string' }, 'request-timeout': { type: 'string', default: '20' } } });
const limits = { requestTimeoutMs: Number(values['request-timeout']) * 1000 };
const root = process.cwd();
const say = (m: string) => process.stderr.write(`[abuse] ${m}\n`);

function selected() {
  if (!values.only) return ATTACKS;
  const wanted = new Set(values.only.split(',').map((s) => s.trim()));
  const list = ATTACKS.filter((a) => wanted.has(a.id) || wanted.has(a.group));
  if (!list.length) throw new Error(`no attack matches --only ${values.only}; ids: ${ATTACKS.map((a) => a.id).join(', ')}`);
  return list;
}

async function main() {
  const cleanup = new Cleanup();
  cleanup.onSignals(say);
  let stack: Stack | undefined;
  try {
    const attacks = selected();
    stack = await startStack(root, cleanup, { QUARRY_TRUST_PROXY: 'loopback', QUARRY_REQUEST_TIMEOUT_SECONDS: String(limits.requestTimeoutMs / 1000) });
    const target = await prepareAbuseTarget(stack.baseUrl, stack.masterKey);
    say(`service up at ${stack.baseUrl}; ${attacks.length} attacks, request timeout ${limits.requestTimeoutMs / 1000} s`);
    const reports: AttackReport[] = [];
    for (const a of attacks) {
      const r = await runAttack(a, target, limits);
      stack.assertAlive();
      reports.push(r);
      const verdict = r.problems.length ? `PROBLEM ${r.problems[0]}` : r.withinBudget ? 'ok' : 'OVER BUDGET';
      say(`${a.id}: ${r.ms} ms (budget ${r.budgetMs}), ${JSON.stringify(r.statuses)}, probes ${r.probes.answered}/${r.probes.sent} max ${r.probes.maxMs} ms: ${verdict}`);
    }
    const rows = [['attack', 'route', 'input', 'budget ms', 'measured ms', 'answers', 'probes answered (during)', 'slowest probe ms', 'verdict']];
    for (const r of reports) {
      const probeSlow = r.probes.maxMs > PROBE_BUDGET_MS;
      const verdict = r.problems.length ? `FAIL: ${r.problems.join('; ').slice(0, 160)}` : !r.withinBudget ? 'over budget' : probeSlow ? 'probe over 1 s' : 'ok';
      rows.push([
        r.id, r.route, r.input.slice(0, 70), String(r.budgetMs), String(r.ms), Object.entries(r.statuses).map(([s, n]) => `${s}×${n}`).join(' '),
        `${r.probes.answered}/${r.probes.sent} (${r.probes.answeredDuring})`, String(r.probes.maxMs), `${verdict}${r.finding ? ` [finding: ${r.finding}]` : ''}`,
      ]);
    }
    process.stdout.write(`${markdownTable(rows)}\n`);
    const failed = reports.filter((r) => r.problems.length);
    const over = reports.filter((r) => !r.withinBudget);
    const slowProbes = reports.filter((r) => r.probes.maxMs > PROBE_BUDGET_MS);
    process.stdout.write(`${reports.length} attacks: ${failed.length} not handled as the spec says, ${over.length} over budget, ${slowProbes.length} with a probe slower than ${PROBE_BUDGET_MS} ms\n`);
    const errors = stack.api.lines.filter((l) => /"level":(50|60)/.test(l));
    if (errors.length) say(`the API logged ${errors.length} error line(s); first: ${errors[0].slice(0, 400)}`);
    writeResults(root, 'abuse.json', {
      note: 'npm run abuse: each attack against separate processes, one at a time, probes from another client address during it',
      at: new Date().toISOString(), limits, probeBudgetMs: PROBE_BUDGET_MS,
      machine: { cpus: os.cpus().length, node: process.version, loadAvg: os.loadavg().map((v) => Number(v.toFixed(2))) },
      summary: { attacks: reports.length, notHandled: failed.map((r) => r.id), overBudget: over.map((r) => r.id), slowProbes: slowProbes.map((r) => r.id), apiErrorLines: errors.length },
      attacks: reports,
    }, say);
    if (failed.length || over.length) process.exitCode = 1;
  } catch (err) {
    reportFailure(err, cleanup, stack, 'abuse');
  } finally {
    await cleanup.run();
  }
}

await main();
