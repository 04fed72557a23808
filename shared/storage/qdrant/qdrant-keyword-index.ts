import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import type { FieldSpec } from '../../indexes/index-schema.js';
import { bm25Vector, queryVector } from '../../search/sparse/sparse-weights.js';
import { luceneLength } from '../../search/rank/lucene-length.js';
import type { DocumentRef } from '../ports/document-store.js';
import { KeywordFieldUnavailable, type KeywordHit, type KeywordIndex, type KeywordSearch, type KeywordUnit, type PageQuery, type CalibrationCheck, type Recalibration } from '../ports/keyword-index.js';
import { HEADING_FIELD, PAGE_ONCE_FIELDS } from '../../search/engine/unit-terms.js';
import type { UnitTerms } from '../../search/rank/inverted-index.js';
import type { FilterValue } from '../ports/vector-index.js';
import { fqToQdrant } from './fq-to-qdrant.js';
import { VersionListing } from './version-listing.js';
import { fieldKey, isNotFound, pointId, qdrantFailure } from './qdrant-vector-index.js';

export interface QdrantKeywordIndexOptions {
  url: string;
  apiKey?: string;
  /** Each index's sections live in the collection `<prefix><index uid>`. Default `quarry_kw_`. */
  collectionPrefix?: string;
  timeoutMs?: number;
  /** How long a writer trusts the collection's calibration before reading it again (default META_REFRESH_MS). */
  metaRefreshMs?: number;
}

/**
 * A writer reads the collection's calibration again when it is older than this, so a recalibration made
 * by another process reaches every writer within it; a recalibration waits as long before it rewrites.
 */
const META_REFRESH_MS = 5_000;
/**
 * A recalibration is due once the index holds twice the sections its averages were measured on (so an
 * index grown in one go is measured about log2(size) times, each check costing one sample) and a sample's
 * average length of some field is off by more than this share.
 */
const RECALIBRATE_DRIFT = 0.2;
/** Below this many sections an index is never checked: a handful of documents says little about lengths. */
const RECALIBRATE_MIN_SECTIONS = 20;
/** Points per upsert request. */
const UPSERT_BATCH = 256;
/** Documents per delete-by-filter request. */
const DELETE_BATCH = 100;
/** Candidates per field in the first try, as a multiple of the documents wanted (and at least MIN_CANDIDATES). */
const CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 50;
/** The most candidates per field a search asks for; past it the top is the best among them (logged by the caller's figures). */
const MAX_CANDIDATES = 10_000;

/** Where a section is: its document, version and position. */
interface SectionRef {
  uid: string;
  version: number;
  ord: number;
}

/** What a collection was created with: its vectors and the average field lengths its weights use. */
interface CollectionMeta {
  /** Raised with any change to what the collection holds: an older collection is refused, not misread. */
  layout: number;
  /** Sparse vector name by field (text fields and the section heading): the sections' vectors. */
  vectors: Record<string, string>;
  /** Average length in tokens per field, fixed when the field was first written (see `calibrate`). */
  avgLength: Record<string, number>;
  /** The same for the page points (a document's sections together, the search interface's page evidence). */
  pageVectors: Record<string, string>;
  pageAvgLength: Record<string, number>;
  /** Sections the averages were measured on (absent: the first write's, before recalibrations existed). */
  calibratedOn?: number;
}

const LAYOUT = 2;
/** `ord` of a document's page point (sections count from 0). */
const PAGE_ORD = -1;

/**
 * The keyword leg on Qdrant (QUARRY_KEYWORD_INDEX=qdrant): a collection per index (Qdrant's IDF is a
 * collection's statistic, and BM25's is an index's), a point per section, a named sparse vector per text
 * field with `modifier: idf`. A vector's values are BM25's term-frequency part (sparse-weights.ts) of our
 * own analyzer's tokens, its indices stable hashes of the terms (term-ids.ts): Qdrant then multiplies by
 * the term's IDF, ln(1 + (N - n + 0.5) / (n + 0.5)), and the query's weight, which is BM25 as the
 * embedded engine computes it. BM25 divides by the field's average length, which Qdrant does not know:
 * it is measured on the first sections written and kept in the collection's metadata (Qdrant's own
 * BM25 takes a fixed `avg_len` the same way); docs/scale-out.md says what that changes.
 *
 * Searching is DisMax, which Qdrant does not compute (per term: the best field plus `tie` times the
 * others): one batched request of a sparse query per field finds candidates (a field's sum over the
 * terms); a second asks, for the candidates only (`has_id`), every (term, field) score; the DisMax of
 * those is exact. A section outside every field's candidates scores at most the sum of the fields'
 * lowest candidate scores (DisMax never exceeds the sum of its fields, tie <= 1), and at most the DisMax
 * of each (term, field)'s best score in the index, asked beside the first candidates (unseenBound):
 * when the last document returned scores below that bound, the search asks again for four times as
 * many candidates.
 */
export class QdrantKeywordIndex implements KeywordIndex {
  private readonly client: QdrantClient;
  private readonly prefix: string;
  private readonly meta = new Map<string, Promise<CollectionMeta>>();
  /** When each writer's copy of a calibration was read (see META_REFRESH_MS). */
  private readonly metaReadAt = new Map<string, number>();
  private readonly fieldIndexes = new Map<string, Promise<void>>();
  private readonly listing = new VersionListing((index, request) => {
    const collection = this.collectionOf(index);
    return this.call('listing versions', collection, () => this.client.scroll(collection, request));
  });

  constructor(private readonly options: QdrantKeywordIndexOptions) {
    this.prefix = options.collectionPrefix ?? 'quarry_kw_';
    this.client = new QdrantClient({ url: options.url, apiKey: options.apiKey, timeout: options.timeoutMs ?? 30_000, checkCompatibility: false });
  }

  collectionOf(index: string): string {
    return this.prefix + index;
  }

  async upsert(index: string, schema: Record<string, FieldSpec>, units: KeywordUnit[]): Promise<void> {
    if (units.length === 0) return;
    const collection = this.collectionOf(index);
    const meta = await this.collection(index, schema, units);
    await this.ensureFieldIndexes(collection, schema);
    const vectorsOf = (terms: UnitTerms, names: Record<string, string>, avgLength: Record<string, number>, lengths?: Record<string, number>) => {
      const vector: Record<string, Schemas['SparseVector']> = {};
      for (const [field, tokens] of Object.entries(terms)) {
        const name = names[field];
        // A text field added to the index after the collection was made has no vector (Qdrant adds none to a
        // collection): its tokens are left out, and a search that boosts it is refused (KeywordFieldUnavailable).
        if (name && tokens.length) vector[name] = bm25Vector(tokens, avgLength[field] ?? tokens.length, lengths?.[field]);
      }
      return vector;
    };
    const sections = units.map((u) => ({
      id: pointId(index, u.uid, u.version, u.ord), vector: vectorsOf(u.terms, meta.vectors, meta.avgLength),
      payload: { doc: u.uid, version: u.version, ord: u.ord, ...payloadFields(schema, u.fields) },
    }));
    const pages = pagesOf(units).map((p) => ({
      id: pointId(index, p.uid, p.version, PAGE_ORD), vector: vectorsOf(p.terms, meta.pageVectors, meta.pageAvgLength, p.lengths),
      payload: { doc: p.uid, version: p.version, ord: PAGE_ORD, ...payloadFields(schema, p.fields) },
    }));
    const points = [...sections, ...pages];
    for (let i = 0; i < points.length; i += UPSERT_BATCH) {
      const batch = points.slice(i, i + UPSERT_BATCH);
      await this.call('upserting sections', collection, () => this.client.upsert(collection, { wait: true, ordering: 'strong', points: batch }));
    }
  }

  deleteOlder(index: string, refs: DocumentRef[]): Promise<void> {
    return this.deleteByDocs(index, refs, (v) => ({ key: 'version', range: { lt: v } }));
  }

  deleteVersions(index: string, refs: DocumentRef[]): Promise<void> {
    return this.deleteByDocs(index, refs, (v) => ({ key: 'version', match: { value: v } }));
  }

  search(index: string, s: KeywordSearch): Promise<KeywordHit[]> {
    return this.ranked(index, s, true);
  }

  searchSections(index: string, s: KeywordSearch): Promise<KeywordHit[]> {
    return this.ranked(index, s, false);
  }

  /**
   * Whole-page BM25 of these documents (page-scores.ts): their page points' vectors (a field's tokens over
   * all sections; the title once), per term the best field (DisMax, tie 0), IDF over pages. One request.
   */
  async pageScores(index: string, q: PageQuery): Promise<Map<string, number>> {
    const meta = await this.existing(index);
    const out = new Map<string, number>();
    if (!meta || q.terms.length === 0 || q.docs.length === 0) return out;
    const fields = q.fields.filter((f) => f.boost !== 0 && meta.pageVectors[f.field]);
    const byId = new Map(q.docs.map((d) => [pointId(index, d.uid, d.version, PAGE_ORD), d.uid]));
    const scores = await this.disMaxScores(this.collectionOf(index), meta.pageVectors, fields, termCounts(q.terms), 0, [...byId.keys()]);
    for (const [id, score] of scores) out.set(byId.get(id)!, score);
    return out;
  }

  /** Sections by DisMax, best first: the best per document (`perDocument`) or all; proven top `limit` (see the class comment). */
  private async ranked(index: string, s: KeywordSearch, perDocument: boolean): Promise<KeywordHit[]> {
    const filter = s.filter ? fqToQdrant(s.filter, s.schema, s.now) : null;
    const collection = this.collectionOf(index);
    const meta = await this.existing(index);
    if (!meta || s.terms.length === 0 || s.limit <= 0) return [];
    // The content interface names its fields: one without a vector is refused, not quietly left out. The
    // search interface boosts every text field of the index and searches those there are.
    const missing = s.fields.find((f) => f.boost !== 0 && !meta.vectors[f.field]);
    if (missing && perDocument) throw new KeywordFieldUnavailable(missing.field);
    const fields = s.fields.filter((f) => f.boost !== 0 && meta.vectors[f.field]);
    if (fields.length === 0) return [];
    const terms = termCounts(s.terms);
    const where = filter ? { filter } : {};
    // Each (term, field)'s best score in the whole index, asked once beside the first candidates: a
    // section no field returned cannot score more than them either (see `unseenBound`).
    let maxima: number[] | null = null;
    for (let wanted = Math.max(MIN_CANDIDATES, s.limit * CANDIDATE_FACTOR); ; wanted *= CANDIDATE_FACTOR) {
      const limit = Math.min(wanted, MAX_CANDIDATES);
      const asked: Schemas['QueryRequest'][] = fields.map(({ field, boost }) => ({
        query: queryVector(s.terms, boost), using: meta.vectors[field], limit, with_payload: ['doc', 'version', 'ord'], ...where,
      }));
      if (!maxima) {
        for (const [term, count] of terms) {
          for (const { field, boost } of fields) asked.push({ query: queryVector([term], count * boost), using: meta.vectors[field], limit: 1, with_payload: false, ...where });
        }
      }
      const answers = await this.batch(collection, asked);
      const lists = answers.slice(0, fields.length);
      maxima ??= answers.slice(fields.length).map((points) => points[0]?.score ?? 0);
      const candidates = new Map<string, SectionRef>();
      lists.forEach((points) => {
        for (const p of points) {
          const payload = p.payload as { doc: string; version: number; ord: number };
          candidates.set(String(p.id), { uid: payload.doc, version: payload.version, ord: payload.ord });
        }
      });
      // A field that returned fewer than asked returned every section it matches: an unseen one scores 0 there.
      const caps = lists.map((points) => (points.length >= limit ? points[points.length - 1].score : 0));
      const bound = unseenBound(caps, maxima, terms.length, s.tie);
      if (candidates.size === 0) return [];
      const scores = await this.disMaxScores(collection, meta.vectors, fields, terms, s.tie, [...candidates.keys()]);
      const hits: KeywordHit[] = [];
      for (const [id, score] of scores) hits.push({ ...candidates.get(id)!, score });
      const top = (perDocument ? bestPerDocument(hits) : hits.sort(bySectionScore)).slice(0, s.limit);
      const exact = bound === 0 || (top.length === s.limit && top[top.length - 1].score >= bound);
      if (exact || limit >= MAX_CANDIDATES) return top;
    }
  }

  versions(index: string, afterUid: string | null, limit: number): Promise<DocumentRef[]> {
    return this.listing.page(index, afterUid, limit);
  }

  async dropIndex(index: string): Promise<void> {
    const collection = this.collectionOf(index);
    this.meta.delete(index);
    this.listing.forget(index);
    for (const key of this.fieldIndexes.keys()) if (key.startsWith(`${collection}\u0000`)) this.fieldIndexes.delete(key);
    await this.call('dropping the index', collection, () => this.client.deleteCollection(collection));
  }

  async close(): Promise<void> {
    // Nothing held: every call is one HTTP request.
  }

  /** Every (term, field) score of these points (one batched request), combined per term by DisMax: point id -> score. */
  private async disMaxScores(collection: string, names: Record<string, string>, fields: KeywordSearch['fields'], terms: [string, number][], tie: number, ids: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (ids.length === 0 || fields.length === 0) return out;
    const searches = terms.flatMap(([term, count]) => fields.map(({ field, boost }) => ({
      query: queryVector([term], count * boost), using: names[field], limit: ids.length, with_payload: false, filter: { must: [{ has_id: ids }] },
    })));
    const answers = await this.batch(collection, searches);
    // Per point, per term: the best field's score and the sum of all fields'.
    const best = new Map<string, Float64Array>();
    const sum = new Map<string, Float64Array>();
    answers.forEach((points, i) => {
      const t = Math.floor(i / fields.length);
      for (const p of points) {
        const id = String(p.id);
        let b = best.get(id);
        let a = sum.get(id);
        if (!b || !a) {
          best.set(id, (b = new Float64Array(terms.length)));
          sum.set(id, (a = new Float64Array(terms.length)));
        }
        if (p.score > b[t]) b[t] = p.score;
        a[t] += p.score;
      }
    });
    for (const [id, b] of best) {
      const a = sum.get(id)!;
      let score = 0;
      for (let t = 0; t < terms.length; t++) score += b[t] + tie * (a[t] - b[t]);
      out.set(id, score);
    }
    return out;
  }

  private async batch(collection: string, searches: Schemas['QueryRequest'][]): Promise<Schemas['ScoredPoint'][][]> {
    const result = await this.call('searching', collection, () => this.client.queryBatch(collection, { searches }));
    return (result ?? []).map((r) => r.points);
  }

  private async deleteByDocs(index: string, refs: DocumentRef[], version: (v: number) => Schemas['Condition']): Promise<void> {
    const collection = this.collectionOf(index);
    for (let i = 0; i < refs.length; i += DELETE_BATCH) {
      const should = refs.slice(i, i + DELETE_BATCH).map((r) => ({ must: [{ key: 'doc', match: { value: r.uid } }, version(r.version)] }));
      await this.call('deleting sections', collection, () => this.client.delete(collection, { wait: true, ordering: 'strong', filter: { should } }));
    }
  }

  /** The collection's description, created (with its calibration) from these sections when it does not exist. */
  private collection(index: string, schema: Record<string, FieldSpec>, units: KeywordUnit[]): Promise<CollectionMeta> {
    let meta = this.meta.get(index);
    const refreshMs = this.options.metaRefreshMs ?? META_REFRESH_MS;
    if (!meta || performance.now() - (this.metaReadAt.get(index) ?? -Infinity) > refreshMs) {
      meta = this.openOrCreate(index, schema, units);
      meta.catch(() => this.meta.delete(index));
      this.meta.set(index, meta);
      this.metaReadAt.set(index, performance.now());
    }
    return meta;
  }

  async recalibrateWhenDue(index: string, schema: Record<string, FieldSpec>, read: () => AsyncIterable<KeywordUnit[]>): Promise<CalibrationCheck | null> {
    const collection = this.collectionOf(index);
    const current = await this.read(collection);
    if (!current) return null;
    const counted = await this.call('counting sections', collection, () =>
      this.client.count(collection, { exact: true, filter: { must_not: [{ key: 'ord', match: { value: PAGE_ORD } }] } }));
    const sections = counted?.count ?? 0;
    // A collection from before recalibrations existed says nothing of its first write's size: it is due at once.
    if (sections < RECALIBRATE_MIN_SECTIONS || sections < 2 * (current.calibratedOn ?? 0)) return null;
    const sample = new LengthTally();
    for await (const part of read()) {
      sample.add(part);
      break;
    }
    const measured = sample.calibration(schema).avgLength;
    let drift = 0;
    for (const [field, avg] of Object.entries(current.avgLength)) {
      if (sample.has(field) && avg > 0) drift = Math.max(drift, Math.abs(measured[field] - avg) / avg);
    }
    if (drift > RECALIBRATE_DRIFT) {
      const recalibrated = await this.rewrite(index, current, schema, read);
      return recalibrated ? { recalibrated } : null;
    }
    await this.writeMeta(collection, { ...current, calibratedOn: sections });
    return { confirmed: { sections, drift } };
  }

  async recalibrate(index: string, schema: Record<string, FieldSpec>, read: () => AsyncIterable<KeywordUnit[]>): Promise<Recalibration | null> {
    const current = await this.read(this.collectionOf(index));
    return current ? this.rewrite(index, current, schema, read) : null;
  }

  /** Stores a collection's description (Qdrant merges metadata: the `quarry` entry is replaced whole). */
  private async writeMeta(collection: string, meta: CollectionMeta): Promise<void> {
    await this.call('recording the calibration', collection, () => this.client.updateCollection(collection, { metadata: { quarry: meta as unknown as Record<string, unknown> } }));
  }

  /** recalibrate, given the collection's description as it is now. */
  private async rewrite(index: string, current: CollectionMeta, schema: Record<string, FieldSpec>, read: () => AsyncIterable<KeywordUnit[]>): Promise<Recalibration | null> {
    const tally = new LengthTally();
    for await (const part of read()) tally.add(part);
    if (tally.sections === 0) return null;
    const measured = tally.calibration(schema);
    // The vectors stay as they are (a field added since has none); only the averages change.
    const meta: CollectionMeta = { ...current, avgLength: measured.avgLength, pageAvgLength: measured.pageAvgLength, calibratedOn: tally.sections };
    await this.writeMeta(this.collectionOf(index), meta);
    this.meta.set(index, Promise.resolve(meta));
    this.metaReadAt.set(index, performance.now());
    // Other writers read the new averages within META_REFRESH_MS: after it, what they write agrees with what is rewritten here.
    await new Promise((r) => setTimeout(r, this.options.metaRefreshMs ?? META_REFRESH_MS));
    let sections = 0;
    for await (const part of read()) {
      await this.upsert(index, schema, part);
      sections += part.length;
    }
    return { sections, before: current.avgLength, after: meta.avgLength };
  }

  /** The description of an existing collection; null when there is none (nothing written yet). */
  private async existing(index: string): Promise<CollectionMeta | null> {
    const held = this.meta.get(index);
    if (held) return held;
    const meta = await this.read(this.collectionOf(index));
    if (meta) this.meta.set(index, Promise.resolve(meta));
    return meta;
  }

  private async read(collection: string): Promise<CollectionMeta | null> {
    let info: Schemas['CollectionInfo'];
    try {
      info = await this.client.getCollection(collection);
    } catch (e) {
      const failure = qdrantFailure('reading the collection', collection, e, this.options.apiKey);
      if (isNotFound(failure)) return null;
      throw failure;
    }
    const meta = (info.config as { metadata?: { quarry?: CollectionMeta } | null }).metadata?.quarry;
    if (!meta) throw new Error(`Qdrant: collection "${collection}" was not created by Quarry (its metadata has no "quarry" entry); drop it or choose another collection prefix`);
    if (meta.layout !== LAYOUT) throw new Error(`Qdrant: collection "${collection}" holds an older layout of the keyword index (${meta.layout ?? 1}, this version writes ${LAYOUT}); drop it and reload the index`);
    return meta;
  }

  private async openOrCreate(index: string, schema: Record<string, FieldSpec>, units: KeywordUnit[]): Promise<CollectionMeta> {
    const collection = this.collectionOf(index);
    const found = await this.read(collection);
    if (found) return found;
    const meta = calibrate(schema, units);
    try {
      await this.client.createCollection(collection, {
        sparse_vectors: Object.fromEntries([...Object.values(meta.vectors), ...Object.values(meta.pageVectors)].map((name) => [name, { modifier: 'idf' as const }])),
        metadata: { quarry: meta as unknown as Record<string, unknown> },
      });
    } catch (e) {
      // Another worker created it meanwhile: its calibration holds for everyone.
      const again = await this.read(collection);
      if (again) return again;
      throw qdrantFailure('creating the collection', collection, e, this.options.apiKey);
    }
    await this.ensureIndex(collection, 'doc', 'keyword');
    await this.ensureIndex(collection, 'version', 'integer');
    return meta;
  }

  /** A payload index per filterable field, of the type its schema says (filters then run on indexes). */
  private async ensureFieldIndexes(collection: string, schema: Record<string, FieldSpec>): Promise<void> {
    for (const [name, spec] of Object.entries(schema)) {
      const type = PAYLOAD_TYPE[spec.type];
      if (type) await this.ensureIndex(collection, fieldKey(name), type);
    }
  }

  private ensureIndex(collection: string, key: string, type: Schemas['PayloadSchemaType']): Promise<void> {
    const id = `${collection}\u0000${key}`;
    let done = this.fieldIndexes.get(id);
    if (!done) {
      done = this.call(`creating the payload index ${key}`, collection, () =>
        this.client.createPayloadIndex(collection, { wait: true, ordering: 'strong', field_name: key, field_schema: type }),
      ).then(() => undefined);
      done.catch(() => this.fieldIndexes.delete(id));
      this.fieldIndexes.set(id, done);
    }
    return done;
  }

  private async call<T>(what: string, collection: string, request: () => Promise<T>): Promise<T | undefined> {
    try {
      return await request();
    } catch (e) {
      const failure = qdrantFailure(what, collection, e, this.options.apiKey);
      // A search or a listing of an index nothing was written to yet finds nothing.
      if (failure.status === 404 && (what === 'searching' || what === 'listing versions')) return undefined;
      throw failure;
    }
  }
}

export function createQdrantKeywordIndex(options: QdrantKeywordIndexOptions): QdrantKeywordIndex {
  return new QdrantKeywordIndex(options);
}

const PAYLOAD_TYPE: Partial<Record<FieldSpec['type'], Schemas['PayloadSchemaType']>> = {
  string: 'keyword', int: 'integer', float: 'float', boolean: 'bool', date: 'datetime',
};


/**
 * A sparse vector per text field and one for section headings, for sections (`t_…`) and for pages
 * (`p_…`); each field's average length from these sections and their pages (the first written), or,
 * for a field they lack, the average over the fields they have.
 */
function calibrate(schema: Record<string, FieldSpec>, units: KeywordUnit[]): CollectionMeta {
  const tally = new LengthTally();
  tally.add(units);
  return tally.calibration(schema);
}

type Sums = Map<string, { n: number; tokens: number }>;

/** Tokens per field over sections and over their pages, added part by part (each part whole documents). */
class LengthTally {
  sections = 0;
  private readonly sectionSums: Sums = new Map();
  private readonly pageSums: Sums = new Map();

  /** Whether some section had this field. */
  has(field: string): boolean {
    return this.sectionSums.has(field);
  }

  add(units: KeywordUnit[]): void {
    this.sections += units.length;
    addTokens(this.sectionSums, units);
    addTokens(this.pageSums, pagesOf(units));
  }

  calibration(schema: Record<string, FieldSpec>): CollectionMeta {
    const names = [...Object.entries(schema).filter(([, s]) => s.type === 'text' || s.type === 'html').map(([n]) => n), HEADING_FIELD];
    const named = (prefix: string) => Object.fromEntries(names.map((n) => [n, fieldKey(n).replace(/^f_/, prefix)]));
    const avgLength = averages(names, this.sectionSums);
    // A field a page has once (the title) is as long on the page as on each section: page-scores.ts averages it over sections.
    const pageAvgLength = { ...averages(names, this.pageSums), ...Object.fromEntries(names.filter((n) => PAGE_ONCE_FIELDS.has(n)).map((n) => [n, avgLength[n]])) };
    return { layout: LAYOUT, vectors: named('t_'), avgLength, pageVectors: named('p_'), pageAvgLength, calibratedOn: this.sections };
  }
}

function addTokens(sums: Sums, all: { terms: UnitTerms }[]): void {
  for (const u of all) {
    for (const [field, tokens] of Object.entries(u.terms)) {
      if (tokens.length === 0) continue;
      const s = sums.get(field) ?? { n: 0, tokens: 0 };
      s.n++;
      s.tokens += tokens.length;
      sums.set(field, s);
    }
  }
}

/** Each field's average; a field never seen gets the average over the fields that were. */
function averages(names: string[], sums: Sums): Record<string, number> {
  const total = [...sums.values()].reduce((a, s) => ({ n: a.n + s.n, tokens: a.tokens + s.tokens }), { n: 0, tokens: 0 });
  const fallback = total.n ? total.tokens / total.n : 1;
  return Object.fromEntries(names.map((n) => {
    const s = sums.get(n);
    return [n, s ? s.tokens / s.n : fallback];
  }));
}

/**
 * Each document version's page: per field its sections' tokens one after another, and a field the
 * sections share (the title, copied onto each of them) once, as page-scores.ts counts a page.
 */
function pagesOf(units: KeywordUnit[]): Page[] {
  const pages = new Map<string, Page>();
  for (const u of [...units].sort((a, b) => a.ord - b.ord)) {
    const key = `${u.version}\u0000${u.uid}`;
    let page = pages.get(key);
    if (!page) pages.set(key, (page = { uid: u.uid, version: u.version, terms: Object.create(null) as UnitTerms, lengths: Object.create(null) as Record<string, number>, fields: u.fields }));
    for (const [field, tokens] of Object.entries(u.terms)) {
      if (tokens.length === 0) continue;
      const held = page.terms[field];
      // BM25 sees a page's length as its sections' one-byte lengths added up (page-scores.ts).
      if (!held) {
        page.terms[field] = [...tokens];
        page.lengths[field] = luceneLength(tokens.length);
      } else if (!PAGE_ONCE_FIELDS.has(field)) {
        held.push(...tokens);
        page.lengths[field] += luceneLength(tokens.length);
      }
    }
  }
  return [...pages.values()];
}

interface Page {
  uid: string;
  version: number;
  terms: UnitTerms;
  lengths: Record<string, number>;
  fields: KeywordUnit['fields'];
}

function termCounts(terms: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts];
}

const bySectionScore = (x: KeywordHit, y: KeywordHit) => y.score - x.score || (x.uid < y.uid ? -1 : x.uid > y.uid ? 1 : x.ord - y.ord);

/** Each document's best section (ties: its first), documents best first, ties by uid. */
function bestPerDocument(hits: KeywordHit[]): KeywordHit[] {
  const perDoc = new Map<string, KeywordHit>();
  for (const h of hits) {
    const held = perDoc.get(h.uid);
    if (!held || h.score > held.score || (h.score === held.score && h.ord < held.ord)) perDoc.set(h.uid, h);
  }
  return [...perDoc.values()].sort(bySectionScore);
}

/** Filterable values under their payload keys; dates as RFC 3339 instants, which Qdrant's datetime ranges compare. */
function payloadFields(schema: Record<string, FieldSpec>, fields: KeywordUnit['fields']): Record<string, FilterValue | FilterValue[]> {
  const out: Record<string, FilterValue | FilterValue[]> = {};
  for (const [name, value] of Object.entries(fields ?? {})) {
    const spec = Object.hasOwn(schema, name) ? schema[name] : undefined;
    if (!spec || !PAYLOAD_TYPE[spec.type]) continue;
    const one = (v: FilterValue): FilterValue | null => {
      if (spec.type !== 'date') return v;
      const ms = typeof v === 'string' ? Date.parse(v) : NaN;
      return Number.isNaN(ms) ? null : new Date(ms).toISOString();
    };
    if (Array.isArray(value)) out[fieldKey(name)] = value.map(one).filter((v): v is FilterValue => v !== null);
    else {
      const v = one(value);
      if (v !== null) out[fieldKey(name)] = v;
    }
  }
  return out;
}

/**
 * The most a section outside every field's candidates can score. In a field whose list was full, its
 * sum over the terms is at most that list's last score (`caps`; 0 for a field that returned all it
 * matches), so each of its (term, field) scores is too, and none exceeds that pair's best in the index
 * (`maxima`, term-major). DisMax per term, (1 - tie) · best field + tie · all fields, grows with every
 * score: bounded by the same of those caps, and by the sum of the caps (DisMax never exceeds its fields' sum).
 */
export function unseenBound(caps: number[], maxima: number[], termCount: number, tie: number): number {
  const sum = caps.reduce((a, b) => a + b, 0);
  let perTerm = 0;
  for (let t = 0; t < termCount; t++) {
    let best = 0;
    let all = 0;
    for (let f = 0; f < caps.length; f++) {
      const m = Math.min(maxima[t * caps.length + f], caps[f]);
      if (m > best) best = m;
      all += m;
    }
    perTerm += (1 - tie) * best + tie * all;
  }
  return Math.min(sum, perTerm);
}
