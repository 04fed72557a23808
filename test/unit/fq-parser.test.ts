import { describe, expect, it } from 'vitest';
import { leavesOf, toLuceneString } from '../../shared/search/query/fq-ast.js';
import { resolveDateMath, DateMathError } from '../../shared/search/query/date-math.js';
import { FilterSyntaxError, parseFilter, type ParseFilterOptions } from '../../shared/search/query/fq-parser.js';

const print = (q: string, o: ParseFilterOptions = {}) => toLuceneString(parseFilter(q, { defaultField: 'text', ...o }), 'text');

describe('parseFilter: printed in Lucene notation', () => {
  it.each([
    // precedence as in Lucene's classic QueryParser
    ['a AND b OR c', '+a +b c'],
    ['a OR b AND c', 'a +b +c'],
    ['a b', 'a b'],
    ['a AND b AND c', '+a +b +c'],
    ['a && b || c', '+a +b c'],
    ['a and b', 'a and b'], // lower-case operators are terms
    ['ANDROID ORACLE NOTE', 'ANDROID ORACLE NOTE'],
    // negation and requirement
    ['-status:draft', '-status:draft'],
    ['NOT status:draft', '-status:draft'],
    ['!status:draft', '-status:draft'],
    ['a NOT b', 'a -b'],
    ['a AND NOT b', '+a -b'],
    ['+a -b c', '+a -b c'],
    ['-a -b', '-a -b'],
    ['a OR -b', 'a -b'],
    // groups and field push-down
    ['title:(dog OR cat)', 'title:dog title:cat'],
    ['+title:(dog OR cat) -author:"bob dole"', '+(title:dog title:cat) -author:"bob dole"'],
    ['title:(dog author:cat)', 'title:dog author:cat'],
    ['title:(a (b c))', 'title:a (title:b title:c)'],
    ['(a)', 'a'],
    ['((a OR b) AND NOT c) OR d', '(+(a b) -c) d'],
    ['status:(-draft)', '-status:draft'],
    // phrases, escapes
    ['title:"hello world"', 'title:"hello world"'],
    ['title:"say \\"hi\\""', 'title:"say "hi""'],
    ['"a b"~3', '"a b"~3'],
    ['a\\:b:c', 'a:b:c'],
    ['path:a\\ b', 'path:a b'],
    ['x:a\\-b', 'x:a-b'],
    ['x:a-b', 'x:a-b'],
    ['XY\\u005a', 'XYZ'],
    ['url:http\\://x.org/a/b', 'url:http://x.org/a/b'],
    // wildcards, existence, match all
    ['te?m*', 'te?m*'],
    ['f:*abc', 'f:*abc'],
    ['f:a\\*b*', 'f:a\\*b*'],
    ['f:\\*', 'f:*'],
    ['*:*', '*:*'],
    ['f:*', 'f:*'],
    ['-f:*', '-f:*'],
    ['*:* -status:draft', '*:* -status:draft'],
    // ranges
    ['price:[10 TO 20]', 'price:[10 TO 20]'],
    ['price:{10 TO 20}', 'price:{10 TO 20}'],
    ['price:[10 TO 20}', 'price:[10 TO 20}'],
    ['price:{10 TO *]', 'price:{10 TO *]'],
    ['price:[* TO *]', 'price:[* TO *]'],
    ['name:["a b" TO "c\\"d"]', 'name:[a b TO c"d]'],
    ['d:[NOW-7DAYS TO NOW/DAY]', 'd:[NOW-7DAYS TO NOW/DAY]'],
    ['d:[2024-01-01T00:00:00Z TO 2024-01-01T00:00:00Z+1YEAR}', 'd:[2024-01-01T00:00:00Z TO 2024-01-01T00:00:00Z+1YEAR}'],
    ['price:-5', 'price:-5'],
    // boosts and fuzzy are kept
    ['a^2 b~ c~1 (d e)^0.5', 'a^2.0 b~2 c~1 ((d e)^0.5)'],
    ['*:*^3', '*:*^3.0'],
    // whitespace of every kind separates
    ['a\tb\nc\r\u3000d', 'a b c d'],
  ])('%s  ->  %s', (q, expected) => {
    expect(print(q)).toBe(expected);
  });

  it('uses the default operator for clauses joined by nothing', () => {
    expect(print('a b', { defaultOperator: 'AND' })).toBe('+a +b');
    expect(print('a OR b c', { defaultOperator: 'AND' })).toBe('a b +c');
    expect(print('a -b', { defaultOperator: 'AND' })).toBe('+a -b');
  });

  it('treats empty input as match-all and keeps field null without a default field', () => {
    expect(parseFilter('')).toEqual({ kind: 'all' });
    expect(parseFilter('  \t ')).toEqual({ kind: 'all' });
    expect(parseFilter('a')).toMatchObject({ kind: 'term', field: null, value: 'a', pos: 0 });
  });

  it('builds the documented tree', () => {
    expect(parseFilter('-status:draft')).toEqual({
      kind: 'bool', clauses: [{ occur: 'must_not', node: { kind: 'term', field: 'status', value: 'draft', pos: 1 } }],
    });
    expect(parseFilter('p:[1 TO *}')).toEqual({
      kind: 'range', field: 'p', pos: 0, lower: '1', upper: null, includeLower: true, includeUpper: false,
    });
    expect(parseFilter('f:*')).toEqual({ kind: 'exists', field: 'f', pos: 0 });
    expect(parseFilter('f:a?c')).toEqual({ kind: 'wildcard', field: 'f', pos: 0, pattern: 'a?c' });
    expect(parseFilter('f:"a b"~2^3')).toEqual({ kind: 'phrase', field: 'f', pos: 0, text: 'a b', slop: 2, boost: 3 });
    expect(leavesOf(parseFilter('a:1 (b:2 -c:3)')).map((l) => [l.field, l.pos])).toEqual([['a', 0], ['b', 5], ['c', 10]]);
  });
});

describe('parseFilter: errors', () => {
  it.each([
    ['status:', 7, "a value after 'status:'", 'end of input'],
    ['a AND', 5, "a value after 'AND'", 'end of input'],
    ['a -', 3, "a value after '-'", 'end of input'],
    ['foo bar))', 7, 'end of input', "')'"],
    ['(a b', 4, "')' to close the group opened at position 0", 'end of input'],
    ['"some phrase', 12, "'\"' to close the phrase opened at position 0", 'end of input'],
    ['(sub query)^5.0^2.0 plus', 15, "a value", "'^2.0'"],
    ['p:[1 20]', 5, "'TO' after the lower bound '1'", "'20'"],
    ['p:[1 TO 20', 10, "']' or '}' to close the range opened at position 2", 'end of input'],
    ['p:[1 TO ]', 8, "an upper bound after 'TO'", "']'"],
    ['a^', 2, "a number after '^'", 'end of input'],
    ['a\\', 1, "a character after '\\'", 'end of input'],
    ['a\\u12', 1, "four hexadecimal digits after '\\u'", "'1'"],
    ['*:foo', 2, "'*' after '*:'", "'foo'"],
    ['te?m:x', 0, "a field name without '*' or '?'", "'te?m'"],
    ['AND a', 0, 'a value', "'AND'"],
    ['a ] b', 2, 'a term, phrase or group', "']' outside a range"],
    ['/re/', 0, 'regular expressions are not supported', "'/'"],
    ['f:a:b', 3, 'a value', "':'"],
    ['()', 1, "a value after '('", "')'"],
    ['--a', 1, "a value after '-'", "'-'"],
  ])('%s', (q, position, expected, found) => {
    let err: unknown;
    try {
      parseFilter(q);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FilterSyntaxError);
    const e = err as FilterSyntaxError;
    expect(e.position).toBe(position);
    expect(e.expected).toContain(expected);
    expect(e.message).toContain(`Invalid filter at position ${position}: expected `);
    expect(e.message).toContain(`but found ${found}`);
  });

  it('gives the message format of the issue', () => {
    expect(() => parseFilter('a AND status:')).toThrow("Invalid filter at position 13: expected a value after 'status:' but found end of input");
  });
});

describe('resolveDateMath', () => {
  const now = new Date('2024-03-31T15:45:12.345Z');
  it.each([
    ['NOW', '2024-03-31T15:45:12.345Z'],
    ['NOW-7DAYS', '2024-03-24T15:45:12.345Z'],
    ['NOW/DAY', '2024-03-31T00:00:00.000Z'],
    ['NOW+1MONTH/DAY', '2024-04-30T00:00:00.000Z'],
    ['NOW-1MONTH', '2024-02-29T15:45:12.345Z'],
    ['NOW/YEAR+2HOURS', '2024-01-01T02:00:00.000Z'],
    ['NOW-1YEAR/MONTH', '2023-03-01T00:00:00.000Z'],
    ['NOW+90MINUTES/HOUR', '2024-03-31T17:00:00.000Z'],
    ['NOW-1SECOND-500MILLIS/SECOND', '2024-03-31T15:45:10.000Z'],
    ['NOW+1DATE-1DAYS', '2024-03-31T15:45:12.345Z'],
    ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000Z'],
    ['2024-01-01T00:00:00Z+1YEAR', '2025-01-01T00:00:00.000Z'],
    ['2024-01-01', '2024-01-01T00:00:00.000Z'],
    ['2024-01-31T10:00:00.5Z+1MONTH', '2024-02-29T10:00:00.500Z'],
    ['2024-02-29+1YEAR', '2025-02-28T00:00:00.000Z'],
  ])('%s', (expr, iso) => {
    expect(resolveDateMath(expr, now).toISOString()).toBe(iso);
  });

  it.each(['', 'yesterday', 'NOW-7', 'NOW-DAYS', 'NOW+1WEEKS', 'NOW/', '2024-13-01', '2024-02-30', '2024-01-01T25:00:00Z', 'NOW 1DAY'])(
    'refuses %j with a message', (expr) => {
      expect(() => resolveDateMath(expr, now)).toThrow(DateMathError);
      expect(() => resolveDateMath(expr, now)).toThrow(/^Invalid date at position \d+: ./);
    },
  );
});
