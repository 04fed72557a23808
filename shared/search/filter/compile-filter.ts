import type { FieldSpec } from '../../indexes/index-schema.js';
import type { Analyzer } from '../analyzer/analyzer.js';
import { resolveDateMath } from '../query/date-math.js';
import type { FqLeaf, FqNode } from '../query/fq-ast.js';
import { leafMatcher } from './leaf-matchers.js';
import { own } from '../../records/own.js';

/** What a compiled filter reads of a document: raw field values, and analysed terms of text fields. */
export interface FieldAccess {
  value(field: string): unknown;
  terms(field: string): string[];
}

export type Predicate = (doc: FieldAccess) => boolean;

/** An unknown field, or a value the field's type cannot hold; `position` points into the filter. */
export class FilterFieldError extends Error {
  constructor(readonly position: number, message: string) {
    super(`Invalid filter at position ${position}: ${message}`);
    this.name = 'FilterFieldError';
  }
}

export interface CompileContext {
  fields: Record<string, FieldSpec>;
  analyzer: Analyzer;
  now: Date;
  /** Told of the work each document's check does (see SearchBudget); may throw to stop the search. */
  spend?: (steps: number) => void;
}

/**
 * Turns a parsed fq into a predicate, checking every field and value against the schema first, so
 * a bad filter is a 400 before any document is looked at. Lucene semantics: all `must`, no
 * `must_not`, and at least one `should` when there is no `must`; only-negative means "all except".
 */
export function compileFilter(node: FqNode, ctx: CompileContext): Predicate {
  switch (node.kind) {
    case 'all':
      return () => true;
    case 'bool': {
      const must = node.clauses.filter((c) => c.occur === 'must').map((c) => compileFilter(c.node, ctx));
      const should = node.clauses.filter((c) => c.occur === 'should').map((c) => compileFilter(c.node, ctx));
      const not = node.clauses.filter((c) => c.occur === 'must_not').map((c) => compileFilter(c.node, ctx));
      const needShould = must.length === 0 && should.length > 0;
      return (d) =>
        must.every((p) => p(d)) && !not.some((p) => p(d)) && (!needShould || should.some((p) => p(d)));
    }
    default:
      return compileLeaf(node, ctx);
  }
}

function compileLeaf(leaf: FqLeaf, ctx: CompileContext): Predicate {
  if (leaf.field === null) throw new FilterFieldError(leaf.pos, 'name a field, as in status:published');
  const spec = own(ctx.fields, leaf.field);
  if (!spec) {
    const known = Object.keys(ctx.fields).sort().join(', ');
    throw new FilterFieldError(leaf.pos, `unknown field '${leaf.field}'; the index has: ${known}`);
  }
  const field = leaf.field;
  let match: Predicate;
  try {
    match = leafMatcher(leaf, spec, { analyzer: ctx.analyzer, date: (s) => resolveDateMath(s, ctx.now), spend: ctx.spend }, field);
  } catch (err) {
    throw new FilterFieldError(leaf.pos, `${field} (${spec.type}): ${(err as Error).message}`);
  }
  const spend = ctx.spend;
  return spend ? (d) => (spend(1), match(d)) : match;
}
