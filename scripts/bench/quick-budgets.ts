import type { RunFigures } from './search-steps.js';
import type { acceptedUpserts, batchIndexing, pacedLatency } from './steps.js';

/**
 * The budgets of issue 19, as `npm run bench:quick` holds its figures against them. They are set for
 * the 100k corpus of `npm run bench:search`; the quick sizes print them as they are.
 */
export const QUICK_BUDGETS = {
  uiP50Ms: 5,
  uiP99Ms: 20,
  contentP50Ms: 3,
  /** Throughput at 16 clients over throughput at one. */
  scaleC16: 1.8,
  /** Search p50 at the large corpus over p50 at the small one. */
  growthP50: 2,
  acceptedOverBare: 0.5,
  pacedP95Ms: 250,
  batchDocsPerSecond: 2000,
} as const;

export interface CorpusRuns {
  documents: number;
  runs: RunFigures[];
}

export interface PushFigures {
  accept: Awaited<ReturnType<typeof acceptedUpserts>>;
  batch: Awaited<ReturnType<typeof batchIndexing>>;
  paced: Awaited<ReturnType<typeof pacedLatency>>;
}

export interface Verdict {
  budget: string;
  measured: string;
  target: string;
  met: boolean;
}

const KIND_NAMES: Record<string, string> = { plain: 'content plain', filtered: 'content filtered', ui: 'search interface hybrid' };
const find = (c: CorpusRuns, kind: string, concurrency: number) => c.runs.find((r) => r.kind === kind && r.concurrency === concurrency);

/** Every budget with what this run measured; a figure the run could not take counts as not met. */
export function verdicts(corpora: CorpusRuns[], push: PushFigures | null, rate: number): Verdict[] {
  const b = QUICK_BUDGETS;
  const out: Verdict[] = [];
  const add = (budget: string, value: number | undefined, target: string, met: (v: number) => boolean, unit = '') => {
    const ok = value !== undefined && Number.isFinite(value);
    out.push({ budget, measured: ok ? `${value}${unit}` : 'not measured', target, met: ok && met(value) });
  };
  for (const c of corpora) {
    const at = `${c.documents.toLocaleString('en')} docs`;
    const ui = find(c, 'ui', 1);
    add(`search interface hybrid p50, c=1, ${at}`, ui?.latencyMs.p50, `<= ${b.uiP50Ms} ms`, (v) => v <= b.uiP50Ms, ' ms');
    add(`search interface hybrid p99, c=1, ${at}`, ui?.latencyMs.p99, `<= ${b.uiP99Ms} ms`, (v) => v <= b.uiP99Ms, ' ms');
    add(`content plain p50, c=1, ${at}`, find(c, 'plain', 1)?.latencyMs.p50, `<= ${b.contentP50Ms} ms`, (v) => v <= b.contentP50Ms, ' ms');
    for (const kind of ['plain', 'filtered', 'ui']) {
      const one = find(c, kind, 1);
      const many = find(c, kind, 16);
      const ratio = one && many && one.qps > 0 ? Number((many.qps / one.qps).toFixed(2)) : undefined;
      add(`${KIND_NAMES[kind]} QPS c=16 / c=1, ${at}`, ratio, `>= ${b.scaleC16}x`, (v) => v >= b.scaleC16, 'x');
    }
  }
  const [small, large] = [corpora[0], corpora.at(-1)];
  if (small && large && large !== small) {
    for (const kind of ['plain', 'filtered', 'ui']) {
      const s = find(small, kind, 1)?.latencyMs.p50;
      const l = find(large, kind, 1)?.latencyMs.p50;
      const growth = s && l ? Number((l / s).toFixed(2)) : undefined;
      add(`${KIND_NAMES[kind]} p50 at ${large.documents.toLocaleString('en')} / at ${small.documents.toLocaleString('en')} docs, c=1`,
        growth, `<= ${b.growthP50}x`, (v) => v <= b.growthP50, 'x');
    }
  }
  add('accepted single PUTs / bare Express route', push?.accept.ratio, `>= ${b.acceptedOverBare}`, (v) => v >= b.acceptedOverBare);
  add('accept path alone (worker stopped) / bare Express route', push?.accept.alone.ratio, `>= ${b.acceptedOverBare}`, (v) => v >= b.acceptedOverBare);
  add(`204 -> searchable p95 at ${rate} PUT/s`, push?.paced.toSearchableMs.p95, `<= ${b.pacedP95Ms} ms`, (v) => v <= b.pacedP95Ms, ' ms');
  add('batch: documents indexed per second', push?.batch.indexedDocsPerSecond, `>= ${b.batchDocsPerSecond.toLocaleString('en')}`, (v) => v >= b.batchDocsPerSecond);
  return out;
}

/** Rows of the runs table: one per corpus size, kind and concurrency. */
export function runRows(corpora: CorpusRuns[], cpuText: (c: Record<string, number>) => string): string[][] {
  const rows = [['corpus', 'run', 'c', 'requests', 'errors', 'QPS', 'p50 ms', 'p99 ms', 'CPU (% of one core)']];
  for (const c of corpora) {
    for (const r of c.runs) {
      rows.push([c.documents.toLocaleString('en'), KIND_NAMES[r.kind] ?? r.kind, String(r.concurrency), String(r.requests), String(r.errors),
        String(r.qps), String(r.latencyMs.p50), String(r.latencyMs.p99), cpuText(r.cpuPct)]);
    }
  }
  return rows;
}
