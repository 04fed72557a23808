/** One leg's ranking, best first. */
export type Ranking = { key: string; score: number }[];

/**
 * Reciprocal-rank fusion (Cormack et al. 2009): a key scores sum(w_leg / (k + rank)) over the legs
 * that returned it. Scores of the legs are never compared, only their orders, so BM25 and cosine
 * need no calibration; k = 60 is the paper's value. Equal weights are the paper's method; unequal
 * ones let a stronger leg lead (as Elasticsearch's weighted RRF does).
 */
export function reciprocalRankFusion(legs: Ranking[], weights: number[] = legs.map(() => 1), k = 60): Map<string, number> {
  const fused = new Map<string, number>();
  legs.forEach((leg, l) => {
    leg.forEach(({ key }, i) => fused.set(key, (fused.get(key) ?? 0) + weights[l] / (k + i + 1)));
  });
  return fused;
}

/**
 * Weighted fusion of min-max normalised scores: each leg's scores are mapped to [0, 1] over its
 * own candidates, then mixed with the legs' weights; a key missing from a leg gets 0 there.
 */
export function weightedFusion(legs: Ranking[], weights: number[]): Map<string, number> {
  const fused = new Map<string, number>();
  legs.forEach((leg, l) => {
    if (leg.length === 0) return;
    let min = Infinity;
    let max = -Infinity;
    for (const { score } of leg) {
      if (score < min) min = score;
      if (score > max) max = score;
    }
    const span = max - min;
    for (const { key, score } of leg) {
      const norm = span > 0 ? (score - min) / span : 1;
      fused.set(key, (fused.get(key) ?? 0) + weights[l] * norm);
    }
  });
  return fused;
}

/** The fused map as a ranking, ties broken by key for stable results. */
export function rankFused(fused: Map<string, number>): Ranking {
  return [...fused].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
