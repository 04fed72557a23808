import type { Analyzer } from '../analyzer/analyzer.js';

export interface InstantAnswerCandidate {
  id: string;
  title: string;
  keywords: string[];
}

/**
 * Instant answers that a query asks for. An answer matches when all analysed terms of one of its
 * keywords (or of its title) occur in the query, or when the query's terms (two or more) all occur
 * in its title; "refund" matches "how do I get a refund?", and "opening hours" matches an answer
 * titled "Our opening hours". Best first: the answer whose matched phrase covers most of the query.
 */
export function matchInstantAnswers<T extends InstantAnswerCandidate>(analyzer: Analyzer, query: string, answers: T[]): T[] {
  const q = new Set(analyzer.analyze(query));
  if (q.size === 0) return [];
  const scored: { a: T; cover: number; i: number }[] = [];
  answers.forEach((a, i) => {
    let cover = 0;
    for (const phrase of [...a.keywords, a.title]) {
      const terms = new Set(analyzer.analyze(phrase));
      if (terms.size > 0 && [...terms].every((t) => q.has(t))) cover = Math.max(cover, terms.size / q.size);
    }
    const title = new Set(analyzer.analyze(a.title));
    if (q.size >= 2 && [...q].every((t) => title.has(t))) cover = Math.max(cover, q.size / Math.max(title.size, 1));
    if (cover > 0) scored.push({ a, cover, i });
  });
  return scored.sort((x, y) => y.cover - x.cover || x.i - y.i).map((s) => s.a);
}
