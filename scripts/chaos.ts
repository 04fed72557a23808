import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeResults } from './bench/processes.js';
import { parseOptions } from './chaos/options.js';
import { printTable } from './chaos/report.js';
import { runChaos } from './chaos/run.js';

/**
 * `npm run chaos [-- --short] [--seed N] [--scenarios a,b] [--storage sqlite|postgres] [--docs N]
 * [--seconds S]`: the service as separate processes under a long push and a steady widget load,
 * broken one way after another; prints a table per scenario, writes bench-results/chaos.json and
 * exits 1 if any invariant failed. See docs/chaos.md.
 */
const root = resolve(import.meta.dirname, '..');
const say = (m: string) => console.log(`[chaos] ${m}`);

let opts;
try {
  opts = parseOptions(process.argv.slice(2));
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
const report = await runChaos(root, opts, opts.verbose ? say : () => {});
say('');
printTable(report.scenarios, say);
const t = report.totals;
say(`final: ${t.documentsAccepted} documents accepted, ${t.durable} durable, ${t.searchable} searchable; kills survived ${JSON.stringify(t.killsSurvived)}; crashes ${t.crashes}`);
say(`longest unavailability: push ${(t.longestPushGapMs / 1000).toFixed(1)} s, search ${(t.longestSearchGapMs / 1000).toFixed(1)} s; hung ${t.hung}; 5xx outside an outage ${t.unexpected5xx}`);
for (const f of report.finalFailures) say(`  ! final: ${f}`);
if (opts.out) {
  mkdirSync(dirname(resolve(opts.out)), { recursive: true });
  writeFileSync(resolve(opts.out), `${JSON.stringify(report, null, 2)}\n`);
  say(`wrote ${opts.out}`);
} else {
  writeResults(root, 'chaos.json', report, say);
}
say(report.passed ? 'PASSED' : 'FAILED');
process.exit(report.passed ? 0 : 1);
