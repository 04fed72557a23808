// Throws random and mutated filters at the parser: each must end in a tree or a FilterSyntaxError with
// a message and a position inside the input, never another exception, a hang or a stack overflow.
// The PRNG is seeded, so a failure names the seed and input and reproduces.
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prng } from '../helpers/prng.js';
import { leavesOf, toLuceneString } from '../../shared/search/query/fq-ast.js';
import { FilterSyntaxError, parseFilter } from '../../shared/search/query/fq-parser.js';

const SEED = 0x5eed_f00d;
const ITERATIONS = 120_000;

const SYNTAX = [...'()[]{}:"\\*?~^+-!&| TOANDORNOT/u0123456789az'];
const WORDS = ['AND', 'OR', 'NOT', '&&', '||', 'TO', '*:*', 'f:', 'NOW-7DAYS', '\\u00', '"', '[', '}', '^2', '~0.5'];

const DIR = resolve(process.cwd(), '../shared/data/lucene-queryparser-cases');
const CORPUS = [
  ...readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).flatMap((f) =>
    readFileSync(resolve(DIR, f), 'utf8').split('\n').filter((l) => l.trim()).map((l) => (JSON.parse(l) as { query: string }).query)),
  '-status:draft', 'title:(a OR b) AND NOT c', 'last_modified:[NOW-7DAYS TO NOW/DAY}', 'price:{10 TO *]', 'f:*', '*:*',
  'a:"x \\" y"~3^2', 'a\\ b:c\\ d', '+(a (b (c (d))))', 'x:te?m* && !y:z || w',
];

function randomChar(rand: () => number): string {
  const r = rand();
  if (r < 0.7) return SYNTAX[Math.floor(rand() * SYNTAX.length)];
  if (r < 0.8) return WORDS[Math.floor(rand() * WORDS.length)];
  if (r < 0.9) return String.fromCharCode(Math.floor(rand() * 0x10000)); // includes lone surrogates
  return String.fromCodePoint(Math.floor(rand() * 0x10ffff));
}

function randomInput(rand: () => number): string {
  const len = Math.floor(rand() * 40);
  let s = '';
  for (let i = 0; i < len; i++) s += randomChar(rand);
  return s;
}

function mutate(rand: () => number): string {
  let s = CORPUS[Math.floor(rand() * CORPUS.length)];
  const edits = 1 + Math.floor(rand() * 5);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (s.length + 1));
    const op = rand();
    if (op < 0.4) s = s.slice(0, at) + randomChar(rand) + s.slice(at);
    else if (op < 0.7) s = s.slice(0, at) + s.slice(at + 1);
    else s = s.slice(0, at) + randomChar(rand) + s.slice(at + 1);
  }
  return s;
}

let ok = 0;

// Returns a description of what went wrong, or null when the outcome is acceptable.
function check(input: string): string | null {
  try {
    const node = parseFilter(input, { defaultField: 'text', defaultOperator: input.length % 2 ? 'AND' : 'OR' });
    toLuceneString(node);
    leavesOf(node);
    ok++;
    return null;
  } catch (e) {
    if (!(e instanceof FilterSyntaxError)) return `threw ${(e as Error)?.name}: ${(e as Error)?.message}`;
    if (!e.message || !e.expected) return 'FilterSyntaxError without a message';
    if (!(e.position >= 0 && e.position <= input.length)) return `position ${e.position} outside [0, ${input.length}]`;
    return null;
  }
}

describe('fq parser fuzzing', () => {
  it(`survives ${ITERATIONS} random and mutated filters (seed ${SEED})`, () => {
    const rand = prng(SEED);
    ok = 0;
    const failures: string[] = [];
    let parsed = 0;
    const started = performance.now();
    for (let i = 0; i < ITERATIONS && failures.length < 10; i++) {
      const input = i % 3 === 0 ? randomInput(rand) : mutate(rand);
      const problem = check(input);
      if (problem) failures.push(`#${i} ${JSON.stringify(input)}: ${problem}`);
      else parsed++;
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`fuzz: ${ITERATIONS} inputs in ${seconds.toFixed(2)} s (${ok} parsed, ${ITERATIONS - ok} FilterSyntaxError)`);
    expect(failures).toEqual([]);
    expect(parsed).toBe(ITERATIONS);
    expect(seconds).toBeLessThan(30);
  });

  it('refuses deep nesting with a FilterSyntaxError instead of overflowing the stack', () => {
    for (const input of ['('.repeat(100_000), `${'('.repeat(5000)}a${')'.repeat(5000)}`, 'a:('.repeat(20_000)]) {
      expect(() => parseFilter(input)).toThrow(/nested groups/);
    }
    expect(() => parseFilter(`${'('.repeat(100)}a${')'.repeat(100)}`)).not.toThrow();
  });

  it('stays linear on long inputs', () => {
    const inputs = [
      'a '.repeat(100_000), 'a AND '.repeat(50_000) + 'b', '"'.repeat(100_001), '\\a'.repeat(100_000),
      `[${'x'.repeat(200_000)} TO *]`, '-a '.repeat(60_000), `${'f:[a TO b] OR '.repeat(20_000)}c`,
    ];
    const started = performance.now();
    for (const input of inputs) expect(check(input)).toBeNull();
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
