import type { IndexRecord } from '../indexes/index-schema.js';
import { createAnalyzer } from '../search/analyzer/analyzer.js';
import { filterable, keywordUnits } from './keyword-units.js';
import type { DocumentStore } from './ports/document-store.js';
import type { IndexRegistry } from './ports/index-registry.js';
import { keywordKey, type KeywordIndex, type KeywordUnit } from './ports/keyword-index.js';
import type { MirrorWrite, PublishItem, SectionMirror } from './ports/section-store.js';
import type { VectorIndex, VectorPoint } from './ports/vector-index.js';

export interface ExternalIndexes {
  /** Qdrant's dense vectors, or null (vectors kept with the sections). */
  vectors: VectorIndex | null;
  /** Qdrant's keyword leg (QUARRY_KEYWORD_INDEX=qdrant), or null (each engine holds it). */
  keywords: KeywordIndex | null;
}

/**
 * The sections' copies outside the section store, in the scale-out mode: Qdrant's vector points and,
 * with QUARRY_KEYWORD_INDEX=qdrant, its keyword points. The section store calls it inside a publish
 * (see SectionMirror); what it writes is derived from what it reads here, before the transaction:
 * the documents' filterable fields and their analysed terms.
 */
export class ExternalSectionMirror implements SectionMirror {
  constructor(
    private readonly external: ExternalIndexes,
    private readonly stores: { indexes: Pick<IndexRegistry, 'getById'>; documents: Pick<DocumentStore, 'fields'> },
  ) {}

  async prepare(indexId: number, items: PublishItem[]): Promise<MirrorWrite | null> {
    const index = await this.stores.indexes.getById(indexId);
    if (!index) return null;
    const fields = await this.stores.documents.fields(index.id, items.filter((i) => i.sections).map((i) => i.uid));
    const { vectors, keywords } = this.external;
    const analyzer = keywords ? createAnalyzer(index.languageCode) : null;
    const points = new Map<PublishItem, VectorPoint[]>();
    const units = new Map<PublishItem, KeywordUnit[]>();
    for (const item of items) {
      const doc = fields.get(item.uid);
      if (!item.sections) continue;
      const values = filterable(index, doc);
      if (vectors) {
        points.set(item, item.sections.flatMap((s) =>
          s.vector ? [{ uid: item.uid, version: item.version, ord: s.ord, vector: s.vector, fields: values }] : []));
      }
      if (analyzer && doc) units.set(item, keywordUnits(analyzer, index, { uid: item.uid, version: item.version, fields: doc }, item.sections));
    }
    return (accepted) => this.write(index, accepted, points, units);
  }

  /**
   * New versions' points first (each call returns once they are searchable), then the older versions'
   * points go: search never finds a document empty.
   */
  private async write(index: IndexRecord, accepted: PublishItem[], points: Map<PublishItem, VectorPoint[]>, units: Map<PublishItem, KeywordUnit[]>) {
    if (accepted.length === 0) return;
    const refs = accepted.map(({ uid, version }) => ({ uid, version }));
    const { vectors, keywords } = this.external;
    if (vectors) {
      const all = accepted.flatMap((a) => points.get(a) ?? []);
      if (all.length) await vectors.upsert(index.uid, all);
      await vectors.deleteOlder(index.uid, refs);
    }
    if (keywords) {
      const all = accepted.flatMap((a) => units.get(a) ?? []);
      if (all.length) await keywords.upsert(keywordKey(index), index.fields, all);
      await keywords.deleteOlder(keywordKey(index), refs);
    }
  }
}
