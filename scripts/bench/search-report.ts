import type { RawFigures, RunFigures } from './search-steps.js';
import type { EventFigures, LegSample, UiWarmupFigures } from './ui-steps.js';

/** The figures `npm run bench:search` prints: one row per run, targets where the issue sets them. */

export const CONTENT_TARGETS = { p50Ms: 5, p99Ms: 25, ratioToRaw: 3 };
export const UI_TARGETS = { p50Ms: 10, p99Ms: 50 };

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
export const cpuText = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${v}%`).join(', ');
const pct = (share: number) => `${Math.round(share * 100)}%`;

const RUN_NAMES: Record<RunFigures['kind'], string> = {
  plain: 'service plain', filtered: 'service filtered', ui: 'GET /v1/ui/search (hybrid)', 'raw-fts5': 'raw FTS5',
};

/** Targets apply at concurrency 1 only; content rows are also held against the raw engine. */
function targetsText(r: RunFigures, ratio: number | null): string {
  if (r.concurrency !== 1) return '';
  if (r.kind === 'ui') {
    const t = UI_TARGETS;
    return `p50 <= ${t.p50Ms} (${verdict(r.latencyMs.p50 <= t.p50Ms)}), p99 <= ${t.p99Ms} (${verdict(r.latencyMs.p99 <= t.p99Ms)})`;
  }
  const t = CONTENT_TARGETS;
  return `p50 <= ${t.p50Ms} (${verdict(r.latencyMs.p50 <= t.p50Ms)}), p99 <= ${t.p99Ms} (${verdict(r.latencyMs.p99 <= t.p99Ms)}), `
    + `${ratio}x raw <= ${t.ratioToRaw}x (${verdict((ratio ?? Infinity) <= t.ratioToRaw)})`;
}

export function runsRows(runs: RunFigures[], raw: RawFigures, ratios: Record<string, number | null>): string[][] {
  const rows: string[][] = [['run', 'concurrency', 'requests', 'errors', 'QPS', 'p50 ms', 'p99 ms', 'targets (c=1)', 'CPU (% of one core)']];
  for (const r of runs) {
    rows.push([RUN_NAMES[r.kind], String(r.concurrency), String(r.requests), String(r.errors), String(r.qps),
      String(r.latencyMs.p50), String(r.latencyMs.p99), targetsText(r, ratios[r.kind] ?? null), cpuText(r.cpuPct)]);
  }
  rows.push(['raw FTS5 bm25 "t1" OR "t2"', '1', String(raw.requests), '0', String(raw.qps), String(raw.latencyMs.p50),
    String(raw.latencyMs.p99), `baseline (${raw.meanRows} rows/query)`, cpuText(raw.cpuPct)]);
  return rows;
}

/** The search interface's checks: results were there, the vector leg worked, every search was recorded. */
export function uiRows(w: UiWarmupFigures, e: EventFigures, size: { sections: number | null; sectionsWithVector: number | null }): string[][] {
  const leg = (s: LegSample) => `${s.nonEmpty} of ${s.queries} non-empty, ${s.meanResults} results/query, p50 ${s.p50Ms} ms`;
  return [
    ['sections with a vector', `${size.sectionsWithVector ?? '?'} of ${size.sections ?? '?'}`],
    ['warm-up ui: results/query, non-empty lists, errors', `${w.meanResults}, ${pct(w.nonEmptyShare)}, ${w.errors}`],
    // The first vector search of a large index trains its IVF lists (docs/search-interface.md, Vector search).
    ['warm-up ui (hybrid, sequential): first search, p50', `${w.firstSearchMs} ms, ${w.p50Ms} ms`],
    ['warm-up ui: retrieval=vector (vector leg alone)', `${leg(w.vectorSample)}${w.vectorSample.nonEmpty === 0 ? ' -- VECTOR LEG FOUND NOTHING' : ''}`],
    ['warm-up ui: retrieval=keyword (keyword leg alone)', leg(w.keywordSample)],
    ['events recorded / searches answered', `${e.recorded} / ${e.answered} (${e.equal ? 'equal' : 'MISMATCH'}; read ${e.waitedMs} ms after the last search)`],
    ['sessions recorded / used, no-result searches recorded', `${e.sessionsRecorded} / ${e.sessionsExpected}, ${e.noResultSearches}`],
  ];
}
