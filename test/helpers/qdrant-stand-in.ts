import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type FuncKeywordDefinition, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

/**
 * A stand-in for Qdrant 1.19 in tests: a subset of its REST API over points held in memory. Collections
 * of Cosine dense vectors (one unnamed, or named) and sparse vectors (with or without the IDF modifier);
 * exact search by query and batch query, prefetch with rescoring or Reciprocal Rank Fusion; the filter
 * conditions listed at `matches`; scroll by point id, count, delete.
 * Every request (path, query, body) and every answer is validated against Qdrant's own OpenAPI
 * document with unknown properties rejected; a failure answers 400 (a bad answer: 500) and is kept
 * in `violations`, which tests expect to stay empty. Part 1: the strict validator. Part 2: the server.
 */

const OPENAPI = fileURLToPath(new URL('../../../shared/data/qdrant/openapi-v1.19.json', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = { [k: string]: Json };

export interface Violation {
  method: string;
  url: string;
  operation: string | null;
  kind: 'route' | 'auth' | 'query' | 'body' | 'response' | 'unsupported';
  errors: string[];
}

// ---------------------------------------------------------------- Part 1: the validator

/**
 * Rewrites OpenAPI 3.0 into what Ajv checks: `nullable` into a null type, refs into `definitions`,
 * and every object schema that lists `properties` without saying `additionalProperties` closed.
 * Composition: an object split across `allOf` branches (or a `properties` schema with `anyOf`/`oneOf`
 * branches that add properties) is closed once, at the parent, with the union of the names; its
 * branches stay open (a $ref branch points to an open copy of the component), else every branch
 * would refuse the other branches' properties. Plain `anyOf`/`oneOf` alternatives are closed each.
 */
export function strictSchemas(components: Record<string, Json>): { definitions: Record<string, Schema>; strict: (schema: Json) => Json } {
  const pristine = Object.fromEntries(Object.entries(components).map(([k, v]) => [k, openapiToJsonSchema(v)])) as Record<string, Schema>;
  const refName = (ref: string) => ref.replace('#/definitions/', '');
  const names = (s: Json, seen = new Set<string>()): string[] => {
    if (!isObject(s)) return [];
    if (typeof s.$ref === 'string') {
      const ref = refName(s.$ref);
      return seen.has(ref) ? [] : (seen.add(ref), names(pristine[ref], seen));
    }
    const own = isObject(s.properties) ? Object.keys(s.properties) : [];
    const nested = (['allOf', 'anyOf', 'oneOf'] as const).flatMap((k) => (Array.isArray(s[k]) ? (s[k] as Json[]).flatMap((b) => names(b, seen)) : []));
    return [...own, ...nested];
  };
  const openBranches = (branches: Json[]) =>
    branches.map((b) => (isObject(b) && typeof b.$ref === 'string' ? { $ref: `#/definitions/${refName(b.$ref)}__open` } : close(b, false)));
  function close(s: Json, closeHere: boolean): Json {
    if (Array.isArray(s)) return s.map((x) => close(x, true));
    if (!isObject(s)) return s;
    if (!closeHere && typeof s.$ref === 'string') return { ...s, $ref: `#/definitions/${refName(s.$ref)}__open` };
    const composed = Array.isArray(s.allOf) ? 'allOf' : isObject(s.properties) ? (['anyOf', 'oneOf'] as const).find((k) => Array.isArray(s[k])) ?? null : null;
    const branchNames = composed ? names({ [composed]: s[composed] }) : [];
    for (const [k, v] of Object.entries(s)) {
      if (k === composed || (!closeHere && (k === 'anyOf' || k === 'oneOf' || k === 'allOf'))) {
        // Branches stay open at their top (a $ref branch: the component's open copy); what they nest is closed.
        s[k] = openBranches(v as Json[]);
      } else if (k === 'properties' && isObject(v)) {
        for (const [p, ps] of Object.entries(v)) v[p] = close(ps, true);
      } else if (['items', 'additionalProperties', 'not', 'anyOf', 'oneOf', 'allOf'].includes(k)) {
        s[k] = close(v, true);
      }
    }
    if (composed && closeHere) {
      const props = (isObject(s.properties) ? s.properties : (s.properties = {})) as Schema;
      for (const n of branchNames) props[n] ??= {};
    }
    if (closeHere && isObject(s.properties) && !('additionalProperties' in s)) s.additionalProperties = false;
    return s;
  }
  const definitions: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(pristine)) {
    definitions[name] = close(structuredClone(schema), true) as Schema;
    definitions[`${name}__open`] = close(structuredClone(schema), false) as Schema;
  }
  return { definitions, strict: (schema) => close(openapiToJsonSchema(schema), true) };
}

/** `nullable` (OpenAPI 3.0) to JSON Schema types; refs from components to definitions; `example`s dropped. */
function openapiToJsonSchema(s: Json): Json {
  if (Array.isArray(s)) return s.map(openapiToJsonSchema);
  if (!isObject(s)) return s;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'example' || k === 'deprecated' || k === 'nullable') continue;
    // Ajv checks `uniqueItems` over items of unknown type pairwise: 10,000 ids in a has_id took 0.3 s.
    if (k === 'uniqueItems') {
      out[UNIQUE] = v;
      continue;
    }
    if (k === '$ref' && typeof v === 'string') out[k] = v.replace('#/components/schemas/', '#/definitions/');
    else if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, openapiToJsonSchema(ps)]));
    else out[k] = openapiToJsonSchema(v);
  }
  if (s.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  const { description, default: _default, ...rest } = out;
  return Object.keys(rest).length === 0 ? { type: 'null' } : { anyOf: [rest, { type: 'null' }] };
}

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `uniqueItems` with the same meaning (no two items deeply equal), checked in one pass over the items' canonical JSON. */
const UNIQUE = 'x-unique-items';

function uniqueItemsKeyword(): FuncKeywordDefinition {
  const canonical = (v: unknown): string =>
    Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
      : isObject(v) ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
        : JSON.stringify(v);
  const validate: SchemaValidateFunction = (unique: boolean, items: unknown[]) => {
    if (!unique) return true;
    const seen = new Map<string, number>();
    for (const [i, item] of items.entries()) {
      const key = canonical(item);
      const first = seen.get(key);
      if (first !== undefined) {
        validate.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${first} and ${i} are identical)`, params: { i: first, j: i } }];
        return false;
      }
      seen.set(key, i);
    }
    return true;
  };
  return { keyword: UNIQUE, type: 'array', schemaType: 'boolean', errors: true, validate };
}

/** One operation of the API description: its method, path template and specification. */
export interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  pathParams: string[];
  spec: Schema;
}

/** A compiled schema: null when the value passes, else what is wrong with it. */
type Check = (value: unknown) => string | null;

interface CompiledOperation {
  params: Map<string, { in: string; required: boolean; check: Check }>;
  body: Check | null;
  responses: Map<string, Check | null>;
}

/** Qdrant's API description, compiled strictly, one operation at a time on first use. */
export class OpenApiValidator {
  /** Stops at the first error: the verdict on every request and answer (big upserts validate in a fraction of the time). */
  private readonly fast: Ajv;
  /** Collects every error: compiled and run only for what `fast` refused, to say all that is wrong. */
  private readonly detailed: Ajv;
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, CompiledOperation>();
  private readonly strict: (schema: Json) => Json;

  constructor(doc: Schema) {
    const { definitions, strict } = strictSchemas((doc.components as Schema).schemas as Record<string, Json>);
    const ajv = (allErrors: boolean) => {
      const a = new Ajv({ strict: true, strictTypes: false, strictRequired: false, allowUnionTypes: true, allErrors });
      formats.default(a);
      a.addKeyword(uniqueItemsKeyword());
      const uint = (max: number) => ({ type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= max });
      a.addFormat('uint', uint(2 ** 64)).addFormat('uint64', uint(2 ** 64)).addFormat('uint32', uint(2 ** 32 - 1)).addFormat('uint8', uint(255));
      a.addFormat('partial-date-time', /^\d{2}:\d{2}:\d{2}(\.\d+)?$/);
      return a.addSchema({ $id: 'qdrant', definitions });
    };
    this.fast = ajv(false);
    this.detailed = ajv(true);
    this.strict = strict;
    for (const [template, item] of Object.entries(doc.paths as Record<string, Schema>)) {
      for (const [method, spec] of Object.entries(item)) {
        if (!isObject(spec) || typeof spec.operationId !== 'string') continue;
        const pathParams: string[] = [];
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, name: string) => (pathParams.push(name), '([^/]+)'));
        this.operations.push({ id: spec.operationId, method: method.toUpperCase(), template, pattern: new RegExp(`^${source}$`), pathParams, spec });
      }
    }
    // A literal segment beats a parameter (`/collections/aliases` before `/collections/{collection_name}`).
    this.operations.sort((a, b) => a.pathParams.length - b.pathParams.length);
  }

  /** The operation for a method and path, with its path parameters. */
  route(method: string, path: string): { operation: Operation; params: Record<string, string> } | null {
    for (const operation of this.operations) {
      const m = operation.method === method ? operation.pattern.exec(path) : null;
      if (m) return { operation, params: Object.fromEntries(operation.pathParams.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
    }
    return null;
  }

  /** Problems with the path and query parameters: unknown or repeated names, missing required ones, invalid values. */
  checkParams(operation: Operation, path: Record<string, string>, query: URLSearchParams): string[] {
    const { params } = this.compile(operation);
    const errors: string[] = [];
    const seen = new Set<string>();
    for (const [name, raw] of query) {
      const p = params.get(name);
      if (!p || p.in !== 'query') errors.push(`unknown query parameter "${name}"`);
      else if (seen.has(name)) errors.push(`query parameter "${name}" given twice`);
      else {
        const problem = p.check(raw) && p.check(queryValue(raw));
        if (problem) errors.push(`query parameter ${name}=${raw}: ${problem}`);
      }
      seen.add(name);
    }
    for (const [name, p] of params) {
      if (p.in === 'query' && p.required && !query.has(name)) errors.push(`missing query parameter "${name}"`);
      const problem = p.in === 'path' ? p.check(path[name]) : null;
      if (problem) errors.push(`path parameter ${name}: ${problem}`);
    }
    return errors;
  }

  /** Problems with a request body (undefined: none sent). */
  checkBody(operation: Operation, body: unknown): string[] {
    const check = this.compile(operation).body;
    if (!check) return body === undefined ? [] : ['this operation takes no request body'];
    if (body === undefined) return []; // Qdrant's request bodies are all optional here
    const problem = check(body);
    return problem ? [problem] : [];
  }

  /** Problems with an answer: an undocumented status, or a body its schema refuses. */
  checkResponse(operation: Operation, status: number, body: unknown): string[] {
    const { responses } = this.compile(operation);
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses.has(k));
    if (!key) return [`status ${status} is not documented for ${operation.id}`];
    const problem = responses.get(key)?.(body);
    return problem ? [problem] : [];
  }

  private compile(operation: Operation): CompiledOperation {
    const done = this.compiled.get(operation.id);
    if (done) return done;
    const schemaOf = (s: Json): Check => {
      const schema = withRootRefs(this.strict(s)) as Schema;
      const fast = this.fast.compile(schema);
      let detailed: ValidateFunction | null = null;
      return (value) => {
        if (fast(value)) return null;
        detailed ??= this.detailed.compile(schema);
        detailed(value);
        return describe(detailed.errors ?? fast.errors);
      };
    };
    const params = new Map<string, { in: string; required: boolean; check: Check }>();
    for (const p of (operation.spec.parameters ?? []) as Schema[]) {
      params.set(p.name as string, { in: p.in as string, required: p.required === true, check: schemaOf(p.schema) });
    }
    const json = (c: Json) => (isObject(c) && isObject(c.content) && isObject(c.content['application/json']) ? (c.content['application/json'].schema as Json) : null);
    const bodySchema = operation.spec.requestBody ? json(operation.spec.requestBody) : null;
    const responses = new Map<string, Check | null>();
    for (const [status, r] of Object.entries(operation.spec.responses as Schema)) {
      const s = json(r);
      responses.set(status, s ? schemaOf(s) : null);
    }
    const compiled = { params, body: bodySchema ? schemaOf(bodySchema) : null, responses };
    this.compiled.set(operation.id, compiled);
    return compiled;
  }
}

/** A schema inside an operation refers to the compiled components. */
function withRootRefs(s: Json): Json {
  if (Array.isArray(s)) return s.map(withRootRefs);
  if (!isObject(s)) return s;
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `qdrant${v}` : withRootRefs(v)]));
}

/** A query value as Qdrant's parser reads it: booleans and numbers, else the string. */
function queryValue(raw: string): unknown {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  // The deepest first: an anyOf's branches each fail at its top, the value's real problem is further down.
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  return [...(errors ?? [])]
    .sort((a, b) => depth(b) - depth(a))
    .slice(0, 12)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.keyword === 'additionalProperties' ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"` : ''}`)
    .join('; ');
}

let shared: OpenApiValidator | null = null;

/** The validator for Qdrant 1.19's document (compiled once per test process). */
export function qdrantValidator(): OpenApiValidator {
  if (!existsSync(OPENAPI)) throw new Error(`Qdrant's API description is missing: ${OPENAPI}`);
  return (shared ??= new OpenApiValidator(JSON.parse(readFileSync(OPENAPI, 'utf8')) as Schema));
}

// ---------------------------------------------------------------- Part 2: the server

/** A sparse vector as stored: index → value. */
interface Sparse {
  /** Ascending. Typed arrays, not a Map: a few hundred thousand points hold tens of millions of values, and
   * a Map boxes each one, which left the garbage collector seconds of marking per pass. */
  idx: Uint32Array;
  val: Float64Array;
}

function sparseOf(indices: number[], values: number[]): Sparse {
  const order = indices.map((_, k) => k).sort((a, b) => indices[a] - indices[b]);
  return { idx: Uint32Array.from(order, (k) => indices[k]), val: Float64Array.from(order, (k) => values[k]) };
}

/** The value at index `i`, 0 where the vector has none. */
function valueAt(s: Sparse, i: number): number {
  let lo = 0;
  let hi = s.idx.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = s.idx[mid];
    if (at === i) return s.val[mid];
    if (at < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

interface StoredPoint {
  id: string | number;
  /** idKey(id), computed once: ties in every sort compare it. */
  key: string;
  /** Dense vectors by name ('' is the unnamed one), normalised as Qdrant stores Cosine vectors. */
  vectors: Map<string, number[]>;
  /** Sparse vectors by name. A point may lack any named vector, dense or sparse. */
  sparse: Map<string, Sparse>;
  payload: Record<string, unknown>;
  version: number;
  /** Its place in the collection's `byOrd`, given when stored: postings hold it instead of the point. */
  ord?: number;
}

interface Collection {
  /** The unnamed dense vector's size; null when the dense vectors are named (or there are none). */
  size: number | null;
  /** Dense vectors by name ('' for the unnamed one) with their sizes, all Cosine. */
  dense: Map<string, number>;
  /** Sparse vectors by name, with their modifier. */
  sparse: Map<string, { modifier: 'idf' | 'none' }>;
  points: Map<string, StoredPoint>;
  payloadSchema: Map<string, unknown>;
  /** The `metadata` given at creation (and merged by update_collection), shown again by get_collection. */
  metadata: Json;
  /** Sparse postings by vector name, kept up to date by every write (see storePoint, dropPoint). */
  sparseIndex: Map<string, SparsePostings>;
  /** Stored points by `ord`; a removed point leaves a hole, which the postings skip until they are compacted. */
  byOrd: (StoredPoint | undefined)[];
  scratch?: SparseScratch;
  /** Points by payload value, per key a filter asked for: built on first use, then kept up to date. */
  payloadIndex?: Map<string, Map<string, Set<StoredPoint>>>;
}

/** Per sparse vector name: the points that have it (N of the IDF), and per index the points with a non-zero value there. */
interface SparsePostings {
  withVector: number;
  /** Index → the points with a non-zero value there. */
  postings: Map<number, Posting>;
}

/**
 * The points (by `ord`) and their values at one index, in typed arrays: at 400k points a posting per
 * (point, index) as objects and maps left the garbage collector a third of the stand-in's time. A removed
 * point's entry stays until removed ones outnumber the `live` (compact).
 */
interface Posting {
  ords: Int32Array;
  values: Float64Array;
  length: number;
  live: number;
}

/**
 * The points a filter can match, from the one shape that matters for speed: `should` alternatives that
 * each require `key: value` on the same key (the adapters delete documents' versions so). Those points
 * come from a map of the key's values, rebuilt after writes; any other filter is checked on every point.
 * The caller still checks the whole filter on each candidate.
 */
function filterCandidates(c: Collection, filter: Schema | undefined): Iterable<StoredPoint> {
  const should = filter && Array.isArray(filter.should) ? (filter.should as Schema[]) : null;
  const keyed = should?.map((clause) => (Array.isArray(clause.must) ? (clause.must as Schema[]) : []).find((m) => typeof m.key === 'string' && isObject(m.match) && 'value' in m.match));
  if (!should || should.length === 0 || !keyed || keyed.some((k) => !k) || new Set(keyed.map((k) => k!.key)).size !== 1) return c.points.values();
  const byValue = payloadValues(c, keyed[0]!.key as string);
  return new Set(keyed.flatMap((k) => [...(byValue.get(JSON.stringify((k!.match as Schema).value)) ?? [])]));
}

/** Points by the value of a top-level payload key (JSON of each value; arrays by their elements), kept up to date by writes. */
function payloadValues(c: Collection, key: string): Map<string, Set<StoredPoint>> {
  c.payloadIndex ??= new Map();
  let byValue = c.payloadIndex.get(key);
  if (!byValue) {
    c.payloadIndex.set(key, (byValue = new Map()));
    for (const p of c.points.values()) indexPayload(byValue, key, p, true);
  }
  return byValue;
}

function indexPayload(byValue: Map<string, Set<StoredPoint>>, key: string, p: StoredPoint, add: boolean) {
  const raw = p.payload[key];
  for (const v of raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw]) {
    const k = JSON.stringify(v);
    let set = byValue.get(k);
    if (add) {
      if (!set) byValue.set(k, (set = new Set()));
      set.add(p);
    } else if (set) {
      set.delete(p);
      if (set.size === 0) byValue.delete(k);
    }
  }
}

/**
 * The sparse postings of a collection, kept up to date by writes (built by each write, so the first
 * query after many writes does not build them): a sparse query visits the points that share an index
 * with it, as Qdrant's inverted index does, instead of every point.
 */
function sparsePostings(c: Collection, name: string): SparsePostings {
  return c.sparseIndex.get(name) ?? { withVector: 0, postings: new Map() };
}

/** Adds `p` (stored under its `ord`) to the postings, or takes it out (after its `byOrd` place was emptied). */
function indexSparse(c: Collection, p: StoredPoint, add: boolean) {
  for (const [n, vector] of p.sparse) {
    let entry = c.sparseIndex.get(n);
    if (!entry) c.sparseIndex.set(n, (entry = { withVector: 0, postings: new Map() }));
    if (vector.idx.length) entry.withVector += add ? 1 : -1;
    for (let k = 0; k < vector.idx.length; k++) {
      const value = vector.val[k];
      if (!value) continue;
      const i = vector.idx[k];
      let list = entry.postings.get(i);
      if (add) {
        if (!list) entry.postings.set(i, (list = { ords: new Int32Array(4), values: new Float64Array(4), length: 0, live: 0 }));
        if (list.length === list.ords.length) {
          list.ords = grow(list.ords, new Int32Array(list.length * 2));
          list.values = grow(list.values, new Float64Array(list.length * 2));
        }
        list.ords[list.length] = p.ord!;
        list.values[list.length++] = value;
        list.live++;
      } else if (list) {
        if (--list.live === 0) entry.postings.delete(i);
        else if (list.length - list.live > list.live) compact(c, list);
      }
    }
  }
}

function grow<T extends Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** Drops the entries of removed points, keeping the order of the others. */
function compact(c: Collection, list: Posting) {
  let kept = 0;
  for (let k = 0; k < list.length; k++) {
    if (!c.byOrd[list.ords[k]]) continue;
    list.ords[kept] = list.ords[k];
    list.values[kept++] = list.values[k];
  }
  list.length = kept;
}

/** Stores a point (replacing the one with its id) and keeps the built indexes in step. */
function storePoint(c: Collection, p: StoredPoint) {
  dropPoint(c, p.key);
  c.points.set(p.key, p);
  p.ord = c.byOrd.length;
  c.byOrd.push(p);
  indexSparse(c, p, true);
  for (const [k, byValue] of c.payloadIndex ?? []) indexPayload(byValue, k, p, true);
}

function dropPoint(c: Collection, key: string): boolean {
  const old = c.points.get(key);
  if (!old) return false;
  c.points.delete(key);
  c.byOrd[old.ord!] = undefined;
  indexSparse(c, old, false);
  for (const [k, byValue] of c.payloadIndex ?? []) indexPayload(byValue, k, old, false);
  return true;
}

/**
 * The points a `has_id` among a filter's `must` conditions allows (null: no such condition), so a search
 * restricted to a few ids visits those, as Qdrant's planner does, not every point of the postings.
 */
function hasIdPoints(c: Collection, filter: Schema | undefined): StoredPoint[] | null {
  const must = filter && (Array.isArray(filter.must) ? (filter.must as Schema[]) : isObject(filter.must) ? [filter.must as Schema] : []);
  const ids = must?.find((m) => Array.isArray(m.has_id))?.has_id as (string | number)[] | undefined;
  if (!ids) return null;
  const out: StoredPoint[] = [];
  for (const id of new Set(ids.map(idKey))) {
    const p = c.points.get(id);
    if (p) out.push(p);
  }
  return out;
}

export interface QdrantStandIn {
  url: string;
  /** Requests or answers that Qdrant's API description refuses, unknown routes, a wrong api key. */
  violations: Violation[];
  /** Operations served, in order, with their query strings. */
  calls: { operation: string; query: string }[];
  collections: Map<string, Collection>;
  /** Time spent answering requests so far (ms, from the body read to the answer sent): the stand-in's share of a caller's wait. */
  readonly busyMs: number;
  close(): Promise<void>;
}

/** Not the adapter's business, so the stand-in does not implement it (answers 501, counted as a violation). */
class Unsupported extends Error {}

class QdrantError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Handler = (c: { collections: Map<string, Collection>; name: string; body: Schema; nextVersion: () => number }) => Json;

const HANDLERS: Record<string, Handler> = {
  root: () => ({ title: 'qdrant - vector search engine', version: '1.19.0', commit: 'stand-in' }),
  collection_exists: ({ collections, name }) => ({ exists: collections.has(name) }),
  create_collection: ({ collections, name, body }) => {
    const dense = denseConfig(body.vectors);
    const sparse = sparseConfig(body.sparse_vectors);
    if (collections.has(name)) throw new QdrantError(409, `Wrong input: Collection \`${name}\` already exists!`);
    for (const n of sparse.keys()) if (dense.has(n)) throw new QdrantError(400, `Wrong input: Vector name \`${n}\` is used by both a dense and a sparse vector`);
    collections.set(name, { size: dense.get('') ?? null, dense, sparse, points: new Map(), payloadSchema: new Map(), metadata: body.metadata ?? null, sparseIndex: new Map(), byOrd: [] });
    return true;
  },
  delete_collection: ({ collections, name }) => collections.delete(name),
  // PATCH /collections/{name}: only `metadata`, merged key by key, a null value removing its key (UpdateCollection's description).
  update_collection: ({ collections, name, body }) => {
    const c = collection(collections, name);
    for (const k of Object.keys(body)) if (k !== 'metadata' && body[k] != null) throw new Unsupported(`update_collection ${k}`);
    if (isObject(body.metadata)) {
      const merged: Schema = { ...(isObject(c.metadata) ? c.metadata : {}) };
      for (const [k, v] of Object.entries(body.metadata)) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      c.metadata = merged;
    }
    return true;
  },
  get_collection: ({ collections, name }) => {
    const c = collection(collections, name);
    const named = Object.fromEntries([...c.dense].map(([n, size]) => [n, { size, distance: 'Cosine' }]));
    const payloadSchema = Object.fromEntries(
      [...c.payloadSchema].map(([key, schema]) => {
        let points = 0;
        for (const p of c.points.values()) if (p.payload[key] != null) points++;
        return [key, isObject(schema) ? { data_type: schema.type, params: schema, points } : { data_type: schema as string, points }];
      }),
    );
    return {
      status: 'green',
      optimizer_status: 'ok',
      // Exact search over one in-memory segment: nothing is in a vector index.
      segments_count: 1,
      points_count: c.points.size,
      indexed_vectors_count: 0,
      payload_schema: payloadSchema,
      config: {
        params: {
          vectors: c.size !== null ? named[''] : named,
          sparse_vectors: Object.fromEntries([...c.sparse].map(([n, { modifier }]) => [n, modifier === 'idf' ? { modifier } : {}])),
          shard_number: 1,
          replication_factor: 1,
          write_consistency_factor: 1,
        },
        // The stand-in has no HNSW graph and no optimizer; the API description requires these, so Qdrant's defaults.
        hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000 },
        optimizer_config: { default_segment_number: 0, flush_interval_sec: 5 },
        metadata: c.metadata,
      },
    } as Json;
  },
  create_field_index: ({ collections, name, body, nextVersion }) => {
    collection(collections, name).payloadSchema.set(body.field_name as string, body.field_schema);
    return { operation_id: nextVersion(), status: 'completed' };
  },
  upsert_points: ({ collections, name, body, nextVersion }) => {
    const c = collection(collections, name);
    if (!Array.isArray(body.points) || body.update_filter || body.update_mode || body.shard_key) throw new Unsupported('upsert of a points list only');
    const given = body.points as Schema[];
    // Qdrant checks a sparse vector's own shape while it reads the body (422), before any vector meets the collection (400).
    given.forEach((p, i) => {
      if (isObject(p.vector)) for (const v of Object.values(p.vector)) if (isSparseInput(v)) checkSparse(v, `points[${i}].vector.?`);
    });
    // Every point is checked before any is stored: a refused batch leaves the collection as it was.
    const parsed = given.map((p) => pointVectors(c, p.vector));
    const version = nextVersion();
    for (const [i, p] of given.entries()) {
      storePoint(c, { id: p.id as string | number, key: idKey(p.id as string | number), ...parsed[i], payload: (p.payload ?? {}) as Record<string, unknown>, version });
    }
    return { operation_id: version, status: 'completed' };
  },
  delete_points: ({ collections, name, body, nextVersion }) => {
    const c = collection(collections, name);
    if (body.shard_key) throw new Unsupported('shard keys');
    const filter = body.filter as Schema | undefined;
    const ids = Array.isArray(body.points) ? new Set(body.points.map((id) => idKey(id as string | number))) : null;
    let deleted = 0;
    for (const p of ids ? [...c.points.values()] : filterCandidates(c, filter)) {
      if (ids ? ids.has(p.key) : matches(filter, p)) deleted += dropPoint(c, p.key) ? 1 : 0;
    }
    return { operation_id: nextVersion(), status: 'completed' };
  },
  query_points: ({ collections, name, body }) => ({ points: queryPoints(collection(collections, name), body) }),
  query_batch_points: ({ collections, name, body }) => {
    const c = collection(collections, name);
    return (body.searches as Schema[]).map((search) => ({ points: queryPoints(c, search) }));
  },
  scroll_points: ({ collections, name, body }) => {
    const c = collection(collections, name);
    if (body.order_by != null || body.shard_key != null) throw new Unsupported('scroll order_by, shard keys');
    if (body.with_vector) throw new Unsupported('with_vector');
    const from = body.offset == null ? null : idKey(body.offset as string | number);
    const limit = (body.limit as number | undefined) ?? 10;
    // The `limit + 1` first points in id order (the last one is where the next page starts), picked in one
    // pass: a reconciler listing 200,000 points pages through them 1,000 at a time.
    const points = [...c.points.values()];
    const first = search(
      { count: points.length, point: (k) => points[k], score: (k) => (from === null || points[k].key >= from ? 0 : null) },
      (p) => matches(body.filter as Schema | undefined, p), null, limit + 1,
    );
    const page = first.slice(0, limit).map(({ p }) => ({ id: p.id, ...withPayload(p, body.with_payload, true) }));
    return { points: page, next_page_offset: first.length > limit ? first[limit].p.id : null } as Json;
  },
  count_points: ({ collections, name, body }) => {
    if (body.shard_key) throw new Unsupported('shard keys');
    return { count: [...collection(collections, name).points.values()].filter((p) => matches(body.filter as Schema | undefined, p)).length };
  },
};

function collection(collections: Map<string, Collection>, name: string): Collection {
  const c = collections.get(name);
  if (!c) throw new QdrantError(404, `Not found: Collection \`${name}\` doesn't exist!`);
  return c;
}

/** `vectors` of a new collection: one unnamed `{size, distance}`, or named ones; Cosine only, no multivectors. */
function denseConfig(vectors: Json | undefined): Map<string, number> {
  const dense = new Map<string, number>();
  if (vectors == null) return dense;
  const named = isObject(vectors) && typeof vectors.size === 'number' ? { '': vectors } : (vectors as Schema);
  for (const [n, params] of Object.entries(named)) {
    if (!isObject(params) || params.distance !== 'Cosine' || params.multivector_config != null) throw new Unsupported('dense vectors other than single Cosine ones');
    dense.set(n, params.size as number);
  }
  return dense;
}

function sparseConfig(sparse: Json | undefined): Collection['sparse'] {
  return new Map(Object.entries((sparse ?? {}) as Schema).map(([n, params]) => [n, { modifier: (params as Schema).modifier === 'idf' ? 'idf' : 'none' }]));
}

const isNumbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number');
const isSparseInput = (v: unknown): v is { indices: number[]; values: number[] } => isObject(v) && Array.isArray(v.indices) && Array.isArray(v.values);

/** Qdrant's validation of a sparse vector (`SparseVector` in its API description says as much), with its wording. */
function checkSparse(v: { indices: number[]; values: number[] }, path: string): void {
  const invalid = (field: string, rule: string) => new QdrantError(422, `Validation error in JSON body: [${path}.${field}: Validation error: ${rule} [{}]]`);
  if (new Set(v.indices).size !== v.indices.length) throw invalid('indices', 'must be unique');
  if (v.values.length !== v.indices.length) throw invalid('values', 'must be the same length as indices');
}

const noSuchVector = (n: string) => new QdrantError(400, `Wrong input: Not existing vector name error: ${n}`);
const wrongKind = () => new QdrantError(400, 'Wrong input: Conversion between sparse and regular vectors failed');
const wrongSize = (expected: number, got: number) => new QdrantError(400, `Wrong input: Vector dimension error: expected dim: ${expected}, got ${got}`);

/** A point's `vector` against the collection: a dense array is the unnamed vector, an object names its vectors. */
function pointVectors(c: Collection, vector: Json | undefined): Pick<StoredPoint, 'vectors' | 'sparse'> {
  const out = { vectors: new Map<string, number[]>(), sparse: new Map<string, Sparse>() };
  const named = isNumbers(vector) ? { '': vector } : isObject(vector) && !('model' in vector) ? vector : null;
  if (!named) throw new Unsupported('multivectors and inference objects');
  for (const [n, v] of Object.entries(named)) {
    if (isNumbers(v)) {
      if (c.sparse.has(n)) throw wrongKind();
      const size = c.dense.get(n);
      if (size === undefined) throw noSuchVector(n);
      if (v.length !== size) throw wrongSize(size, v.length);
      out.vectors.set(n, unit(v));
    } else if (isSparseInput(v)) {
      if (c.dense.has(n)) throw wrongKind();
      if (!c.sparse.has(n)) throw noSuchVector(n);
      out.sparse.set(n, sparseOf(v.indices, v.values));
    } else {
      throw new Unsupported('multivectors and inference objects');
    }
  }
  return out;
}

/** Stored as Qdrant stores Cosine vectors: normalised, so a dot product is the cosine. */
function unit(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/** UUIDs compare as Qdrant's u128 (lowercase hex, fixed layout: string order); integers before UUIDs. */
const idKey = (id: string | number) => (typeof id === 'number' ? `n:${String(id).padStart(20, '0')}` : `u:${id.toLowerCase()}`);

interface Hit {
  p: StoredPoint;
  score: number;
}

const byScore = (a: Hit, b: Hit) => b.score - a.score || (a.p.key < b.p.key ? -1 : a.p.key > b.p.key ? 1 : 0);

/**
 * A parsed `query`: a scorer (null for a point the search would not reach: it lacks the vector, or
 * shares no index with a sparse query), or Reciprocal Rank Fusion of the prefetches.
 */
type Scoring =
  | { kind: 'vector'; score: (p: StoredPoint) => number | null; scored?: () => Visit }
  | { kind: 'fusion'; k: number; weights: number[] | null };

/** The points a search visits and their scores, by position (no iterator step or tuple per point). */
interface Visit {
  count: number;
  point: (k: number) => StoredPoint;
  score: (k: number) => number | null;
}

/**
 * The points a search visits with their scores: those a has_id allows, or every point a sparse query's
 * postings reach (scored as the postings are walked), or else every point.
 */
function scoredPoints(c: Collection, scoring: Extract<Scoring, { kind: 'vector' }>, narrowed: StoredPoint[] | null): Visit {
  if (!narrowed && scoring.scored) return scoring.scored();
  const points = narrowed ?? [...c.points.values()];
  return { count: points.length, point: (k) => points[k], score: (k) => scoring.score(points[k]) };
}

/**
 * Sums per point for a sparse query, kept by the collection and cleared where the last query wrote: a
 * query reaching 100k of 400k points neither allocates nor zeroes 400k entries. A visit is used up
 * before the next query on the collection starts (requests are answered one at a time).
 */
interface SparseScratch {
  totals: Float64Array;
  reached: Uint8Array;
  touched: Int32Array;
  count: number;
}

function sparseScratch(c: Collection): SparseScratch {
  const size = c.byOrd.length;
  let s = c.scratch;
  if (!s || s.totals.length < size) {
    const room = Math.max(1024, size * 2);
    s = c.scratch = { totals: new Float64Array(room), reached: new Uint8Array(room), touched: new Int32Array(room), count: 0 };
  }
  for (let k = 0; k < s.count; k++) {
    s.totals[s.touched[k]] = 0;
    s.reached[s.touched[k]] = 0;
  }
  s.count = 0;
  return s;
}

/**
 * Qdrant's RRF constant when the request names none. Its API description leaves `Rrf.k` at
 * `default: null` and `Fusion` says only "with default parameters"; the value is `DEFAULT_RRF_K = 2`
 * in qdrant/qdrant lib/segment/src/common/reciprocal_rank_fusion.rs (and "Qdrant defaults to k=2" in
 * https://qdrant.tech/documentation/search-tuning/how-to-tune-hybrid-search/).
 */
const DEFAULT_RRF_K = 2;

/** One QueryRequest, as Qdrant plans it (lib/shard/src/query/planned_query.rs): prefetches first, then the query over their results. */
function queryPoints(c: Collection, body: Schema): Json {
  for (const k of ['params', 'lookup_from', 'shard_key']) if (body[k] != null) throw new Unsupported(`query ${k}`);
  if (body.with_vector) throw new Unsupported('with_vector');
  const prefetches = (body.prefetch == null ? [] : Array.isArray(body.prefetch) ? body.prefetch : [body.prefetch]) as Schema[];
  if (body.query == null) {
    if (prefetches.length) throw new QdrantError(400, "Bad request: A query is needed to merge the prefetches. Can't have prefetches without defining a query.");
    throw new Unsupported('a query without a vector (points by id)');
  }
  const scoring = parseQuery(c, body.query, body.using);
  const filter = body.filter as Schema | undefined;
  const threshold = body.score_threshold as number | null | undefined;
  const offset = (body.offset as number | undefined) ?? 0;
  const limit = (body.limit as number | undefined) ?? 10;
  const wanted = offset + limit;
  let hits: Hit[];
  if (!prefetches.length) {
    if (scoring.kind === 'fusion') throw new QdrantError(400, 'Bad request: cannot apply Fusion without prefetches');
    hits = search(scoredPoints(c, scoring, hasIdPoints(c, filter)), (p) => matches(filter, p), threshold, wanted);
  } else {
    // Qdrant merges the outer filter into every prefetch's own, so a prefetch's limit counts only points that pass both.
    const lists = prefetches.map((pf) => prefetch(c, pf, filter));
    if (scoring.kind === 'fusion') {
      hits = rrf(lists, scoring.k, scoring.weights).filter((h) => threshold == null || h.score >= threshold);
    } else {
      const candidates = new Map(lists.flat().map((h) => [h.p.key, h.p]));
      hits = search(scoredPoints(c, scoring, [...candidates.values()]), () => true, threshold, wanted);
    }
  }
  return hits.slice(offset, offset + limit).map(({ p, score }) => ({ id: p.id, version: p.version, score, ...withPayload(p, body.with_payload, false) })) as Json;
}

function prefetch(c: Collection, pf: Schema, outerFilter: Schema | undefined): Hit[] {
  if (pf.prefetch != null) throw new Unsupported('nested prefetch');
  for (const k of ['params', 'lookup_from']) if (pf[k] != null) throw new Unsupported(`prefetch ${k}`);
  if (pf.query == null) throw new Unsupported('a prefetch without a query (points by id)');
  const scoring = parseQuery(c, pf.query, pf.using);
  if (scoring.kind === 'fusion') throw new QdrantError(400, 'Bad request: cannot apply Fusion without prefetches');
  const filter = pf.filter as Schema | undefined;
  const narrowed = hasIdPoints(c, filter) ?? hasIdPoints(c, outerFilter);
  return search(scoredPoints(c, scoring, narrowed), (p) => matches(outerFilter, p) && matches(filter, p), pf.score_threshold as number | null | undefined, (pf.limit as number | undefined) ?? 10);
}

/** Exact search: the `limit` best points that pass the filter and have the vector, best first. */
function search(visit: Visit, keep: (p: StoredPoint) => boolean, threshold: number | null | undefined, limit: number): Hit[] {
  // A heap of the best `limit` so far, the worst on top: a query reaching 20,000 points sorts 10, not 20,000.
  const heap: Hit[] = [];
  const worse = (i: number, j: number) => byScore(heap[i], heap[j]) > 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  for (let k = 0; k < visit.count; k++) {
    const s = visit.score(k);
    if (s === null) continue;
    const p = visit.point(k);
    if (!keep(p)) continue;
    // "Scores better than this threshold": Qdrant's Cosine and Dot keep score > threshold.
    if (threshold != null && s <= threshold) continue;
    const hit = { p, score: s };
    if (heap.length < limit) {
      heap.push(hit);
      for (let i = heap.length - 1; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (limit > 0 && byScore(hit, heap[0]) < 0) {
      heap[0] = hit;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        const w = r < heap.length && worse(r, l) ? r : l;
        if (w >= heap.length || !worse(w, i)) break;
        swap(i, w);
        i = w;
      }
    }
  }
  return heap.sort(byScore);
}

function parseQuery(c: Collection, query: Json, using: Json | undefined): Scoring {
  const name = (using as string | null | undefined) ?? '';
  if (isObject(query) && ('fusion' in query || 'rrf' in query)) {
    if (name !== '') throw new QdrantError(400, "Bad request: Fusion queries cannot be combined with the 'using' field.");
    if ('fusion' in query && query.fusion !== 'rrf') throw new Unsupported(`fusion ${String(query.fusion)}`);
    const params = ('rrf' in query ? query.rrf : {}) as Schema;
    return { kind: 'fusion', k: (params.k as number | null | undefined) ?? DEFAULT_RRF_K, weights: (params.weights as number[] | null | undefined) ?? null };
  }
  if (isObject(query) && 'nearest' in query && query.mmr != null) throw new Unsupported('mmr');
  const input = isObject(query) && 'nearest' in query ? query.nearest : query;
  if (isNumbers(input)) return { kind: 'vector', score: denseScorer(c, name, input) };
  if (isSparseInput(input)) return { kind: 'vector', ...sparseScorer(c, name, input) };
  throw new Unsupported('queries other than a dense or sparse vector (bare or `nearest`) or RRF fusion');
}

function denseScorer(c: Collection, name: string, v: number[]): (p: StoredPoint) => number | null {
  if (c.sparse.has(name)) throw wrongKind();
  const size = c.dense.get(name);
  if (size === undefined) throw noSuchVector(name);
  if (v.length !== size) throw wrongSize(size, v.length);
  const q = unit(v);
  return (p) => {
    const d = p.vectors.get(name);
    if (!d) return null;
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[i] * q[i];
    return s;
  };
}

/**
 * Sparse vectors score by dot product over the indices both have
 * (https://qdrant.tech/documentation/concepts/vectors/#sparse-vectors); with the `idf` modifier each
 * query value is first weighed by idf(i) = ln((N - n(i) + 0.5) / (n(i) + 0.5) + 1), n(i) the points
 * whose vector has a non-zero value at i (https://qdrant.tech/documentation/concepts/indexing/#idf-modifier).
 * N: the page says "documents in the collection"; Qdrant's code counts the vectors indexed under that
 * name (points without one are not in its statistics), which is what this does. The two differ only when
 * some points lack the vector; `npm run qdrant:contract` checks the case against a real Qdrant. Qdrant walks an inverted
 * index, so a point sharing no non-zero index with the query is never a result, not even at score 0.
 */
function sparseScorer(c: Collection, name: string, v: { indices: number[]; values: number[] }): { score: (p: StoredPoint) => number | null; scored: () => Visit } {
  checkSparse(v, 'query');
  if (c.dense.has(name)) throw wrongKind();
  const config = c.sparse.get(name);
  if (!config) throw noSuchVector(name);
  let weights = v.indices.map((i, k) => [i, v.values[k]] as const).filter(([, w]) => w !== 0);
  const { withVector, postings } = sparsePostings(c, name);
  if (config.modifier === 'idf') {
    weights = weights.map(([i, w]) => {
      const n = postings.get(i)?.live ?? 0;
      return [i, w * Math.log((withVector - n + 0.5) / (n + 0.5) + 1)] as const;
    });
  }
  // The same sums as `score`, term by term in the query's order, for every point the postings reach.
  const scored = (): Visit => {
    const s = sparseScratch(c);
    const { totals, reached, touched } = s;
    const { byOrd } = c;
    for (const [i, w] of weights) {
      const list = postings.get(i);
      if (!list) continue;
      const { ords, values, length } = list;
      for (let k = 0; k < length; k++) {
        const ord = ords[k];
        if (!byOrd[ord]) continue;
        if (!reached[ord]) {
          reached[ord] = 1;
          touched[s.count++] = ord;
        }
        totals[ord] += w * values[k];
      }
    }
    return { count: s.count, point: (k) => byOrd[touched[k]]!, score: (k) => totals[touched[k]] };
  };
  const score = (p: StoredPoint) => {
    const s = p.sparse.get(name);
    if (!s) return null;
    let total = 0;
    let shared = false;
    for (const [i, w] of weights) {
      const d = valueAt(s, i);
      if (d) [total, shared] = [total + w * d, true];
    }
    return shared ? total : null;
  };
  return { score, scored };
}

/**
 * Reciprocal Rank Fusion as Qdrant computes it (lib/segment/src/common/reciprocal_rank_fusion.rs; the
 * formula of https://qdrant.tech/documentation/concepts/hybrid-queries/): the point at 0-based position
 * `pos` of a prefetch with weight w earns 1 / ((pos + 1) / w + k - 1), which is 1 / (k + pos) at the
 * default weight 1; a point's score is the sum over the prefetches that found it.
 */
function rrf(lists: Hit[][], k: number, weights: number[] | null): Hit[] {
  if (weights && weights.length !== lists.length) {
    throw new QdrantError(400, `Wrong input: Number of weights in RRF should match number of pre-fetches: got ${weights.length}, expected ${lists.length}`);
  }
  const fused = new Map<string, Hit>();
  lists.forEach((list, l) => {
    const w = weights?.[l] ?? 1;
    list.forEach(({ p }, pos) => {
      const score = w <= 0 ? 0 : 1 / ((pos + 1) / w + k - 1);
      const hit = fused.get(p.key);
      if (hit) hit.score += score;
      else fused.set(p.key, { p, score });
    });
  });
  return [...fused.values()].sort(byScore);
}

function withPayload(p: StoredPoint, selector: Json | undefined, byDefault: boolean): { payload?: Record<string, unknown> } {
  const want = selector ?? byDefault;
  if (want === false) return {};
  if (want === true) return { payload: p.payload };
  const pick = (keys: string[], keep: boolean) => Object.fromEntries(Object.entries(p.payload).filter(([k]) => keys.includes(k) === keep));
  if (Array.isArray(want)) return { payload: pick(want as string[], true) };
  if (isObject(want) && Array.isArray(want.include)) return { payload: pick(want.include as string[], true) };
  if (isObject(want) && Array.isArray(want.exclude)) return { payload: pick(want.exclude as string[], false) };
  throw new Unsupported('payload selector');
}

/**
 * Qdrant's filter semantics for: must, should, must_not, nested filters, has_id, is_empty, is_null,
 * and on top-level payload keys match value/any/except and numeric or datetime ranges.
 */
function matches(filter: Schema | undefined | null, p: StoredPoint): boolean {
  if (!filter) return true;
  if (filter.min_should != null) throw new Unsupported('min_should');
  const list = (c: Json | undefined) => (c == null ? [] : Array.isArray(c) ? c : [c]) as Schema[];
  const should = list(filter.should);
  return (
    list(filter.must).every((c) => condition(c, p)) &&
    (should.length === 0 || should.some((c) => condition(c, p))) &&
    !list(filter.must_not).some((c) => condition(c, p))
  );
}

const idSets = new WeakMap<Json[], Set<string>>();

function condition(c: Schema, p: StoredPoint): boolean {
  if (Array.isArray(c.has_id)) {
    // A search checks every point against the list: a set per request keeps that linear, not quadratic.
    let ids = idSets.get(c.has_id);
    if (!ids) idSets.set(c.has_id, (ids = new Set(c.has_id.map((id) => idKey(id as string | number)))));
    return ids.has(p.key);
  }
  // Empty: missing, null or []; null: present and null (Qdrant's filtering documentation, "Is Empty" and "Is Null").
  if (isObject(c.is_empty)) {
    const raw = field(p, c.is_empty.key as string);
    return raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0);
  }
  if (isObject(c.is_null)) return field(p, c.is_null.key as string) === null;
  if (typeof c.key !== 'string') {
    if (['must', 'should', 'must_not', 'min_should'].some((k) => k in c)) return matches(c, p);
    throw new Unsupported(`condition ${Object.keys(c).join(',')}`);
  }
  for (const k of ['geo_bounding_box', 'geo_radius', 'geo_polygon', 'values_count', 'is_empty', 'is_null']) if (c[k] != null) throw new Unsupported(`condition ${k}`);
  const raw = field(p, c.key);
  const values = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw];
  const match = c.match as Schema | null | undefined;
  const range = c.range as Schema | null | undefined;
  if (match) {
    if ('value' in match) return values.some((v) => sameValue(v, match.value));
    if (Array.isArray(match.any)) return values.some((v) => (match.any as Json[]).some((x) => sameValue(v, x)));
    if (Array.isArray(match.except)) return values.some((v) => notAmong(v, match.except as Json[]));
    throw new Unsupported(`match ${Object.keys(match).join(',')}`);
  }
  if (range) {
    if (Object.values(range).some((b) => typeof b === 'string')) {
      const [lt, lte, gt, gte] = (['lt', 'lte', 'gt', 'gte'] as const).map((k) => (range[k] == null ? null : instant(range[k] as string)));
      return values.some((v) => {
        const t = typeof v === 'string' ? instant(v) : null;
        return t !== null && (lt === null || t < lt) && (lte === null || t <= lte) && (gt === null || t > gt) && (gte === null || t >= gte);
      });
    }
    const { lt, lte, gt, gte } = range as Record<string, number | null | undefined>;
    return values.some(
      (v) => typeof v === 'number' && (lt == null || v < lt) && (lte == null || v <= lte) && (gt == null || v > gt) && (gte == null || v >= gte),
    );
  }
  throw new Unsupported('a field condition without match or range');
}

function field(p: StoredPoint, key: string): unknown {
  if (key.includes('.') || key.includes('[')) throw new Unsupported('nested payload paths');
  return p.payload[key];
}

/** Keyword matches strings, integer matches integers, bool matches booleans: no conversions. */
function sameValue(stored: unknown, wanted: Json): boolean {
  if (typeof wanted === 'number') return typeof stored === 'number' && Number.isInteger(stored) && stored === wanted;
  return typeof stored === typeof wanted && stored === wanted;
}

/**
 * One value against `match.except`, as Qdrant's condition checker has it: a null is never "another
 * value", a value of another type than the list's (or a float against integers) always is.
 */
function notAmong(stored: unknown, except: Json[]): boolean {
  if (stored === null) return false;
  const strings = except.length > 0 && typeof except[0] === 'string';
  if (typeof stored === 'string') return !strings || !except.includes(stored);
  if (typeof stored === 'number') return strings || !Number.isInteger(stored) || !except.includes(stored);
  return true;
}

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An RFC 3339 date-time as microseconds since the epoch, or null. Also the shorter forms Qdrant's
 * filtering documentation accepts in payloads ("Datetime Range"): no seconds, no time (midnight), no
 * offset (UTC), a space for the `T`.
 */
function instant(s: string): number | null {
  const m = DATETIME.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const ms = Date.UTC(y, mo - 1, d, h, mi, sec);
  const date = new Date(ms);
  // Date.UTC rolls over (February 30th is March 2nd); Qdrant refuses such a date.
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || date.getUTCHours() !== h || date.getUTCMinutes() !== mi || date.getUTCSeconds() !== sec) {
    return null;
  }
  const zone = m[8] ?? 'Z';
  const offsetMinutes = /^z$/i.test(zone) ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  return (ms - offsetMinutes * 60_000) * 1000 + Math.round(Number(`0.${m[7] ?? '0'}`) * 1e6);
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

/**
 * Starts the stand-in on a loopback port (`port`, else any free one). With `apiKey`, requests must
 * carry it in the `api-key` header; `onViolation` hears of each violation as it is recorded.
 */
export async function startQdrantStandIn(options: { apiKey?: string; port?: number; onViolation?: (v: Violation) => void } = {}): Promise<QdrantStandIn> {
  const validator = qdrantValidator();
  const violations: Violation[] = [];
  const calls: QdrantStandIn['calls'] = [];
  const collections = new Map<string, Collection>();
  let version = 0;
  const nextVersion = () => ++version;
  let busyMs = 0;
  const record = (v: Violation) => {
    violations.push(v);
    options.onViolation?.(v);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const text = await readBody(req);
    const started = performance.now();
    const send = (operation: Operation | null, status: number, body: Json) => {
      if (operation) {
        const errors = validator.checkResponse(operation, status, body);
        if (errors.length) {
          record({ method, url: req.url ?? '', operation: operation.id, kind: 'response', errors });
          [status, body] = [500, { status: { error: `stand-in answer refused by the API description: ${errors.join('; ')}` }, time: 0 }];
        }
      }
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      busyMs += performance.now() - started;
    };
    const fail = (operation: Operation | null, status: number, kind: Violation['kind'] | null, errors: string[]) => {
      if (kind) record({ method, url: req.url ?? '', operation: operation?.id ?? null, kind, errors });
      send(operation, status, { status: { error: errors.join('; ') }, time: (performance.now() - started) / 1000 });
    };

    const route = validator.route(method, url.pathname);
    if (!route) return fail(null, 404, 'route', [`no operation ${method} ${url.pathname} in Qdrant's API`]);
    const { operation, params } = route;
    if (options.apiKey && req.headers['api-key'] !== options.apiKey) {
      return fail(operation, 401, 'auth', ['Must provide an API key or an Authorization bearer token']);
    }
    let body: unknown;
    if (text.length) {
      if (!String(req.headers['content-type']).includes('application/json')) return fail(operation, 400, 'body', ['body without content-type application/json']);
      try {
        body = JSON.parse(text);
      } catch {
        return fail(operation, 400, 'body', ['body is not JSON']);
      }
    }
    const queryErrors = validator.checkParams(operation, params, url.searchParams);
    if (queryErrors.length) return fail(operation, 400, 'query', queryErrors);
    const bodyErrors = validator.checkBody(operation, body);
    if (bodyErrors.length) return fail(operation, 400, 'body', bodyErrors);
    const handler = HANDLERS[operation.id];
    if (!handler) return fail(operation, 501, 'unsupported', [`the stand-in does not implement ${operation.id}`]);
    calls.push({ operation: operation.id, query: url.search });
    try {
      const result = handler({ collections, name: params.collection_name, body: (body ?? {}) as Schema, nextVersion });
      const time = (performance.now() - started) / 1000;
      send(operation, 200, operation.id === 'root' ? result : { result, status: 'ok', time });
    } catch (e) {
      if (e instanceof QdrantError) return fail(operation, e.status, null, [e.message]);
      if (e instanceof Unsupported) return fail(operation, 501, 'unsupported', [`the stand-in does not implement ${e.message}`]);
      throw e;
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    violations,
    calls,
    collections,
    get busyMs() {
      return busyMs;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
