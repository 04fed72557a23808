/**
 * How clicks reorder results for a query. A result's learnt boost grows with the number of distinct
 * visitors (clickVisitors: sessions, each client address counted once) that chose it for that
 * (normalized) query, damped so that:
 * - the first session counts for nothing: one user, however often they click, cannot move a result;
 * - it saturates: boost = MAX_BOOST * n / (n + HALF), n = sessions - 1, so a flood of sessions
 *   cannot bury results that match better.
 * The boost is added to the fused score relative to the best fused score (so it means the same for
 * both fusion methods): with 4 sessions a result gains 0.5 * 3 / 6 = 0.25 of the top score.
 */
export const MAX_BOOST = 0.5;
export const HALF = 3;

/**
 * How many independent visitors a click statistic stands for. Session ids are the client's to choose,
 * so one client can invent any number of them: each distinct client address (network) counts once, and
 * below `minClients` addresses the statistic counts for nothing at all.
 */
export function clickVisitors(evidence: { sessions: number; clients: number }, minClients: number): number {
  return evidence.clients < minClients ? 0 : Math.min(evidence.sessions, evidence.clients);
}

export function clickBoost(sessions: number): number {
  const n = Math.max(0, sessions - 1);
  return (MAX_BOOST * n) / (n + HALF);
}

export interface Boostable {
  /** What clicks are recorded against. */
  target: string;
  score: number;
}

/** Re-scores and re-sorts `ranked` (best first) with the click evidence; stable for equal scores. */
export function applyClickBoosts<T extends Boostable>(ranked: T[], clickSessions: ReadonlyMap<string, number>): T[] {
  if (ranked.length === 0 || clickSessions.size === 0) return ranked;
  const top = ranked[0].score > 0 ? ranked[0].score : 1;
  const scored = ranked.map((r, i) => ({ r, i, s: r.score / top + clickBoost(clickSessions.get(r.target) ?? 0) }));
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.map(({ r, s }) => ({ ...r, score: s * top }));
}
