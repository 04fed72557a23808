// Fuzzing at scale: the fuzz tests' generators and checks (scripts/fuzz/), run for as many inputs as asked.
//   npm run fuzz -- [--long] [--seed N] [--targets fq,qf,html,feedback,content-search,widget:search,...|pure|http|all]
//                   [--count N] [--from N] [--concurrency 16] [--max-seconds S]
// --long tries 10^6 inputs per target (default 10^4 in process, 10^3 over HTTP). Input i of a seed replays
// alone, so --from resumes a target where a run stopped (--max-seconds caps each target's time).
// HTTP targets run against real processes started here (a private Redis, the API, an indexing worker and a
// generation worker, scripts/bench/processes.ts) with the search interface's rate limits raised for the run, behind a
// trusted proxy (loopback) so the fuzzed proxy headers (X-Forwarded-For, Forwarded, X-Real-IP...) are believed.
// Prints a table per target; each target's latest report is kept in bench-results/fuzz.json (a --from run continuing it
// with the same seed is added to it).
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Cleanup, reportFailure, startStack, writeResults, type Stack } from './bench/processes.js';
import { markdownTable } from './bench/stats.js';
import { prepareFuzzData } from './fuzz/fixtures.js';
import { runHttp, runPure, type FuzzReport } from './fuzz/runner.js';
import { TARGETS, targetNamed, type HttpFuzzContext, type Target } from './fuzz/targets.js';

const { values } = parseArgs({
  options: {
    long: { type: 'boolean', default: false },
    seed: { type: 'string' },
    targets: { type: 'string', default: 'all' },
    count: { type: 'string' },
    from: { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '16' },
    'max-seconds': { type: 'string' },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 32) : Number(values.seed) >>> 0;
const from = Number(values.from);
const maxSeconds = values['max-seconds'] === undefined ? undefined : Number(values['max-seconds']);
const root = process.cwd();
const say = (m: string) => process.stderr.write(`[fuzz] ${m}\n`);

function selected(): Target[] {
  const names = values.targets.split(',').map((s) => s.trim()).filter(Boolean);
  return [...new Set(names.flatMap((n) => {
    if (n === 'all') return TARGETS;
    if (n === 'pure' || n === 'http') return TARGETS.filter((t) => t.kind === n);
    if (n === 'widget') return TARGETS.filter((t) => t.name.startsWith('widget:'));
    return [targetNamed(n)];
  }))];
}

const countFor = (t: Target) => (values.count ? Number(values.count) : values.long ? 1_000_000 : t.kind === 'pure' ? 10_000 : 1_000);

function progress(r: FuzzReport) {
  say(`${r.target}: ${r.inputs.toLocaleString('en')} inputs, ${r.perSecond}/s, crashes ${r.crashes}, 5xx ${r.fiveXX}, malformed ${r.malformed}, slowest ${r.slowest.ms} ms`);
}

async function main() {
  const targets = selected();
  say(`seed ${seed}, targets ${targets.map((t) => t.name).join(' ')}`);
  const cleanup = new Cleanup();
  cleanup.onSignals(say);
  let stack: Stack | undefined;
  const reports: FuzzReport[] = [];
  try {
    let ctx: HttpFuzzContext | null = null;
    for (const t of targets) {
      const count = countFor(t);
      const stopAt = maxSeconds === undefined ? undefined : Date.now() + maxSeconds * 1000;
      say(`${t.name}: inputs ${from}..${from + count - 1} (${t.what})`);
      if (t.kind === 'pure') {
        reports.push(runPure(t, { seed, from, count, stopAt, onProgress: progress }));
      } else {
        if (!stack) {
          // Behind a trusted proxy (loopback), so the fuzzed proxy headers reach the client rule and the limits keyed on it.
          const limits = { QUARRY_RATE_LIMIT_CLIENT: '100000000/1', QUARRY_RATE_LIMIT_UID: '100000000/1', QUARRY_TRUST_PROXY: 'loopback' };
          stack = await startStack(root, cleanup, limits);
          ctx = await prepareFuzzData(stack.baseUrl, stack.masterKey);
          say(`service up at ${stack.baseUrl} (API pid ${stack.api.pid}), rate limits raised to ${limits.QUARRY_RATE_LIMIT_CLIENT}`);
        }
        const s = stack;
        const r = await runHttp(t, s.baseUrl, ctx!, {
          seed, from, count, stopAt, concurrency: Number(values.concurrency), onProgress: (p) => {
            progress(p);
            s.assertAlive();
          },
        });
        s.assertAlive();
        r.server = `separate processes: API, indexing worker, generation worker (extractive answers), private Redis, SQLite; rate limits raised; ${values.concurrency} requests in flight`;
        reports.push(r);
      }
      const r = reports[reports.length - 1];
      progress(r);
      if (r.inputs < count) say(`${t.name}: stopped after ${r.inputs} of ${count} inputs; resume with --seed ${seed} --from ${r.from + r.inputs} --targets ${t.name}`);
      for (const f of r.failures) say(`  FAILURE ${f}`);
    }
    print(reports);
    save(reports);
    const errors = stack ? stack.api.lines.filter((l) => /"level":(50|60)/.test(l)) : [];
    if (errors.length) say(`the API logged ${errors.length} error line(s); first: ${errors[0].slice(0, 400)}`);
    if (reports.some((r) => r.crashes + r.fiveXX + r.malformed > 0)) process.exitCode = 1;
  } catch (err) {
    reportFailure(err, cleanup, stack, 'fuzz');
  } finally {
    await cleanup.run();
  }
}

function print(reports: FuzzReport[]) {
  const rows = [['target', 'seed', 'inputs', 'from', 'crashes', '5xx', 'malformed', 'slowest input (ms)', 'inputs/s', 'outcomes']];
  for (const r of reports) {
    rows.push([
      r.target, String(r.seed), r.inputs.toLocaleString('en'), String(r.from), String(r.crashes), String(r.fiveXX), String(r.malformed),
      `${r.slowest.ms} (#${r.slowest.index}${r.slowest.retimedMs === undefined ? '' : `, alone ${r.slowest.retimedMs}`})`, String(r.perSecond), Object.entries(r.outcomes).map(([k, v]) => `${k} ${v}`).join(', '),
    ]);
  }
  process.stdout.write(`${markdownTable(rows)}\n`);
  for (const r of reports) process.stdout.write(`slowest ${r.target} input #${r.slowest.index}: ${r.slowest.input.slice(0, 300)}\n`);
}

/** Keeps the latest report of every target: targets run in separate invocations accumulate. */
function save(reports: FuzzReport[]) {
  const file = join(root, 'bench-results', 'fuzz.json');
  const old = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { targets?: Record<string, unknown> }) : {};
  const targets = { ...(old.targets ?? {}) } as Record<string, unknown>;
  const at = new Date().toISOString();
  for (const r of reports) {
    const prev = targets[r.target] as (FuzzReport & { at: string }) | undefined;
    targets[r.target] = { ...(prev && continues(prev, r) ? combine(prev, r) : r), at, long: values.long };
  }
  writeResults(root, 'fuzz.json', {
    note: 'npm run fuzz: the latest report per target (input numbers from..from+inputs-1 of its seed); failures list the first ones',
    machine: { cpus: os.cpus().length, node: process.version, loadAvg: os.loadavg().map((v) => Number(v.toFixed(2))) },
    targets,
  }, say);
}

/** A run with --from where the kept report of the same seed stopped continues it: the two ranges count as one. */
const continues = (prev: FuzzReport, r: FuzzReport) => prev.seed === r.seed && prev.from + prev.inputs === r.from;

function combine(a: FuzzReport, b: FuzzReport): FuzzReport {
  const outcomes = { ...a.outcomes };
  for (const [k, v] of Object.entries(b.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + v;
  const seconds = Math.round((a.seconds + b.seconds) * 100) / 100;
  const inputs = a.inputs + b.inputs;
  return {
    ...b, from: a.from, inputs, crashes: a.crashes + b.crashes, fiveXX: a.fiveXX + b.fiveXX, malformed: a.malformed + b.malformed, outcomes,
    slowest: b.slowest.ms > a.slowest.ms ? b.slowest : a.slowest, seconds, perSecond: Math.round(inputs / Math.max(seconds, 0.001)),
    failures: [...a.failures, ...b.failures].slice(0, 20),
  };
}

await main();
