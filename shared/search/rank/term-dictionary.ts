import type { TermNumbering } from '../analyzer/analyzer.js';

/**
 * An index's terms, each with a number handed out in the order terms first appear. The stored
 * tokens (UnitTokens), the posting lists and the page frequencies of one index share one, so that
 * taking a document in looks each token's term up once: the structures after it index arrays by
 * the number instead of hashing the term string again (on SciFact that hashing was a fifth of
 * setDocument).
 */
let serials = 0;

export class TermDictionary implements TermNumbering {
  readonly serial = ++serials;
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];

  /** The term's number, handing out the next one to a term not seen before. */
  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      this.ids.set(term, (id = this.terms.length));
      this.terms.push(term);
    }
    return id;
  }

  /** The term's number, or undefined for a term no document had. */
  idOf(term: string): number | undefined {
    return this.ids.get(term);
  }

  term(id: number): string {
    return this.terms[id];
  }

  get size(): number {
    return this.terms.length;
  }

  /** Every term in the order of its number (what a snapshot stores). */
  list(): string[] {
    return [...this.terms];
  }

  static from(terms: readonly string[]): TermDictionary {
    const out = new TermDictionary();
    for (const t of terms) out.id(t);
    return out;
  }
}
