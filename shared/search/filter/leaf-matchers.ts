import type { FieldSpec } from '../../indexes/index-schema.js';
import type { Analyzer } from '../analyzer/analyzer.js';
import type { FqLeaf, FqRange } from '../query/fq-ast.js';
import type { FieldAccess, Predicate } from './compile-filter.js';
import { compileGlob, globMatches } from './glob.js';

export interface LeafHelpers {
  analyzer: Analyzer;
  date: (expr: string) => Date;
  /** Hears of the work a match does (wildcards); may throw to cut a search off. */
  spend?: (steps: number) => void;
}

const values = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
/** Whether a stored value counts for `exists` (Solr: a non-empty value). */
export const present = (v: unknown) => values(v).some((x) => x !== '' && x !== null);

function inRange<T extends string | number>(x: T, r: { lower: T | null; upper: T | null; includeLower: boolean; includeUpper: boolean }) {
  if (r.lower !== null && (r.includeLower ? x < r.lower : x <= r.lower)) return false;
  if (r.upper !== null && (r.includeUpper ? x > r.upper : x >= r.upper)) return false;
  return true;
}

function mapRange<T extends string | number>(r: FqRange, f: (s: string) => T) {
  return { lower: r.lower === null ? null : f(r.lower), upper: r.upper === null ? null : f(r.upper), includeLower: r.includeLower, includeUpper: r.includeUpper };
}

/** True when `run` occurs contiguously in `tokens` (a phrase); an empty run matches nothing. */
export const containsRun = (tokens: string[], run: string[]) => {
  if (run.length === 0) return false; // only stop words: matches nothing, as in Lucene
  outer: for (let i = 0; i + run.length <= tokens.length; i++) {
    for (let j = 0; j < run.length; j++) if (tokens[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
};

function toNumber(s: string): number {
  const n = Number(s);
  if (s.trim() === '' || !Number.isFinite(n)) throw new Error(`expected a number, found '${s}'`);
  return n;
}

/** One leaf of a filter against one field, by the field's type. Throws on values the type cannot hold. */
export function leafMatcher(leaf: FqLeaf, spec: FieldSpec, h: LeafHelpers, field: string): Predicate {
  if (leaf.kind === 'exists') return (d) => present(d.value(field));
  const any = (test: (x: unknown) => boolean) => (d: FieldAccess) => values(d.value(field)).some(test);
  switch (spec.type) {
    case 'string': {
      if (leaf.kind === 'term') return any((x) => x === leaf.value);
      if (leaf.kind === 'phrase') return any((x) => x === leaf.text);
      if (leaf.kind === 'wildcard') {
        const glob = compileGlob(leaf.pattern);
        return any((x) => typeof x === 'string' && globMatches(glob, x, h.spend));
      }
      const r = mapRange(leaf, (s) => s);
      return any((x) => typeof x === 'string' && inRange(x, r));
    }
    case 'text':
    case 'html': {
      if (leaf.kind === 'term' || leaf.kind === 'phrase') {
        const run = h.analyzer.analyze(leaf.kind === 'term' ? leaf.value : leaf.text);
        return (d) => containsRun(d.terms(field), run);
      }
      if (leaf.kind === 'wildcard') {
        const glob = compileGlob(leaf.pattern.toLowerCase());
        return (d) => d.terms(field).some((t) => globMatches(glob, t, h.spend));
      }
      const r = mapRange(leaf, (s) => s.toLowerCase());
      return (d) => d.terms(field).some((t) => inRange(t, r));
    }
    case 'int':
    case 'float': {
      if (leaf.kind === 'term') {
        const n = toNumber(leaf.value);
        return any((x) => Number(x) === n);
      }
      if (leaf.kind !== 'range') throw new Error('numeric fields take a number or a range such as [1 TO 10]');
      const r = mapRange(leaf, toNumber);
      return any((x) => typeof x === 'number' && inRange(x, r));
    }
    case 'date': {
      const ms = (s: string) => h.date(s).getTime();
      const docMs = (x: unknown) => (typeof x === 'string' ? Date.parse(x) : NaN);
      if (leaf.kind === 'term') {
        const t = ms(leaf.value);
        return any((x) => docMs(x) === t);
      }
      if (leaf.kind !== 'range') throw new Error('date fields take a date or a range such as [NOW-7DAYS TO NOW]');
      const r = mapRange(leaf, ms);
      return any((x) => !Number.isNaN(docMs(x)) && inRange(docMs(x), r));
    }
    case 'boolean': {
      if (leaf.kind !== 'term' || !['true', 'false'].includes(leaf.value)) throw new Error('boolean fields take true or false');
      const want = leaf.value === 'true';
      return any((x) => x === want);
    }
  }
}
