import type { IndexRecord } from '../indexes/index-schema.js';
import { own, keyedByUser } from '../records/own.js';
import { createAnalyzer, type Analyzer } from '../search/analyzer/analyzer.js';
import { documentUnitTerms, type SectionText } from '../search/engine/unit-terms.js';
import type { DocumentFields, DocumentStore } from './ports/document-store.js';
import type { KeywordUnit } from './ports/keyword-index.js';
import type { SectionStore } from './ports/section-store.js';
import type { FilterValue } from './ports/vector-index.js';

const FILTERABLE = new Set(['string', 'int', 'float', 'boolean', 'date']);

/** The document's exact-value fields, so filters can run inside the external index. */
export function filterable(index: IndexRecord, fields: DocumentFields | undefined): Record<string, FilterValue | FilterValue[]> | undefined {
  if (!fields) return undefined;
  const out = keyedByUser<FilterValue | FilterValue[]>();
  for (const [name, spec] of Object.entries(index.fields)) {
    const v = own(fields, name);
    if (!FILTERABLE.has(spec.type) || v === undefined || v === null) continue;
    if (Array.isArray(v)) out[name] = v.filter((x): x is FilterValue => ['string', 'number', 'boolean'].includes(typeof x));
    else if (['string', 'number', 'boolean'].includes(typeof v)) out[name] = v as FilterValue;
  }
  return out;
}

/** One document version's sections as the keyword index takes them: analysed terms and filterable fields. */
export function keywordUnits(analyzer: Analyzer, index: IndexRecord, doc: { uid: string; version: number; fields: DocumentFields }, sections: readonly (SectionText & { ord: number })[]): KeywordUnit[] {
  const terms = documentUnitTerms(analyzer, index, sections, doc.fields);
  const values = filterable(index, doc.fields);
  return sections.map((s, i) => ({ uid: doc.uid, version: doc.version, ord: s.ord, terms: terms[i], fields: values }));
}

/**
 * Every live section of an index as keyword units, read from the stores in parts of whole documents
 * (`documentsPerPart` at a time, so memory holds one part): what a recalibration reads.
 */
export async function* liveKeywordUnits(
  stores: { sections: Pick<SectionStore, 'sectionsPage'>; documents: Pick<DocumentStore, 'fields'> },
  index: IndexRecord,
  documentsPerPart = 200,
): AsyncGenerator<KeywordUnit[]> {
  const analyzer = createAnalyzer(index.languageCode);
  for (let after: string | null = null; ;) {
    const page = await stores.sections.sectionsPage(index.id, after, documentsPerPart, { vectors: false });
    if (page.length === 0) return;
    const byDoc = new Map<string, typeof page>();
    for (const s of page) (byDoc.get(s.uid) ?? byDoc.set(s.uid, []).get(s.uid)!).push(s);
    const fields = await stores.documents.fields(index.id, [...byDoc.keys()]);
    yield [...byDoc].flatMap(([uid, sections]) => {
      const doc = fields.get(uid);
      return doc ? keywordUnits(analyzer, index, { uid, version: sections[0].version, fields: doc }, sections) : [];
    });
    after = page[page.length - 1].uid;
  }
}
