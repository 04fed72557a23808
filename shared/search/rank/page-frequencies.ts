import type { UnitTerms } from './inverted-index.js';
import { grown } from '../grown.js';
import { countTerms, type CountedTerms, type FieldTerms } from './term-counts.js';
import { TermDictionary } from './term-dictionary.js';
import type { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-codec.js';

export interface PageFrequenciesSnapshot {
  pages: number;
  fields: { name: string; terms: string[]; counts: number }[];
}

/**
 * Per field and term, how many pages (documents) hold the term in any of their sections: the
 * document frequency of page-level BM25, kept as pages come and go so a query never counts it by
 * walking posting lists. Memory grows with the vocabulary, not with the corpus: per field, a count
 * per term number of the index's TermDictionary.
 */
export class PageFrequencies {
  private readonly fields = new Map<string, Int32Array>();
  /** Pages held. */
  pages = 0;
  /** Scratch for pages of several sections: the page and field a term number was last counted for. */
  private seenIn = new Int32Array(1024);
  private mark = 0;

  constructor(private readonly terms = new TermDictionary()) {}

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

  /** As before the term numbers: per field the terms some page holds, and their counts. */
  snapshot(w: SnapshotWriter): PageFrequenciesSnapshot {
    return {
      pages: this.pages,
      fields: [...this.fields].map(([name, byId]) => {
        const terms: string[] = [];
        const counts: number[] = [];
        for (let id = 0; id < byId.length; id++) {
          if (byId[id] > 0) {
            terms.push(this.terms.term(id));
            counts.push(byId[id]);
          }
        }
        return { name, terms, counts: w.add(Int32Array.from(counts)) };
      }),
    };
  }

  /** Frequencies from a snapshot, numbered by `terms` (the restored index's dictionary). */
  static restore(r: SnapshotReader, s: PageFrequenciesSnapshot, terms: TermDictionary): PageFrequencies {
    const out = new PageFrequencies(terms);
    out.pages = s.pages;
    for (const f of s.fields) {
      const counts = r.blob(f.counts, 'i32');
      let byId = new Int32Array(Math.max(16, terms.size));
      f.terms.forEach((t, i) => {
        const id = terms.id(t);
        byId = grown(byId, id + 1);
        byId[id] = counts[i];
      });
      out.fields.set(f.name, byId);
    }
    return out;
  }

  df(field: string, term: string): number {
    const id = this.terms.idOf(term);
    return id === undefined ? 0 : (this.fields.get(field)?.[id] ?? 0);
  }

  private count(sections: readonly CountedTerms[], delta: 1 | -1): void {
    // Most pages are one section, whose counted terms are distinct already.
    if (sections.length === 1) {
      for (const counted of sections[0]) this.update(counted.field, this.idsOf(counted), delta);
      return;
    }
    const byField = new Map<string, (readonly number[])[]>();
    for (const terms of sections) {
      for (const counted of terms) {
        const lists = byField.get(counted.field);
        if (lists) lists.push(this.idsOf(counted));
        else byField.set(counted.field, [this.idsOf(counted)]);
      }
    }
    for (const [field, lists] of byField) {
      if (++this.mark === 0x7fffffff) {
        this.seenIn.fill(0);
        this.mark = 1;
      }
      this.seenIn = grown(this.seenIn, this.terms.size);
      const distinct: number[] = [];
      for (const ids of lists) {
        for (const id of ids) {
          if (this.seenIn[id] === this.mark) continue;
          this.seenIn[id] = this.mark;
          distinct.push(id);
        }
      }
      this.update(field, distinct, delta);
    }
  }

  private idsOf(counted: FieldTerms): readonly number[] {
    return counted.ids ?? counted.terms.map((t) => this.terms.id(t));
  }

  private update(field: string, ids: readonly number[], delta: 1 | -1): void {
    let byId = this.fields.get(field);
    if (!byId || byId.length < this.terms.size) this.fields.set(field, (byId = grown(byId ?? new Int32Array(16), this.terms.size)));
    for (const id of ids) byId[id] += delta;
  }
}
