import type { IndexRecord } from '../../indexes/index-schema.js';
import type { DocumentFields } from '../../storage/ports/document-store.js';
import type { Analyzer, TermNumbering } from '../analyzer/analyzer.js';
import type { UnitTerms } from '../rank/inverted-index.js';

/** A unit's terms per field as numbers of the index's TermDictionary. */
export type UnitTermIds = Record<string, number[]>;

/** Pseudo-field of a section's heading; '#' keeps it apart from schema field names (letters, digits, _). */
export const HEADING_FIELD = '#heading';

/** Fields copied onto every section of a page (the title): a page has them once. */
export const PAGE_ONCE_FIELDS: ReadonlySet<string> = new Set(['title']);

/** What a section contributes to keyword search. */
export interface SectionText {
  field: string;
  title: string;
  text: string;
}

/**
 * The analysed tokens, per field, of each section of a document: what a keyword index holds for it,
 * in memory (IndexState) or in Qdrant (the workers write the same). The section's own field; its
 * heading as the heading pseudo-field when it is not the page title (the search interface ranks a
 * section's topic on its own); and the page title, which applies to every section so `title^2` lifts
 * all of them.
 */
export function documentUnitTerms(analyzer: Analyzer, index: IndexRecord, sections: readonly SectionText[], fields: DocumentFields): UnitTerms[] {
  return unitFields((text) => analyzer.analyze(text), index, sections, fields);
}

/** documentUnitTerms as the terms' numbers in `numbering` (the in-memory engine's dictionary). */
export function documentUnitTermIds(analyzer: Analyzer, numbering: TermNumbering, index: IndexRecord, sections: readonly SectionText[], fields: DocumentFields): UnitTermIds[] {
  return unitFields((text) => analyzer.analyzeNumbered(text, numbering), index, sections, fields);
}

function unitFields<T>(analyze: (text: string) => T[], index: IndexRecord, sections: readonly SectionText[], fields: DocumentFields): Record<string, T[]>[] {
  const title = typeof fields.title === 'string' && index.fields.title ? analyze(fields.title) : null;
  return sections.map((section) => {
    const entries: [string, T[]][] = [];
    if (section.field) entries.push([section.field, analyze(section.text)]);
    if (section.title && section.title !== fields.title) entries.push([HEADING_FIELD, analyze(section.title)]);
    if (title && section.field !== 'title') entries.push(['title', title]);
    // Field names are users' (`__proto__` too): fromEntries keeps each as an own key, where assigning would not.
    return Object.fromEntries(entries);
  });
}
