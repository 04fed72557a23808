import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import type { FieldSpec } from '../../indexes/index-schema.js';
import { bm25Vector, queryVector } from '../../search/sparse/sparse-weights.js';
import type { DocumentRef } from '../ports/document-store.js';
import type { KeywordHit, KeywordIndex, KeywordSearch, KeywordUnit } from '../ports/keyword-index.js';
import type { FilterValue } from '../ports/vector-index.js';
import { fqToQdrant } from './fq-to-qdrant.js';
import { fieldKey, isNotFound, pointId, qdrantFailure } from './qdrant-vector-index.js';

export interface QdrantKeywordIndexOptions {
  url: string;
  apiKey?: string;
  /** Each index's sections live in the collection `<prefix><index uid>`. Default `quarry_kw_`. */
  collectionPrefix?: string;
  timeoutMs?: number;
}

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
  /** Sparse vector name by field (text fields and the section heading). */
  vectors: Record<string, string>;
  /** Average length in tokens per field, fixed when the field was first written (see `calibrate`). */
  avgLength: Record<string, number>;
}

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
 * those is exact. A document outside every field's candidates scores at most the sum of the fields'
 * lowest candidate scores (DisMax never exceeds the sum of its fields, tie <= 1): when the last document
 * returned scores below that bound, the search asks again for four times as many candidates.
 */
export class QdrantKeywordIndex implements KeywordIndex {
  private readonly client: QdrantClient;
  private readonly prefix: string;
  private readonly meta = new Map<string, Promise<CollectionMeta>>();
  private readonly fieldIndexes = new Map<string, Promise<void>>();

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
    for (let i = 0; i < units.length; i += UPSERT_BATCH) {
      const points = units.slice(i, i + UPSERT_BATCH).map((u) => {
        const vector: Record<string, Schemas['SparseVector']> = {};
        for (const [field, tokens] of Object.entries(u.terms)) {
          const name = meta.vectors[field];
          if (!name) throw new Error(`field '${field}' has no sparse vector in ${collection}: the index's fields changed after it was created; drop and reload the index`);
          if (tokens.length) vector[name] = bm25Vector(tokens, meta.avgLength[field] ?? tokens.length);
        }
        return { id: pointId(index, u.uid, u.version, u.ord), vector, payload: { doc: u.uid, version: u.version, ord: u.ord, ...payloadFields(schema, u.fields) } };
      });
      await this.call('upserting sections', collection, () => this.client.upsert(collection, { wait: true, ordering: 'strong', points }));
    }
  }

  deleteOlder(index: string, refs: DocumentRef[]): Promise<void> {
    return this.deleteByDocs(index, refs, (v) => ({ key: 'version', range: { lt: v } }));
  }

  deleteVersions(index: string, refs: DocumentRef[]): Promise<void> {
    return this.deleteByDocs(index, refs, (v) => ({ key: 'version', match: { value: v } }));
  }

  async search(index: string, s: KeywordSearch): Promise<KeywordHit[]> {
    const filter = s.filter ? fqToQdrant(s.filter, s.schema, s.now) : null;
    const collection = this.collectionOf(index);
    const meta = await this.existing(index);
    if (!meta || s.terms.length === 0 || s.limit <= 0) return [];
    const fields = s.fields.filter((f) => f.boost !== 0 && meta.vectors[f.field]);
    if (fields.length === 0) return [];
    const counts = new Map<string, number>();
    for (const t of s.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    const terms = [...counts];
    for (let wanted = Math.max(MIN_CANDIDATES, s.limit * CANDIDATE_FACTOR); ; wanted *= CANDIDATE_FACTOR) {
      const limit = Math.min(wanted, MAX_CANDIDATES);
      const lists = await this.batch(collection, fields.map(({ field, boost }) => ({
        query: queryVector(s.terms, boost), using: meta.vectors[field], limit, with_payload: ['doc', 'version', 'ord'], ...(filter ? { filter } : {}),
      })));
      const candidates = new Map<string, SectionRef>();
      let bound = 0;
      lists.forEach((points) => {
        for (const p of points) {
          const payload = p.payload as { doc: string; version: number; ord: number };
          candidates.set(String(p.id), { uid: payload.doc, version: payload.version, ord: payload.ord });
        }
        if (points.length >= limit) bound += points[points.length - 1].score;
      });
      if (candidates.size === 0) return [];
      const ranked = await this.disMax(collection, meta, fields, terms, s.tie, candidates);
      const top = ranked.slice(0, s.limit);
      const exact = bound === 0 || (top.length === s.limit && top[top.length - 1].score >= bound);
      if (exact || limit >= MAX_CANDIDATES) return top;
    }
  }

  async dropIndex(index: string): Promise<void> {
    const collection = this.collectionOf(index);
    this.meta.delete(index);
    for (const key of this.fieldIndexes.keys()) if (key.startsWith(`${collection}\u0000`)) this.fieldIndexes.delete(key);
    await this.call('dropping the index', collection, () => this.client.deleteCollection(collection));
  }

  async close(): Promise<void> {
    // Nothing held: every call is one HTTP request.
  }

  /** Every (term, field) score of the candidates, combined per term by DisMax; the best section per document, best first. */
  private async disMax(collection: string, meta: CollectionMeta, fields: KeywordSearch['fields'], terms: [string, number][], tie: number, candidates: Map<string, SectionRef>): Promise<KeywordHit[]> {
    const ids = [...candidates.keys()];
    const searches = terms.flatMap(([term, count]) => fields.map(({ field, boost }) => ({
      query: queryVector([term], count * boost), using: meta.vectors[field], limit: ids.length, with_payload: false, filter: { must: [{ has_id: ids }] },
    })));
    const answers = await this.batch(collection, searches);
    // Per candidate, per term: the best field's score and the sum of all fields'.
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
    const scored = ids.flatMap((id) => {
      const b = best.get(id);
      const a = sum.get(id);
      if (!b || !a) return [];
      let score = 0;
      for (let t = 0; t < terms.length; t++) score += b[t] + tie * (a[t] - b[t]);
      return [{ id, score }];
    });
    const perDoc = new Map<string, KeywordHit>();
    for (const { id, score } of scored) {
      const ref = candidates.get(id);
      if (!ref) continue;
      const held = perDoc.get(ref.uid);
      if (!held || score > held.score || (score === held.score && ref.ord < held.ord)) perDoc.set(ref.uid, { ...ref, score });
    }
    return [...perDoc.values()].sort((x, y) => y.score - x.score || (x.uid < y.uid ? -1 : x.uid > y.uid ? 1 : 0));
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
    if (!meta) {
      meta = this.openOrCreate(index, schema, units);
      meta.catch(() => this.meta.delete(index));
      this.meta.set(index, meta);
    }
    return meta;
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
    return meta;
  }

  private async openOrCreate(index: string, schema: Record<string, FieldSpec>, units: KeywordUnit[]): Promise<CollectionMeta> {
    const collection = this.collectionOf(index);
    const found = await this.read(collection);
    if (found) return found;
    const meta = calibrate(schema, units);
    try {
      await this.client.createCollection(collection, {
        sparse_vectors: Object.fromEntries(Object.values(meta.vectors).map((name) => [name, { modifier: 'idf' as const }])),
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
      // A search of an index nothing was written to yet finds nothing.
      if (failure.status === 404 && what === 'searching') return undefined;
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

/** The heading pseudo-field of index-state.ts (a section's own heading, ranked as a field of its own). */
const HEADING_FIELD = '#heading';

/**
 * A sparse vector per text field and one for section headings; each field's average length from these
 * sections (the first written), or, for a field they lack, the average over the fields they have.
 */
function calibrate(schema: Record<string, FieldSpec>, units: KeywordUnit[]): CollectionMeta {
  const names = [...Object.entries(schema).filter(([, s]) => s.type === 'text' || s.type === 'html').map(([n]) => n), HEADING_FIELD];
  const vectors = Object.fromEntries(names.map((n) => [n, fieldKey(n).replace(/^f_/, 't_')]));
  const sums = new Map<string, { n: number; tokens: number }>();
  for (const u of units) {
    for (const [field, tokens] of Object.entries(u.terms)) {
      if (tokens.length === 0) continue;
      const s = sums.get(field) ?? { n: 0, tokens: 0 };
      s.n++;
      s.tokens += tokens.length;
      sums.set(field, s);
    }
  }
  const all = [...sums.values()].reduce((a, s) => ({ n: a.n + s.n, tokens: a.tokens + s.tokens }), { n: 0, tokens: 0 });
  const fallback = all.n ? all.tokens / all.n : 1;
  const avgLength = Object.fromEntries(names.map((n) => {
    const s = sums.get(n);
    return [n, s ? s.tokens / s.n : fallback];
  }));
  return { vectors, avgLength };
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
