/**
 * Retrieval metrics with trec_eval's definitions (ndcg_cut, recall), written out plainly:
 *
 * - nDCG@k: DCG = sum over ranks i = 1..k of gain(doc_i) / log2(i + 1), gain = the qrels relevance
 *   (graded; unjudged or non-positive = 0). The ideal DCG sorts every positive judgment of the query
 *   by relevance, highest first, and cuts it at k. nDCG = DCG / ideal DCG.
 * - Recall@k: relevant documents (relevance >= 1) among the first k / all relevant documents.
 * - Averages are over the queries with at least one relevant document in the qrels; a query that
 *   got no results (or an error) counts as 0, as trec_eval -c would.
 *
 * A ranking may name the same document twice (one hit per section): only its first occurrence counts.
 */

/** query id -> document id -> relevance. */
export type Qrels = Map<string, Map<string, number>>;

export function dcg(gains: readonly number[], k: number): number {
  let sum = 0;
  for (let i = 0; i < Math.min(k, gains.length); i++) sum += gains[i] / Math.log2(i + 2);
  return sum;
}

/** The first occurrence of each document id, in rank order. */
export function dedupe(ranking: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranking) {
    if (!seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

export function ndcgAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const ideal = [...judged.values()].filter((r) => r > 0).sort((a, b) => b - a);
  const idcg = dcg(ideal, k);
  if (idcg === 0) return 0;
  const gains = dedupe(ranking).slice(0, k).map((id) => Math.max(0, judged.get(id) ?? 0));
  return dcg(gains, k) / idcg;
}

export function recallAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  let relevant = 0;
  for (const r of judged.values()) if (r >= 1) relevant++;
  if (relevant === 0) return 0;
  const found = dedupe(ranking).slice(0, k).filter((id) => (judged.get(id) ?? 0) >= 1).length;
  return found / relevant;
}

export interface QueryScore {
  query: string;
  ndcg10: number;
  recall100: number;
  /** How many distinct documents the search returned. */
  returned: number;
}

export interface Summary {
  /** Queries with at least one relevant document: the ones averaged. */
  queries: number;
  ndcg10: number;
  recall100: number;
  perQuery: QueryScore[];
}

/** Scores a run (query id -> ranked document ids) against the qrels. */
export function evaluate(run: ReadonlyMap<string, readonly string[]>, qrels: Qrels): Summary {
  const perQuery: QueryScore[] = [];
  for (const [query, judged] of qrels) {
    if (![...judged.values()].some((r) => r >= 1)) continue;
    const ranking = run.get(query) ?? [];
    perQuery.push({ query, ndcg10: ndcgAt(ranking, judged, 10), recall100: recallAt(ranking, judged, 100), returned: dedupe(ranking).length });
  }
  const mean = (f: (s: QueryScore) => number) => (perQuery.length ? perQuery.reduce((a, s) => a + f(s), 0) / perQuery.length : Number.NaN);
  return { queries: perQuery.length, ndcg10: mean((s) => s.ndcg10), recall100: mean((s) => s.recall100), perQuery };
}
