import { distribution, markdownTable, round } from '../bench/stats.js';
import type { EvalSettings } from './args.js';
import type { Summary } from './metrics.js';
import type { SearchRun } from './quarry-eval-client.js';

/** Reference nDCG@10 figures from ../shared/data/README.md (real Lucene 8.7 BM25, k1 0.9, b 0.4). */
const REFERENCES: Record<string, { boosting: string | null; ndcg10: number; setup: string }[]> = {
  scifact: [
    { boosting: 'title^1 text^1', ndcg10: 0.6874, setup: 'Lucene 8.7 DisMax title/text 1/1, tie 0, k1 0.9 b 0.4' },
    { boosting: 'title^2 text^1', ndcg10: 0.6547, setup: 'Lucene 8.7 DisMax title^2 text^1, tie 0, k1 0.9 b 0.4' },
  ],
  'cmrc2018-zh': [{ boosting: null, ndcg10: 0.985, setup: 'Lucene 8.7 BM25, smartcn analyzer' }],
};

/** "title text^1" and "title^1.0 text" both mean boosts 1/1. */
export function normalizeBoosting(b: string): string {
  return b
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => {
      const [field, boost] = part.split('^');
      return `${field}^${boost === undefined ? 1 : Number(boost)}`;
    })
    .join(' ');
}

export function referenceFor(dataset: string, boosting: string) {
  const refs = REFERENCES[dataset] ?? [];
  return refs.find((r) => r.boosting === null || normalizeBoosting(r.boosting) === normalizeBoosting(boosting)) ?? null;
}

export function allReferences(dataset: string) {
  return REFERENCES[dataset] ?? [];
}

export interface BoostingResult {
  boosting: string;
  /** What went out as `bm25` in the search body, or null when nothing was sent. */
  bm25Sent: EvalSettings['bm25'];
  queriesSent: number;
  queriesEvaluated: number;
  ndcg10: number;
  recall100: number;
  errors: number;
  errorSamples: string[];
  queryLatencyMs: { p50: number; p95: number; max: number; mean: number };
  queriesPerSecond: number;
  reference: { ndcg10: number; setup: string } | null;
  perQuery: Summary['perQuery'];
}

export function boostingResult(settings: EvalSettings, boosting: string, sent: number, search: SearchRun, summary: Summary, dataset: string): BoostingResult {
  const d = distribution(search.latenciesMs);
  const ref = referenceFor(dataset, boosting);
  return {
    boosting,
    bm25Sent: settings.bm25,
    queriesSent: sent,
    queriesEvaluated: summary.queries,
    ndcg10: round(summary.ndcg10, 4),
    recall100: round(summary.recall100, 4),
    errors: search.errors,
    errorSamples: search.errorSamples,
    queryLatencyMs: { p50: round(d.p50, 1), p95: round(d.p95, 1), max: round(d.max, 1), mean: round(d.mean, 1) },
    queriesPerSecond: round(sent / (search.elapsedMs / 1000), 1),
    reference: ref && { ndcg10: ref.ndcg10, setup: ref.setup },
    perQuery: summary.perQuery,
  };
}

export interface Timings {
  documents: number;
  pushSeconds: number;
  /** From the first push to all documents indexed. */
  indexSeconds: number;
  /** From the last push answered to all documents indexed. */
  indexAfterPushSeconds: number;
}

const fmt = (v: number, digits = 4) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

export function resultsTable(dataset: string, split: string, timings: Timings, results: BoostingResult[]): string {
  const rows: string[][] = [[
    'dataset', 'split', 'queries evaluated', 'boosting', 'k1/b sent', 'nDCG@10', 'Recall@100', 'reference nDCG@10',
    'push', 'index', 'query p50 / p95', 'errors',
  ]];
  for (const r of results) {
    const bm25 = r.bm25Sent ? `${r.bm25Sent.k1} / ${r.bm25Sent.b}` : 'not sent (API default)';
    rows.push([
      dataset, split, `${r.queriesEvaluated} (of ${r.queriesSent} sent)`, r.boosting, bm25, fmt(r.ndcg10), fmt(r.recall100),
      r.reference ? fmt(r.reference.ndcg10) : '-',
      `${timings.pushSeconds} s (${timings.documents} docs)`,
      `${timings.indexSeconds} s (${timings.indexAfterPushSeconds} s after push)`,
      `${r.queryLatencyMs.p50} / ${r.queryLatencyMs.p95} ms`, String(r.errors),
    ]);
  }
  const refs = allReferences(dataset);
  const refLines = refs.length
    ? ['', 'Reference nDCG@10 (../shared/data/README.md, dev split):', ...refs.map((r) => `  ${r.setup}: ${fmt(r.ndcg10)}`)]
    : [];
  return [markdownTable(rows), ...refLines].join('\n');
}
