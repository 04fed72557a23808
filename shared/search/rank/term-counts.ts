import type { UnitTerms } from './inverted-index.js';

/** One field of a unit: its length in tokens, its distinct terms in order of first occurrence, and their frequencies. */
export interface FieldTerms {
  field: string;
  length: number;
  terms: string[];
  freqs: number[];
  /** The terms' numbers in the index's TermDictionary, when counted by UnitTokens (countTerms has none). */
  ids?: number[];
}

/**
 * A unit's terms counted once per field. The inverted index (term frequencies) and the page
 * frequencies (distinct terms) both read these, rather than each walking the tokens again.
 */
export type CountedTerms = readonly FieldTerms[];

export function countTerms(terms: UnitTerms): CountedTerms {
  const out: FieldTerms[] = [];
  for (const [field, tokens] of Object.entries(terms)) {
    if (tokens.length === 0) continue;
    const counts = new Map<string, number>();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    out.push({ field, length: tokens.length, terms: [...counts.keys()], freqs: [...counts.values()] });
  }
  return out;
}
