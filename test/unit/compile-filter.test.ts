import { describe, expect, it } from 'vitest';
import type { FieldSpec } from '../../shared/indexes/index-schema.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import { compileFilter, FilterFieldError, type FieldAccess } from '../../shared/search/filter/compile-filter.js';
import { parseFilter } from '../../shared/search/query/fq-parser.js';

const fields: Record<string, FieldSpec> = {
  title: { type: 'text' },
  status: { type: 'string' },
  tags: { type: 'string', multi_valued: true },
  price: { type: 'float' },
  stock: { type: 'int' },
  published: { type: 'date' },
  featured: { type: 'boolean' },
};
const analyzer = createAnalyzer('en');
const now = new Date('2026-06-15T12:00:00Z');

const docs: Record<string, Record<string, unknown>> = {
  a: { title: 'Running shoes for trails', status: 'published', tags: ['sport', 'outdoor'], price: 89.5, stock: 3, published: '2026-06-14T08:00:00Z', featured: true },
  b: { title: 'Leather shoes', status: 'draft', tags: ['formal'], price: 120, stock: 0, published: '2026-01-02T00:00:00Z', featured: false },
  c: { title: 'Trail map of the Alps', status: 'published', price: 12, published: '2025-12-31T23:59:59Z' },
};

const access = (d: Record<string, unknown>): FieldAccess => ({
  value: (f) => d[f],
  terms: (f) => (typeof d[f] === 'string' ? analyzer.analyze(d[f] as string) : []),
});

const run = (fq: string) => {
  const p = compileFilter(parseFilter(fq), { fields, analyzer, now });
  return Object.keys(docs).filter((k) => p(access(docs[k])));
};

describe('compiled filters', () => {
  it.each([
    ['', ['a', 'b', 'c']],
    ['*:*', ['a', 'b', 'c']],
    ['status:published', ['a', 'c']],
    ['-status:draft', ['a', 'c']],
    ['status:(published OR draft) AND -tags:formal', ['a', 'c']],
    ['tags:sport', ['a']],
    ['tags:*', ['a', 'b']],
    ['tags:out*', ['a']],
    ['title:run', ['a']],
    ['title:"trail map"', ['c']],
    ['title:trails', ['a', 'c']],
    ['price:[10 TO 100]', ['a', 'c']],
    ['price:{12 TO *]', ['a', 'b']],
    ['stock:0', ['b']],
    ['stock:[1 TO *]', ['a']],
    ['published:[NOW-7DAYS TO NOW]', ['a']],
    ['published:[2026-01-01 TO 2026-02-01}', ['b']],
    ['published:[* TO NOW/YEAR}', ['c']],
    ['featured:true', ['a']],
    ['featured:false OR status:published', ['a', 'b', 'c']],
    ['+status:published +price:[* TO 50]', ['c']],
    ['status:published -title:shoe', ['c']],
  ])('%s', (fq, expected) => {
    expect(run(fq)).toEqual(expected);
  });

  it.each([
    ['colour:red', 0, /unknown field 'colour'; the index has: featured, price/],
    ['status:x AND price:cheap', 13, /price \(float\): expected a number, found 'cheap'/],
    ['price:"12"', 0, /numeric fields take a number or a range/],
    ['featured:maybe', 0, /boolean fields take true or false/],
    ['published:[yesterday TO NOW]', 0, /published \(date\)/],
    ['plainword', 0, /name a field/],
  ])('rejects %s at position %i', (fq, position, message) => {
    let error: unknown;
    try {
      compileFilter(parseFilter(fq), { fields, analyzer, now });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FilterFieldError);
    expect((error as FilterFieldError).position).toBe(position);
    expect((error as Error).message).toMatch(message);
  });
});
