import type { IndexRecord } from '../../indexes/index-schema.js';
import type { DocumentFields } from '../../storage/ports/document-store.js';
import type { SectionView } from '../../storage/ports/section-store.js';
import { createAnalyzer, type Analyzer } from '../analyzer/analyzer.js';
import { InvertedIndex, type UnitTerms } from '../rank/inverted-index.js';
import { PageFrequencies } from '../rank/page-frequencies.js';
import { own } from '../../records/own.js';

/** Pseudo-field of a section's heading; '#' keeps it apart from schema field names (letters, digits, _). */
export const HEADING_FIELD = '#heading';

export interface Unit {
  uid: string;
  section: SectionView;
  terms: UnitTerms;
}

/**
 * One index, in memory: the inverted index over its sections (units), and per document its units,
 * its stored fields (filters and projections read them) and, lazily, the analysed terms of its text
 * fields (text filters read those).
 */
export class IndexState {
  readonly inverted = new InvertedIndex();
  /** Page-level document frequencies (the search interface's page scores). */
  readonly pages = new PageFrequencies();
  readonly units: Unit[] = [];
  readonly docUnits = new Map<string, number[]>();
  readonly docFields = new Map<string, DocumentFields>();
  /** Documents written with metadata (page fragments); the fragments themselves stay in the document store. */
  readonly docsWithMetadata = new Set<string>();
  private readonly docTerms = new Map<string, Map<string, string[]>>();
  readonly analyzer: Analyzer;
  /** The change-feed entry this copy has applied up to. */
  seq = 0;
  /** Set when the feed was pruned past `seq`: this copy must be loaded again. */
  behindFeed = false;
  /**
   * Per filter string, each unit's verdict (0 not yet known, 1 passes, -1 fails), filled lazily by
   * queries, like Solr's filterCache: apps send the same few filters again and again. Any change to
   * the index empties it.
   */
  private readonly filterCache = new Map<string, Int8Array>();

  constructor(readonly index: IndexRecord) {
    this.analyzer = createAnalyzer(index.languageCode);
  }

  /**
   * Replaces a document's units; `sections` empty and `fields` null removes it. A document's units are
   * added together, so their ids are consecutive (page scores find a page's postings as one run).
   */
  setDocument(uid: string, sections: SectionView[], fields: DocumentFields | null, hasMetadata = false): void {
    this.filterCache.clear();
    const previous = this.docUnits.get(uid);
    if (previous) {
      for (const u of previous) this.inverted.remove(u, this.units[u].terms);
      this.pages.remove(previous.map((u) => this.units[u].terms));
    }
    this.docUnits.delete(uid);
    this.docFields.delete(uid);
    this.docTerms.delete(uid);
    this.docsWithMetadata.delete(uid);
    if (!fields || sections.length === 0) return;
    const title = typeof fields.title === 'string' && this.index.fields.title ? this.analyzer.analyze(fields.title) : null;
    const ids: number[] = [];
    for (const section of sections) {
      const entries: [string, string[]][] = [];
      if (section.field) entries.push([section.field, this.analyzer.analyze(section.text)]);
      // A section's own heading (not the page title standing in for one) names its topic: the search
      // interface ranks it as a field of its own. Content search only scores the fields it is asked for.
      if (section.title && section.title !== fields.title) entries.push([HEADING_FIELD, this.analyzer.analyze(section.title)]);
      // The title applies to every section of its document, so `title^2` lifts all of them.
      if (title && section.field !== 'title') entries.push(['title', title]);
      // Field names are users' (`__proto__` too): fromEntries keeps each as an own key, where assigning would not.
      const terms: UnitTerms = Object.fromEntries(entries);
      const unit = this.inverted.add(terms);
      // Vectors live in the vector index; keeping them here too would double the memory.
      this.units[unit] = { uid, section: { ...section, vector: null }, terms };
      ids.push(unit);
    }
    this.docUnits.set(uid, ids);
    this.pages.add(ids.map((u) => this.units[u].terms));
    this.docFields.set(uid, fields);
    if (hasMetadata) this.docsWithMetadata.add(uid);
  }

  /** The unit of a document's section at `ord`, if that version is the one held here. */
  unitAt(uid: string, version: number, ord: number): number | null {
    const ids = this.docUnits.get(uid) ?? [];
    // Sections arrive in position order and positions count from 0, so the position is nearly always the slot.
    const direct = ids[ord];
    if (direct !== undefined && this.units[direct].section.ord === ord) return this.units[direct].section.version === version ? direct : null;
    for (const u of ids) {
      const s = this.units[u].section;
      if (s.ord === ord) return s.version === version ? u : null;
    }
    return null;
  }

  /**
   * Up to `n` short queries made of the index's own words (the opening words of sections spread over
   * the index): what a warm-up searches for, so it walks real posting lists and finds real vectors.
   */
  sampleQueries(n: number): string[] {
    const out: string[] = [];
    const count = this.units.length;
    for (let i = 0; i < n && count > 0; i++) {
      const unit = this.units[Math.floor(((i + 0.5) * count) / n)];
      const words = unit?.section.text.split(/\s+/).filter(Boolean).slice(0, 2).join(' ');
      if (words) out.push(words);
    }
    return out;
  }

  /** The verdict array for a filter, shared across queries (or a fresh one when `key` is null). */
  filterVerdicts(key: string | null): Int8Array {
    if (key === null) return new Int8Array(this.inverted.unitCount);
    let v = this.filterCache.get(key);
    if (!v) {
      if (this.filterCache.size >= 64) this.filterCache.delete(this.filterCache.keys().next().value!);
      this.filterCache.set(key, (v = new Int8Array(this.inverted.unitCount)));
    }
    return v;
  }

  termsOf(uid: string, field: string): string[] {
    let perDoc = this.docTerms.get(uid);
    if (!perDoc) this.docTerms.set(uid, (perDoc = new Map()));
    let terms = perDoc.get(field);
    if (!terms) {
      // A sectioned field's terms are its sections' (markup already gone); others are analysed here.
      const units = (this.docUnits.get(uid) ?? []).map((u) => this.units[u]).filter((u) => u.section.field === field);
      if (units.length) terms = units.flatMap((u) => own(u.terms, field) ?? []);
      else {
        const v = own(this.docFields.get(uid), field);
        terms = (Array.isArray(v) ? v : [v]).filter((t): t is string => typeof t === 'string').flatMap((t) => this.analyzer.analyze(t));
      }
      perDoc.set(field, terms);
    }
    return terms;
  }
}
