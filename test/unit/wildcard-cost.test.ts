import { describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import { compileFilter } from '../../shared/search/filter/compile-filter.js';
import { compileGlob, globMatches } from '../../shared/search/filter/glob.js';
import { FilterSyntaxError, MAX_WILDCARDS, MAX_WILDCARD_CHARS, parseFilter } from '../../shared/search/query/fq-parser.js';
import { prng } from '../helpers/prng.js';

/** Steps a match takes, as the matcher reports them. */
function stepsOf(pattern: string, text: string): { match: boolean; steps: number } {
  let steps = 0;
  const match = globMatches(compileGlob(pattern), text, (n) => (steps += n));
  return { match, steps };
}

// The reference: a regular expression, fine on the short inputs it is given here.
function byRegex(pattern: string, text: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) re += pattern[++i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'su').test(text);
}

describe('globMatches', () => {
  it.each([
    ['out*', 'outdoor', true],
    ['out*', 'indoor', false],
    ['*door', 'outdoor', true],
    ['o?tdoor', 'outdoor', true],
    ['o?tdoor', 'otdoor', false],
    ['*', '', true],
    ['?', '', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXcYYb', false],
    ['\\*lit', '*lit', true],
    ['\\*lit', 'xlit', false],
    ['a\\?', 'a?', true],
    ['a\\?', 'ab', false],
    ['?', '😀', true], // one code point, two UTF-16 units
    ['??', '😀', false],
    ['*?*?*?*?*?*?*?*?Q', `https://example.com/${'a'.repeat(60)}`, false],
    ['*?*?*?*?*?*?*?*?Q', `https://example.com/${'a'.repeat(60)}Q`, true],
  ])('%s against %s: %s', (pattern, text, expected) => {
    expect(globMatches(compileGlob(pattern), text)).toBe(expected);
  });

  it('agrees with a regular expression on random short patterns and values', () => {
    const rand = prng(1414);
    const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
    for (let i = 0; i < 5000; i++) {
      const pattern = pick('ab*?', 1 + Math.floor(rand() * 8));
      const text = pick('ab', Math.floor(rand() * 10));
      expect(globMatches(compileGlob(pattern), text), `${pattern} ~ ${text}`).toBe(byRegex(pattern, text));
    }
  });

  it('takes at most (value length + 1) × (pattern length + 1) steps, whatever the pattern', () => {
    const hostile: [string, string][] = [
      ['*?*?*?*?*?*?*?*?Q', `https://example.com/${'a'.repeat(60)}`],
      ['*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(255)],
      [`*${'a'.repeat(200)}b`, 'a'.repeat(32_768)],
      [`${'*a'.repeat(120)}*b`, 'a'.repeat(32_768)],
      [`${'*?'.repeat(120)}Q`, 'x'.repeat(32_768)],
    ];
    for (const [pattern, text] of hostile) {
      const { match, steps } = stepsOf(pattern, text);
      expect(match).toBe(false);
      expect(steps).toBeLessThanOrEqual((text.length + 1) * (pattern.length + 1));
    }
  });

  it('lets its caller stop a long match', () => {
    let reports = 0;
    const stop = () => {
      if (++reports === 3) throw new Error('budget spent');
    };
    expect(() => globMatches(compileGlob(`*${'a'.repeat(200)}b`), 'a'.repeat(32_768), stop)).toThrow('budget spent');
    expect(reports).toBe(3);
  });
});

describe('filter wildcard bounds', () => {
  const syntaxError = (fq: string) => {
    try {
      parseFilter(fq);
    } catch (err) {
      return err as FilterSyntaxError;
    }
    throw new Error(`${fq} parsed`);
  };

  it(`refuses a wildcard pattern longer than ${MAX_WILDCARD_CHARS} characters, pointing at it`, () => {
    expect(parseFilter(`u:*${'a'.repeat(MAX_WILDCARD_CHARS - 1)}`).kind).toBe('wildcard');
    const err = syntaxError(`status:x AND u:*${'a'.repeat(MAX_WILDCARD_CHARS)}`);
    expect(err).toBeInstanceOf(FilterSyntaxError);
    expect(err.position).toBe(15);
    expect(err.message).toContain(`at most ${MAX_WILDCARD_CHARS} characters`);
  });

  it(`refuses more than ${MAX_WILDCARDS} wildcard terms in one filter`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `u:a${i}*`).join(' OR ');
    expect(parseFilter(many(MAX_WILDCARDS)).kind).toBe('bool');
    const err = syntaxError(many(MAX_WILDCARDS + 1));
    expect(err.message).toContain(`at most ${MAX_WILDCARDS} wildcard terms`);
    // `field:*` (the field has a value) is no pattern and costs nothing to match.
    expect(parseFilter(Array.from({ length: 40 }, (_, i) => `f${i}:*`).join(' OR ')).kind).toBe('bool');
  });

  it('a compiled wildcard filter reports its work to the search budget', () => {
    let spent = 0;
    const p = compileFilter(parseFilter(`u:*${'a'.repeat(100)}b`), {
      fields: { u: { type: 'string' } }, analyzer: createAnalyzer('en'), now: new Date(), spend: (n) => (spent += n),
    });
    expect(p({ value: () => 'a'.repeat(10_000), terms: () => [] })).toBe(false);
    expect(spent).toBeGreaterThan(10_000);
  });
});
