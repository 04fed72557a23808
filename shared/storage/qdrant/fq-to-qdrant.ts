import type { Schemas } from '@qdrant/js-client-rest';
import type { FieldSpec } from '../../indexes/index-schema.js';
import { resolveDateMath } from '../../search/query/date-math.js';
import type { FqLeaf, FqNode } from '../../search/query/fq-ast.js';
import { own } from '../../records/own.js';
import { KeywordFilterUnsupported } from '../ports/keyword-index.js';
import { fieldKey } from './qdrant-vector-index.js';

type Filter = Schemas['Filter'];
type Condition = Schemas['Condition'];

/**
 * A Solr fq (already checked against the schema by compileFilter) as a Qdrant filter with the same
 * meaning, or null when it lets everything through. Lucene's boolean semantics map onto Qdrant's:
 * `must` and `must_not` as they are; `should` counts only without `must` (in Lucene a filter's optional
 * clauses beside required ones change no match, in Qdrant `should` would require one). What Qdrant
 * cannot evaluate exactly throws KeywordFilterUnsupported: text fields (their tokens are not payload),
 * wildcards, fuzzy terms and ranges over strings.
 */
export function fqToQdrant(node: FqNode, schema: Record<string, FieldSpec>, now: Date): Filter | null {
  if (node.kind === 'all') return null;
  return asFilter(node, schema, now);
}

function asFilter(node: Exclude<FqNode, { kind: 'all' }>, schema: Record<string, FieldSpec>, now: Date): Filter {
  if (node.kind !== 'bool') return { must: [leaf(node, schema, now)] };
  const of = (occur: string) => node.clauses.filter((c) => c.occur === occur).map((c) => condition(c.node, schema, now));
  const must = of('must');
  const mustNot = of('must_not');
  const should = must.length === 0 ? of('should') : [];
  const filter: Filter = {};
  if (must.length) filter.must = must;
  if (should.length) filter.should = should;
  if (mustNot.length) filter.must_not = mustNot;
  return filter;
}

function condition(node: FqNode, schema: Record<string, FieldSpec>, now: Date): Condition {
  // `*:*` inside a bool matches everything: an empty filter does too.
  if (node.kind === 'all') return {};
  return node.kind === 'bool' ? asFilter(node, schema, now) : leaf(node, schema, now);
}

function leaf(l: FqLeaf, schema: Record<string, FieldSpec>, now: Date): Condition {
  const field = l.field!;
  const spec = own(schema, field)!;
  const key = fieldKey(field);
  const unsupported = (what: string) => new KeywordFilterUnsupported(`${what} on ${spec.type} field '${field}'`, l.pos);
  if (l.kind === 'exists') return { must_not: [{ is_empty: { key } }] };
  if (spec.type === 'text' || spec.type === 'html') throw unsupported('a filter');
  if (l.kind === 'wildcard') throw unsupported('a wildcard');
  if (l.kind === 'term' && l.fuzzy !== undefined) throw unsupported('a fuzzy term');
  switch (spec.type) {
    case 'string':
      if (l.kind === 'range') throw unsupported('a range');
      return { key, match: { value: l.kind === 'term' ? l.value : l.text } };
    case 'boolean':
      return { key, match: { value: (l as { value: string }).value === 'true' } };
    case 'int':
    case 'float': {
      if (l.kind === 'range') {
        const n = (s: string | null) => (s === null ? null : Number(s));
        return { key, range: bounds(n(l.lower), n(l.upper), l.includeLower, l.includeUpper) };
      }
      const n = Number((l as { value: string }).value);
      return Number.isSafeInteger(n) ? { key, match: { value: n } } : { key, range: { gte: n, lte: n } };
    }
    case 'date': {
      const at = (s: string | null) => (s === null ? null : resolveDateMath(s, now).toISOString());
      if (l.kind === 'range') return { key, range: bounds(at(l.lower), at(l.upper), l.includeLower, l.includeUpper) };
      const t = at((l as { value: string }).value)!;
      return { key, range: { gte: t, lte: t } };
    }
  }
}

function bounds<T>(lower: T | null, upper: T | null, includeLower: boolean, includeUpper: boolean) {
  const r: { gt?: T; gte?: T; lt?: T; lte?: T } = {};
  if (lower !== null) r[includeLower ? 'gte' : 'gt'] = lower;
  if (upper !== null) r[includeUpper ? 'lte' : 'lt'] = upper;
  return r as Schemas['Range'] & Schemas['DatetimeRange'];
}
