// Tokenizer for the Lucene/Solr standard query syntax, following the token rules of Lucene's classic
// QueryParser.jj: which characters start or continue a term, `AND`/`&&` as whole tokens only (so
// `a&&b` stays one term), and a separate mode inside `[ ... ]` / `{ ... }` where everything up to a
// space or closing bracket is one value (so date math like `NOW/DAY` needs no escaping there).
// Every loop advances at least one character, so lexing is linear in the input length.

export class FilterSyntaxError extends Error {
  constructor(
    readonly position: number,
    readonly expected: string,
    found: string,
  ) {
    super(`Invalid filter at position ${position}: expected ${expected} but found ${found}`);
    this.name = 'FilterSyntaxError';
  }
}

export type TokenType =
  | 'lparen' | 'rparen' | 'colon' | 'plus' | 'minus' | 'not' | 'and' | 'or'
  | 'boost' | 'fuzzy' | 'quoted' | 'term'
  | 'range_start' | 'range_end' | 'range_to' | 'range_value' | 'eof';

export interface Token {
  type: TokenType;
  pos: number;
  /** As written, for error messages. */
  raw: string;
  /** Unescaped text of a term, phrase or range value. */
  text: string;
  /** term: contains an unescaped `*` or `?`; then `pattern` holds the WildcardQuery form. */
  wildcard: boolean;
  pattern: string;
  /** boost and fuzzy: the number after `^` / `~` (fuzzy: undefined for a bare `~`). */
  num?: number;
  /** range_start / range_end: `[` `]` are inclusive. range_value: written as `"..."`. */
  inclusive: boolean;
  quoted: boolean;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\u3000']);
// Characters that can neither start nor continue a term unless escaped (QueryParser.jj _TERM_START_CHAR),
// minus `+` and `-`, which may continue one, and `/`, which Quarry lets continue one (URLs, paths).
const SPECIAL = new Set([...WHITESPACE, '+', '-', '!', '(', ')', ':', '^', '[', ']', '"', '{', '}', '~', '*', '?', '\\', '/']);
const NUMBER = /\d+(?:\.\d+)?/y;

/** Describes what the input holds at `pos`, for "but found ..." in messages. */
export function describeAt(input: string, pos: number): string {
  if (pos >= input.length) return 'end of input';
  const cp = String.fromCodePoint(input.codePointAt(pos)!);
  return `'${cp}'`;
}

function token(type: TokenType, pos: number, raw: string, extra: Partial<Token> = {}): Token {
  return { type, pos, raw, text: raw, wildcard: false, pattern: raw, inclusive: false, quoted: false, ...extra };
}

/** Reads `\x` at `i` (a backslash); returns the escaped text and the index after it. */
function readEscape(input: string, i: number): [string, number] {
  const next = input[i + 1];
  if (next === undefined) throw new FilterSyntaxError(i, "a character after '\\'", 'end of input');
  if (next === 'u') {
    const hex = input.slice(i + 2, i + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
      throw new FilterSyntaxError(i, "four hexadecimal digits after '\\u'", describeAt(input, i + 2));
    }
    return [String.fromCharCode(parseInt(hex, 16)), i + 6];
  }
  const cp = input.codePointAt(i + 1)!;
  const ch = String.fromCodePoint(cp);
  return [ch, i + 1 + ch.length];
}

// A term: escapes become literal text; unescaped `*`/`?` make it a wildcard.
function readTerm(input: string, start: number): [Token, number] {
  let i = start;
  let text = '';
  let pattern = '';
  let wildcard = false;
  while (i < input.length) {
    const ch = input[i];
    if (ch === '\\') {
      const [esc, next] = readEscape(input, i);
      text += esc;
      pattern += esc === '*' || esc === '?' || esc === '\\' ? `\\${esc}` : esc;
      i = next;
    } else if (ch === '*' || ch === '?') {
      text += ch;
      pattern += ch;
      wildcard = true;
      i++;
    } else if (!SPECIAL.has(ch) || ch === '+' || ch === '-' || (ch === '/' && i > start)) {
      text += ch;
      pattern += ch;
      i++;
    } else break;
  }
  const raw = input.slice(start, i);
  if (!wildcard && (raw === 'AND' || raw === '&&')) return [token('and', start, raw), i];
  if (!wildcard && (raw === 'OR' || raw === '||')) return [token('or', start, raw), i];
  if (!wildcard && raw === 'NOT') return [token('not', start, raw), i];
  return [token('term', start, raw, { text, pattern, wildcard }), i];
}

function readQuoted(input: string, start: number, type: 'quoted' | 'range_value'): [Token, number] {
  let i = start + 1;
  let text = '';
  while (i < input.length && input[i] !== '"') {
    if (input[i] === '\\') {
      const [esc, next] = readEscape(input, i);
      text += esc;
      i = next;
    } else text += input[i++];
  }
  if (i >= input.length) {
    throw new FilterSyntaxError(input.length, `'"' to close the phrase opened at position ${start}`, 'end of input');
  }
  return [token(type, start, input.slice(start, i + 1), { text, quoted: true }), i + 1];
}

function readNumberAfter(input: string, i: number): [number | undefined, number] {
  NUMBER.lastIndex = i;
  const m = NUMBER.exec(input);
  return m ? [Number(m[0]), i + m[0].length] : [undefined, i];
}

// Inside brackets: values run to the next space or closing bracket; `TO` alone is the separator.
function readRangeToken(input: string, i: number): [Token, number] {
  const ch = input[i];
  if (ch === ']' || ch === '}') return [token('range_end', i, ch, { inclusive: ch === ']' }), i + 1];
  if (ch === '"') return readQuoted(input, i, 'range_value');
  let j = i;
  let text = '';
  while (j < input.length && !WHITESPACE.has(input[j]) && input[j] !== ']' && input[j] !== '}') {
    if (input[j] === '\\') {
      const [esc, next] = readEscape(input, j);
      text += esc;
      j = next;
    } else text += input[j++];
  }
  const raw = input.slice(i, j);
  return [token(raw === 'TO' ? 'range_to' : 'range_value', i, raw, { text }), j];
}

function readSymbol(input: string, i: number, prev: Token | undefined): [Token, number] {
  const ch = input[i];
  switch (ch) {
    case '(': return [token('lparen', i, ch), i + 1];
    case ')': return [token('rparen', i, ch), i + 1];
    case ':': return [token('colon', i, ch), i + 1];
    case '!': return [token('not', i, ch), i + 1];
    case '[': case '{': return [token('range_start', i, ch, { inclusive: ch === '[' }), i + 1];
    case ']': case '}': throw new FilterSyntaxError(i, 'a term, phrase or group', `'${ch}' outside a range`);
    case '"': return readQuoted(input, i, 'quoted');
    case '/': throw new FilterSyntaxError(i, "a term (regular expressions are not supported; write '\\/')", "'/'");
    case '^': {
      const [num, next] = readNumberAfter(input, i + 1);
      if (num === undefined) throw new FilterSyntaxError(i + 1, "a number after '^'", describeAt(input, i + 1));
      return [token('boost', i, input.slice(i, next), { num }), next];
    }
    case '~': {
      const [num, next] = readNumberAfter(input, i + 1);
      return [token('fuzzy', i, input.slice(i, next), { num }), next];
    }
    case '+': case '-':
      // `price:-5`: after a colon a signed number is a value (Lucene would need `price:\-5`).
      if (prev?.type === 'colon' && /\d/.test(input[i + 1] ?? '')) return readTerm(input, i);
      return [token(ch === '+' ? 'plus' : 'minus', i, ch), i + 1];
    default:
      return readTerm(input, i);
  }
}

/** Splits a filter into tokens, ending with an `eof` token. Throws FilterSyntaxError. */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let inRange = false;
  let i = 0;
  while (i < input.length) {
    if (WHITESPACE.has(input[i])) {
      i++;
      continue;
    }
    const [tok, next] = inRange ? readRangeToken(input, i) : readSymbol(input, i, tokens[tokens.length - 1]);
    if (tok.type === 'range_start') inRange = true;
    if (tok.type === 'range_end') inRange = false;
    tokens.push(tok);
    i = next;
  }
  tokens.push(token('eof', input.length, ''));
  return tokens;
}
