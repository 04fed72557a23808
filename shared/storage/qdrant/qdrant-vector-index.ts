import { createHash } from 'node:crypto';
import { QdrantClient, QdrantClientTimeoutError, type Schemas } from '@qdrant/js-client-rest';
import type { DocumentRef } from '../ports/document-store.js';
import type { FilterValue, VectorFilter, VectorHit, VectorIndex, VectorPoint } from '../ports/vector-index.js';
import { VersionListing } from './version-listing.js';

export interface QdrantVectorIndexOptions {
  /** Qdrant's REST address, e.g. `http://qdrant:6333`. */
  url: string;
  /** Sent as the `api-key` header; never appears in an error message. */
  apiKey?: string;
  /** The one collection holding every index's points (the index uid is the tenant key). Default `quarry_sections`. */
  collection?: string;
  /** Per request. Default 30,000 ms. */
  timeoutMs?: number;
}

/** Points per upsert request. */
const UPSERT_BATCH = 256;
/** Documents per delete-by-filter request (one nested filter each). */
const DELETE_BATCH = 100;
/** Values of a new field looked at to choose its payload index type. */
const FIELD_SAMPLE = 64;

type Filter = Schemas['Filter'];
type Condition = Schemas['Condition'];

/**
 * The vector index of the scale-out mode: one Qdrant collection for every index, a point per section.
 * - Point id: a UUIDv5 of (index uid, document uid, version, ord), so a replayed job overwrites the same
 *   points. Payload `{index, doc, version, ord, f_<field>...}`: filterable fields are prefixed and
 *   escaped to plain keys (`f_` + name, other characters as `-XXXX`), apart from ours and safe in paths.
 * - The collection is created on the first upsert (Cosine, the first point's size) with payload indexes
 *   `index` (keyword, is_tenant), `doc` (keyword) and `version` (integer); a filterable field gets its
 *   index (keyword, integer, float or bool, after its first values) the first time this process writes
 *   it. Creating an existing index is harmless, so each process does it once per field.
 * - Writes use `wait=true` and `ordering=strong`: when a call returns, the points are searchable.
 * - versions(): Qdrant can order a scroll only by numeric or datetime payload, not by a keyword, so
 *   a listing scrolls the index's points (payload doc and version only), keeps the distinct pairs
 *   sorted by uid, and serves the following pages of that pass from it (see `versions`).
 */
export class QdrantVectorIndex implements VectorIndex {
  readonly external = true;
  readonly collection: string;
  private readonly client: QdrantClient;
  private ready: Promise<void> | null = null;
  private readonly fieldIndexes = new Map<string, Promise<void>>();
  private readonly listing = new VersionListing((index, request) =>
    this.call('listing versions', () => this.client.scroll(this.collection, { filter: { must: [tenant(index)] }, ...request })),
  );

  constructor(private readonly options: QdrantVectorIndexOptions) {
    this.collection = options.collection ?? 'quarry_sections';
    this.client = new QdrantClient({ url: options.url, apiKey: options.apiKey, timeout: options.timeoutMs ?? 30_000, checkCompatibility: false });
  }

  async upsert(index: string, points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    try {
      await this.upsertOnce(index, points);
    } catch (e) {
      // The collection was dropped behind our back (an operator, a test): create it again, once.
      if (!isNotFound(e)) throw e;
      this.ready = null;
      this.fieldIndexes.clear();
      await this.upsertOnce(index, points);
    }
  }

  async deleteOlder(index: string, refs: DocumentRef[]): Promise<void> {
    await this.deleteByDocs(index, refs, 'deleting older versions', (version) => ({ key: 'version', range: { lt: version } }));
  }

  async deleteVersions(index: string, refs: DocumentRef[]): Promise<void> {
    await this.deleteByDocs(index, refs, 'deleting versions', (version) => ({ key: 'version', match: { value: version } }));
  }

  async search(index: string, vector: Float32Array, limit: number, filter?: VectorFilter): Promise<VectorHit[]> {
    if (limit <= 0) return [];
    const conditions = toQdrantConditions(filter ?? []);
    if (conditions === null) return []; // a condition listing no value matches nothing
    const result = await this.call('searching', () =>
      this.client.query(this.collection, {
        query: Array.from(vector),
        filter: { must: [tenant(index), ...conditions] },
        limit,
        with_payload: ['doc', 'version', 'ord'],
      }),
    );
    if (!result) return [];
    return result.points.map((p) => {
      const payload = p.payload as { doc: string; version: number; ord: number };
      return { uid: payload.doc, version: payload.version, ord: payload.ord, score: p.score };
    });
  }

  /**
   * Whole documents in uid order after `afterUid`, until the page holds at least `limit` versions (a
   * document is never split, so a caller continuing after the last uid misses nothing). A call
   * without `afterUid` scrolls all of the index's points once (payload only, 1,000 a request) and
   * keeps the distinct pairs; calls continuing from the last page served are answered from that
   * listing for a minute, so a pass over N points costs one scroll, not one per page. Such a pass
   * sees the points as they were at its start, writes made during it included or not.
   */
  versions(index: string, afterUid: string | null, limit: number): Promise<DocumentRef[]> {
    return this.listing.page(index, afterUid, limit);
  }

  async dropIndex(index: string): Promise<void> {
    this.listing.forget(index);
    await this.call('dropping an index', () =>
      this.client.delete(this.collection, { wait: true, ordering: 'strong', filter: { must: [tenant(index)] } }),
    );
  }

  /** Points of the index (exact count). */
  async count(index: string): Promise<number> {
    const result = await this.call('counting', () => this.client.count(this.collection, { filter: { must: [tenant(index)] }, exact: true }));
    return result?.count ?? 0;
  }

  /** The server's version (GET /). */
  async serverVersion(): Promise<string> {
    try {
      return (await this.client.versionInfo()).version;
    } catch (e) {
      throw qdrantFailure('reading the server version', null, e, this.options.apiKey);
    }
  }

  async close(): Promise<void> {
    // Nothing held: every call is one HTTP request.
  }

  private async upsertOnce(index: string, points: VectorPoint[]): Promise<void> {
    await this.ensureCollection(points[0].vector.length);
    await this.ensureFieldIndexes(points);
    for (let i = 0; i < points.length; i += UPSERT_BATCH) {
      const batch = points.slice(i, i + UPSERT_BATCH).map((p) => ({
        id: pointId(index, p.uid, p.version, p.ord),
        vector: Array.from(p.vector),
        payload: { index, doc: p.uid, version: p.version, ord: p.ord, ...prefixed(p.fields) },
      }));
      await this.call('upserting points', () => this.client.upsert(this.collection, { wait: true, ordering: 'strong', points: batch }), false);
    }
  }

  private async deleteByDocs(index: string, refs: DocumentRef[], what: string, version: (v: number) => Condition): Promise<void> {
    for (let i = 0; i < refs.length; i += DELETE_BATCH) {
      const should: Condition[] = refs.slice(i, i + DELETE_BATCH).map((r) => ({ must: [{ key: 'doc', match: { value: r.uid } }, version(r.version)] }));
      const filter: Filter = { must: [tenant(index)], should };
      await this.call(what, () => this.client.delete(this.collection, { wait: true, ordering: 'strong', filter }));
    }
  }

  private ensureCollection(size: number): Promise<void> {
    this.ready ??= this.createCollection(size).catch((e: unknown) => {
      this.ready = null;
      throw e;
    });
    return this.ready;
  }

  private async createCollection(size: number): Promise<void> {
    const { exists } = (await this.call('checking the collection', () => this.client.collectionExists(this.collection), false))!;
    if (!exists) {
      try {
        await this.client.createCollection(this.collection, { vectors: { size, distance: 'Cosine' } });
      } catch (e) {
        // Another process may have created it meanwhile.
        const again = (await this.call('checking the collection', () => this.client.collectionExists(this.collection), false))!;
        if (!again.exists) throw qdrantFailure('creating the collection', this.collection, e, this.options.apiKey);
      }
    }
    await this.ensureFieldIndex('index', { type: 'keyword', is_tenant: true });
    await this.ensureFieldIndex('doc', 'keyword');
    await this.ensureFieldIndex('version', 'integer');
  }

  /** Indexes for the filterable fields first seen here (their first values decide the type). */
  private async ensureFieldIndexes(points: VectorPoint[]): Promise<void> {
    const seen = new Map<string, FilterValue[]>();
    for (const p of points) {
      for (const [name, value] of Object.entries(p.fields ?? {})) {
        const key = fieldKey(name);
        if (this.fieldIndexes.has(key)) continue;
        let values = seen.get(key);
        if (!values) seen.set(key, (values = []));
        if (values.length < FIELD_SAMPLE) values.push(...(Array.isArray(value) ? value : [value]));
      }
    }
    for (const [key, values] of seen) {
      const schema = indexFieldSchema(values);
      if (schema) await this.ensureFieldIndex(key, schema);
    }
  }

  private ensureFieldIndex(key: string, schema: Schemas['PayloadFieldSchema']): Promise<void> {
    let done = this.fieldIndexes.get(key);
    if (!done) {
      done = this.call(`creating the payload index ${key}`, () =>
        this.client.createPayloadIndex(this.collection, { wait: true, ordering: 'strong', field_name: key, field_schema: schema }),
      false).then(() => undefined);
      done.catch(() => this.fieldIndexes.delete(key));
      this.fieldIndexes.set(key, done);
    }
    return done;
  }

  /** Runs one request; a missing collection reads as empty (undefined) unless `missingIsEmpty` is false. */
  private async call<T>(what: string, request: () => Promise<T>, missingIsEmpty = true): Promise<T | undefined> {
    try {
      return await request();
    } catch (e) {
      const failure = qdrantFailure(what, this.collection, e, this.options.apiKey);
      if (missingIsEmpty && failure.status === 404) return undefined;
      throw failure;
    }
  }
}

export function createQdrantVectorIndex(options: QdrantVectorIndexOptions): QdrantVectorIndex {
  return new QdrantVectorIndex(options);
}

const tenant = (index: string): Condition => ({ key: 'index', match: { value: index } });

function prefixed(fields: VectorPoint['fields']): Record<string, FilterValue | FilterValue[]> {
  const out: Record<string, FilterValue | FilterValue[]> = {};
  for (const [name, value] of Object.entries(fields ?? {})) out[fieldKey(name)] = value;
  return out;
}

/** A failed request to Qdrant: what was being done, and Qdrant's answer (never the api key). */
export class QdrantRequestError extends Error {
  constructor(
    message: string,
    /** HTTP status of Qdrant's answer; null when none came (refused, timed out). */
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'QdrantRequestError';
  }
}

/** Qdrant answers 404 for a collection that does not exist. */
export const isNotFound = (e: unknown) => e instanceof QdrantRequestError && e.status === 404;

export function qdrantFailure(what: string, collection: string | null, e: unknown, apiKey: string | undefined): QdrantRequestError {
  if (e instanceof QdrantRequestError) return e;
  let status: number | null = null;
  let detail: string;
  const answer = e as { status?: unknown; data?: { status?: { error?: unknown } } | string; cause?: { code?: unknown } };
  if (typeof answer?.status === 'number') {
    status = answer.status;
    const body = typeof answer.data === 'string' ? answer.data : answer.data?.status?.error;
    detail = `HTTP ${status}${body ? `: ${String(body).slice(0, 500)}` : ''}`;
  } else if (e instanceof QdrantClientTimeoutError) {
    detail = 'no answer in time';
  } else if (e instanceof Error) {
    detail = e.message.split('\n')[0] + (typeof answer.cause?.code === 'string' ? ` (${answer.cause.code})` : '');
    const unexpected = /^Unexpected Response: (\d{3})/.exec(e.message);
    if (unexpected) status = Number(unexpected[1]);
  } else {
    detail = String(e);
  }
  if (apiKey) detail = detail.split(apiKey).join('***');
  const where = collection === null ? '' : ` in collection "${collection}"`;
  return new QdrantRequestError(`Qdrant: ${what}${where} failed: ${detail}`, status);
}

/** UUIDv5-style id of a section's point (SHA-1 of a fixed namespace and the identity): the same point on every replay. */
export function pointId(index: string, uid: string, version: number, ord: number): string {
  const hash = createHash('sha1').update(POINT_NAMESPACE).update(JSON.stringify([index, uid, version, ord])).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The bytes of the UUID 6b1d0f52-8c1e-4e36-9a55-0b7f3c2d9e41, Quarry's namespace for section points. */
const POINT_NAMESPACE = Buffer.from('6b1d0f528c1e4e369a550b7f3c2d9e41', 'hex');

/**
 * Payload key of a filterable field: `f_` and the name, characters other than ASCII letters, digits
 * and `_` written as `-` and four hex digits, so no name can be read as a path (`a.b`, `a[]`) or
 * collide with our own keys or another escaped name.
 */
export function fieldKey(name: string): string {
  return 'f_' + name.replace(/[^A-Za-z0-9_]/g, (c) => '-' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** The payload index for a field's values: keyword, bool, integer or float; none when the types are mixed. */
function indexFieldSchema(values: FilterValue[]): Schemas['PayloadSchemaType'] | null {
  if (values.length === 0) return null;
  if (values.every((v) => typeof v === 'string')) return 'keyword';
  if (values.every((v) => typeof v === 'boolean')) return 'bool';
  if (values.every((v) => typeof v === 'number')) return values.every((v) => Number.isInteger(v)) ? 'integer' : 'float';
  return null;
}

/**
 * The filter's conditions in Qdrant's terms (null when one lists no value, so nothing can match).
 * Qdrant's `match.any` takes strings or integers only: booleans match by value, other numbers by a
 * range of one point; values of several kinds become a nested `should`.
 */
function toQdrantConditions(filter: VectorFilter): Condition[] | null {
  const out: Condition[] = [];
  for (const { field, anyOf } of filter) {
    const key = fieldKey(field);
    const values = [...new Set(anyOf)];
    const strings = values.filter((v): v is string => typeof v === 'string');
    const integers = values.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v));
    const alternatives: Condition[] = [];
    if (strings.length) alternatives.push({ key, match: { any: strings } });
    if (integers.length) alternatives.push({ key, match: { any: integers } });
    for (const v of values) {
      if (typeof v === 'boolean') alternatives.push({ key, match: { value: v } });
      else if (typeof v === 'number' && Number.isFinite(v) && !Number.isSafeInteger(v)) alternatives.push({ key, range: { gte: v, lte: v } });
    }
    if (alternatives.length === 0) return null;
    out.push(alternatives.length === 1 ? alternatives[0] : { should: alternatives });
  }
  return out;
}
