import type { FieldSpec, IndexRecord } from '../../indexes/index-schema.js';
import type { FqNode } from '../../search/query/fq-ast.js';
import type { FieldBoost } from '../../search/query/qf-parser.js';
import type { UnitTerms } from '../../search/rank/inverted-index.js';
import type { DocumentRef } from './document-store.js';
import type { FilterValue } from './vector-index.js';

/**
 * The name an index's keyword data goes by: its uid and when it was created, so an index deleted and
 * created again under the same uid starts from nothing instead of finding the old one's sections.
 */
export function keywordKey(index: Pick<IndexRecord, 'uid' | 'createdAt'>): string {
  return `${index.uid}-${index.createdAt.toString(36)}`;
}

/** A boosted field the keyword index has no vector for (a text field added after the index's first write). */
export class KeywordFieldUnavailable extends Error {
  constructor(readonly field: string) {
    super(`field '${field}' was added to the index after its keyword index in Qdrant was created, so it is not searchable there (QUARRY_KEYWORD_INDEX=qdrant); create the index anew to search it`);
    this.name = 'KeywordFieldUnavailable';
  }
}

/** One section's analysed tokens per field (as the embedded engine indexes it), with its document's filterable values. */
export interface KeywordUnit extends DocumentRef {
  ord: number;
  terms: UnitTerms;
  /** The document's string, number, boolean and date fields (arrays for multi-valued ones). */
  fields?: Record<string, FilterValue | FilterValue[]>;
}

/** A keyword search as the embedded engine runs it: DisMax BM25 over boosted fields, an fq filter, the best section per document. */
export interface KeywordSearch {
  fields: FieldBoost[];
  /** Analysed query terms, a repeated term repeated. */
  terms: string[];
  tie: number;
  /** The parsed fq (validated against `schema` beforehand), null for none. */
  filter: FqNode | null;
  schema: Record<string, FieldSpec>;
  /** What NOW means in the filter's date math. */
  now: Date;
  /** Documents wanted. */
  limit: number;
}

export interface KeywordHit extends DocumentRef {
  /** The document's best section. */
  ord: number;
  score: number;
}

/** Whole-page scores of some documents (the search interface's page evidence). */
export interface PageQuery {
  fields: FieldBoost[];
  terms: string[];
  /** The documents, at the versions their ranked sections are of. */
  docs: DocumentRef[];
}

/** A part of a filter the keyword index cannot evaluate exactly: answered 400, naming it and the mode. */
export class KeywordFilterUnsupported extends Error {
  constructor(
    /** What was written, e.g. "a wildcard on string field 'sku'". */
    readonly construct: string,
    /** 0-based offset in the filter. */
    readonly position: number,
  ) {
    super(`${construct} is not available with QUARRY_KEYWORD_INDEX=qdrant`);
    this.name = 'KeywordFilterUnsupported';
  }
}

/**
 * The keyword leg kept outside the API processes (Qdrant's sparse vectors), so an API replica holds no
 * corpus. Writes are idempotent like the vector index's: a section's identity is its index, document,
 * version and position. Scores are the embedded engine's (DisMax over BM25, same analyzer and formula).
 */
export interface KeywordIndex {
  /** Writes the sections; when it returns they are searchable. `schema`: the index's fields (its text fields become vectors). */
  upsert(index: string, schema: Record<string, FieldSpec>, units: KeywordUnit[]): Promise<void>;
  /**
   * Measures the average field lengths BM25 divides by again, over every live section `read` yields (each
   * part whole documents; it is called twice), keeps them, and writes every section again with them. The
   * first write fixes them (see the adapter); this brings them back to what the index holds now.
   */
  recalibrate(index: string, schema: Record<string, FieldSpec>, read: () => AsyncIterable<KeywordUnit[]>): Promise<Recalibration | null>;
  /**
   * Recalibrates when it is due: the index has at least doubled since its averages were measured and a
   * sample (the first part `read` yields) is more than 20% off them (the adapter's RECALIBRATE_DRIFT). When it has doubled but the
   * sample agrees, only records the new size. Null: not due (or nothing written yet).
   */
  recalibrateWhenDue(index: string, schema: Record<string, FieldSpec>, read: () => AsyncIterable<KeywordUnit[]>): Promise<CalibrationCheck | null>;
  /** Removes every section of each document whose version is below the given one. */
  deleteOlder(index: string, refs: DocumentRef[]): Promise<void>;
  /** Removes the sections of exactly these document versions. */
  deleteVersions(index: string, refs: DocumentRef[]): Promise<void>;
  /** The `limit` best documents, each by its best section, best first (ties by uid); throws KeywordFilterUnsupported. */
  search(index: string, search: KeywordSearch): Promise<KeywordHit[]>;
  /** The `limit` best sections, several of a document allowed, best first. */
  searchSections(index: string, search: KeywordSearch): Promise<KeywordHit[]>;
  /** Whole-page BM25 (the embedded engine's pageScores) of these documents: uid -> score, absent when nothing matched. */
  pageScores(index: string, query: PageQuery): Promise<Map<string, number>>;
  /** Document versions that have points, ordered by document uid, after `afterUid`: what the reconciler checks. */
  versions(index: string, afterUid: string | null, limit: number): Promise<DocumentRef[]>;
  dropIndex(index: string): Promise<void>;
  close(): Promise<void>;
}

/** What a recalibration measured: sections read, and each field's average length before and after. */
export interface Recalibration {
  sections: number;
  before: Record<string, number>;
  after: Record<string, number>;
}

/** A due check that did something: recalibrated, or found the averages still right for a larger index. */
export type CalibrationCheck = { recalibrated: Recalibration } | { confirmed: { sections: number; drift: number } };
