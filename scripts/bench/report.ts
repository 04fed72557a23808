import os from 'node:os';
import type { acceptedUpserts, batchIndexing, pacedLatency } from './steps.js';
import { markdownTable } from './stats.js';

export interface Results {
  accept: Awaited<ReturnType<typeof acceptedUpserts>>;
  batch: Awaited<ReturnType<typeof batchIndexing>>;
  paced: Awaited<ReturnType<typeof pacedLatency>>[];
}

/** Issue 19's budgets: what Quarry must reach in the same run. */
export const BUDGETS = {
  acceptRatio: 0.5,
  batchDocsPerSecond: 2000,
  /** 204 -> searchable p95 (ms) by paced rate, over the whole run and over its last third (flat, not falling behind). */
  searchableP95Ms: { 200: 250, 1000: 1000 } as Record<number, number>,
};

const ms = (v: number) => `${v} ms`;
export const perDocumentText = (c: Record<string, { main: number; others: number }>) =>
  Object.entries(c).map(([k, v]) => `${k}: ${v.main} + ${v.others} µs`).join(', ');
const cpu = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${v}%`).join(', ');
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** The figures as a markdown table: figure | value | target. */
export function resultsTable({ accept, batch, paced }: Results, idleCpu: Record<string, number>): string {
  const { bare, quarry } = accept;
  const rows: string[][] = [
    ['figure', 'value', 'target'],
    ['machine CPU before start (% of one core)', `${idleCpu.machine}% of ${os.cpus().length * 100}%`, 'near 0 for clean figures'],
    ['bare Express PUT: requests/s', String(bare.rps), ''],
    ['bare Express PUT: p50 / p99', `${ms(bare.latencyMs.p50)} / ${ms(bare.latencyMs.p99)}`, ''],
    ['bare Express PUT: errors', `${bare.errors} of ${bare.requests}`, ''],
    ['bare run CPU (% of one core)', cpu(bare.cpuPct), ''],
    ['Quarry PUT accepted: requests/s', String(quarry.rps), ''],
    ['Quarry PUT accepted: p50 / p99', `${ms(quarry.latencyMs.p50)} / ${ms(quarry.latencyMs.p99)}`, ''],
    ['Quarry PUT accepted: errors', `${quarry.errors} of ${quarry.requests}`, '0'],
    ['Quarry run CPU (% of one core)', cpu(quarry.cpuPct), ''],
    ['ratio Quarry / bare', String(accept.ratio), `>= ${BUDGETS.acceptRatio} (${verdict(accept.ratio >= BUDGETS.acceptRatio)})`],
    ['accept path alone: service idle (step 3 absorbed) after', `${accept.alone.settledAfterS} s`, ''],
    ['accept path alone (worker stopped): requests/s, p50 / p99', `${accept.alone.run.rps}, ${ms(accept.alone.run.latencyMs.p50)} / ${ms(accept.alone.run.latencyMs.p99)}`, ''],
    ['accept path alone: CPU (% of one core)', cpu(accept.alone.run.cpuPct), ''],
    ['ratio accept path alone / bare', String(accept.alone.ratio), `>= ${BUDGETS.acceptRatio} (${verdict(accept.alone.ratio >= BUDGETS.acceptRatio)})`],
    ['accept path alone: then indexed / failed', `${accept.alone.indexedAfter} / ${accept.alone.failedAfter}`, `all accepted (warm-up included) / 0`],
    ['step 3 backlog drained', `${accept.drain.status.indexed} indexed, ${accept.drain.status.failed} failed, ${accept.drain.secondsAfterLoad} s after the load ended`, ''],
    ['GET /status on the step 3 index (median / max of 5)', `${accept.statusCall.medianMs} ms / ${accept.statusCall.maxMs} ms for ${accept.statusCall.documents} documents`, ''],
    ['batch: service idle (earlier steps absorbed) after', `${batch.settledAfterS} s`, ''],
    [`batch push of ${batch.documents} docs (${batch.batches} batches)`, `${batch.pushSeconds} s (${batch.pushDocsPerSecond} docs/s accepted)`, ''],
    ['batch: first request -> all indexed', `${batch.indexedSeconds} s`, ''],
    ['batch: documents indexed per second', String(batch.indexedDocsPerSecond), `>= ${BUDGETS.batchDocsPerSecond} (${verdict(batch.indexedDocsPerSecond >= BUDGETS.batchDocsPerSecond)})`],
    ['batch: indexed / failed / problems', `${batch.status.indexed} / ${batch.status.failed} / ${batch.batchProblems.length}`, `${batch.documents} / 0 / 0`],
    ['batch: sections with vectors reused from other indexes', `${batch.sectionsWithReusedVectors.sharedWithOtherIndexes} of ${batch.sectionsWithReusedVectors.sections}`, '0 (cold embedding)'],
    ['batch run CPU (% of one core)', cpu(batch.cpuPct), ''],
    ['batch: CPU per document until idle, main thread + other threads', perDocumentText(batch.cpuPerDocumentUs), ''],
    ...paced.flatMap(pacedRows),
  ];
  return markdownTable(rows);
}

/** Step 5 at one rate: the delay from 204 to searchable, whole run, last third and per second. */
function pacedRows(paced: Results['paced'][number]): string[][] {
  const at = `paced ${paced.targetRate}/s`;
  const budget = BUDGETS.searchableP95Ms[paced.targetRate];
  const target = (v: number) => (budget === undefined ? '' : `<= ${budget} ms (${verdict(v <= budget)})`);
  return [
    [`${at}: service idle (earlier steps absorbed) after`, `${paced.settledAfterS} s`, ''],
    [`${at}: target / achieved push rate`, `${paced.targetRate} / ${paced.achievedRate} docs/s`, ''],
    [`${at}: PUT p50 / p99`, `${ms(paced.putLatencyMs.p50)} / ${ms(paced.putLatencyMs.p99)}`, ''],
    [`${at}: accepted / errors / indexed`, `${paced.accepted} / ${paced.errors} / ${paced.indexedMatched}`, ''],
    [`${at}: 204 -> searchable p50`, ms(paced.toSearchableMs.p50), ''],
    [`${at}: 204 -> searchable p95`, ms(paced.toSearchableMs.p95), target(paced.toSearchableMs.p95)],
    [`${at}: 204 -> searchable p95, last third of the run`, ms(paced.lastThirdP95Ms), target(paced.lastThirdP95Ms)],
    [`${at}: 204 -> searchable p99 / max`, `${ms(paced.toSearchableMs.p99)} / ${ms(paced.toSearchableMs.max)}`, ''],
    [`${at}: 204 -> searchable p95 by second of the run`, paced.toSearchableBySecond.map((b) => b.p95).join(' '), ''],
    [`${at}: sample found by content search`, `${paced.searchSample.found} of ${paced.searchSample.checked}`, 'all'],
    [`${at}: run CPU (% of one core)`, cpu(paced.cpuPct), ''],
  ];
}
