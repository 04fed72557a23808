import type { UnitTerms } from './inverted-index.js';
import { countTerms, type CountedTerms } from './term-counts.js';
import type { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-codec.js';

export interface PageFrequenciesSnapshot {
  pages: number;
  fields: { name: string; terms: string[]; counts: number }[];
}

/**
 * Per field and term, how many pages (documents) hold the term in any of their sections: the
 * document frequency of page-level BM25, kept as pages come and go so a query never counts it by
 * walking posting lists. Memory grows with the vocabulary, not with the corpus.
 */
export class PageFrequencies {
  private readonly fields = new Map<string, Map<string, number>>();
  /** Pages held. */
  pages = 0;

  /** Counts a page given its sections' terms. */
  add(sections: readonly UnitTerms[]): void {
    this.addCounted(sections.map(countTerms));
  }

  /** Uncounts a page; `sections` must be what it was added with. */
  remove(sections: readonly UnitTerms[]): void {
    this.removeCounted(sections.map(countTerms));
  }

  /** add() for sections whose terms are already counted (see countTerms). */
  addCounted(sections: readonly CountedTerms[]): void {
    this.pages++;
    this.count(sections, 1);
  }

  /** remove() for sections whose terms are already counted. */
  removeCounted(sections: readonly CountedTerms[]): void {
    this.pages--;
    this.count(sections, -1);
  }

  snapshot(w: SnapshotWriter): PageFrequenciesSnapshot {
    return {
      pages: this.pages,
      fields: [...this.fields].map(([name, byTerm]) => ({ name, terms: [...byTerm.keys()], counts: w.add(Int32Array.from(byTerm.values())) })),
    };
  }

  static restore(r: SnapshotReader, s: PageFrequenciesSnapshot): PageFrequencies {
    const out = new PageFrequencies();
    out.pages = s.pages;
    for (const f of s.fields) {
      const counts = r.blob(f.counts, 'i32');
      out.fields.set(f.name, new Map(f.terms.map((t, i) => [t, counts[i]])));
    }
    return out;
  }

  df(field: string, term: string): number {
    return this.fields.get(field)?.get(term) ?? 0;
  }

  private count(sections: readonly CountedTerms[], delta: 1 | -1): void {
    // Most pages are one section, whose counted terms are distinct already.
    if (sections.length === 1) {
      for (const { field, terms } of sections[0]) this.update(field, terms, delta);
      return;
    }
    const distinct = new Map<string, Set<string>>();
    for (const terms of sections) {
      for (const { field, terms: unique } of terms) {
        let set = distinct.get(field);
        if (!set) distinct.set(field, (set = new Set()));
        for (const t of unique) set.add(t);
      }
    }
    for (const [field, set] of distinct) this.update(field, set, delta);
  }

  private update(field: string, terms: Iterable<string>, delta: 1 | -1): void {
    let byTerm = this.fields.get(field);
    if (!byTerm) this.fields.set(field, (byTerm = new Map()));
    for (const t of terms) {
      const n = (byTerm.get(t) ?? 0) + delta;
      if (n > 0) byTerm.set(t, n);
      else byTerm.delete(t);
    }
  }
}
