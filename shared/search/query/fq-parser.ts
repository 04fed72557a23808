// Recursive-descent parser for Solr filter queries, written after Lucene's classic QueryParser.jj:
//   Query  := Modifier? Clause ( Conjunction? Modifier? Clause )*
//   Clause := ( (TERM | '*') ':' )? ( Term | '(' Query ')' ('^' NUMBER)? )
//   Term   := (TERM | WILDTERM) FUZZY? ('^' NUMBER FUZZY?)? | QUOTED FUZZY? BOOST? | RANGE BOOST?
//   Range  := ('[' | '{') VALUE 'TO' VALUE (']' | '}')
// Clause occurrence follows QueryParser.addClause, which is what gives Lucene its odd but
// well-known precedence (`a AND b OR c` -> `+a +b c`, `a OR b AND c` -> `a +b +c`).
// Recursion happens only at '(' and is capped, so no input can overflow the stack.
import type { FqClause, FqLeaf, FqNode, FqOccur } from './fq-ast.js';
import { FilterSyntaxError, tokenize, type Token } from './fq-lexer.js';

export { FilterSyntaxError } from './fq-lexer.js';

export interface ParseFilterOptions {
  /** Field of clauses that name none (Solr's `df`); without it their `field` is `null`. */
  defaultField?: string;
  /** Occurrence of clauses joined by no operator (Solr's `q.op`). Default `OR`. */
  defaultOperator?: 'OR' | 'AND';
}

/** Deepest nesting of parentheses accepted. */
export const MAX_FILTER_DEPTH = 100;
/**
 * Longest wildcard pattern and most wildcard clauses in one filter. Matching one costs up to value
 * length × pattern length per document (see glob.ts); these keep that product, times the clauses,
 * small enough for the search's time budget to cover real filters.
 */
export const MAX_WILDCARD_CHARS = 256;
export const MAX_WILDCARDS = 16;

type Conj = 'none' | 'and' | 'or';
type Mod = 'none' | 'req' | 'not';

function found(tok: Token): string {
  return tok.type === 'eof' ? 'end of input' : `'${tok.raw}'`;
}

class Parser {
  private i = 0;
  private wildcards = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly defaultField: string | null,
    private readonly andByDefault: boolean,
  ) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const tok = this.peek();
    if (tok.type !== 'eof') this.i++;
    return tok;
  }

  private expect(type: Token['type'], expected: string): Token {
    const tok = this.peek();
    if (tok.type !== type) throw new FilterSyntaxError(tok.pos, expected, found(tok));
    return this.next();
  }

  parseTop(): FqNode {
    const node = this.parseQuery(this.defaultField, 0, '');
    const tok = this.peek();
    if (tok.type !== 'eof') {
      throw new FilterSyntaxError(tok.pos, tok.type === 'rparen' ? "end of input (this ')' closes no '(')" : 'end of input', found(tok));
    }
    return node;
  }

  private parseQuery(field: string | null, depth: number, context: string): FqNode {
    const clauses: FqClause[] = [];
    let first: FqNode | null = null;
    let conj: Conj = 'none';
    let after = context;
    for (;;) {
      const mod = this.parseModifier();
      if (mod !== 'none') after = `'${this.peek(-1).raw}'`;
      const node = this.parseClause(field, depth, after);
      this.addClause(clauses, conj, mod, node);
      if (clauses.length === 1 && mod === 'none') first = node;
      const tok = this.peek();
      if (tok.type === 'eof' || tok.type === 'rparen') break;
      conj = tok.type === 'and' ? 'and' : tok.type === 'or' ? 'or' : 'none';
      if (conj !== 'none') {
        this.next();
        after = `'${tok.raw}'`;
      } else after = '';
    }
    // Lucene returns a lone unmodified clause itself rather than a one-clause boolean.
    return clauses.length === 1 && first !== null ? first : { kind: 'bool', clauses };
  }

  private parseModifier(): Mod {
    const t = this.peek().type;
    if (t === 'plus') return (this.next(), 'req');
    if (t === 'minus' || t === 'not') return (this.next(), 'not');
    return 'none';
  }

  // QueryParser.addClause: a conjunction also rewrites the occurrence of the clause before it.
  private addClause(clauses: FqClause[], conj: Conj, mod: Mod, node: FqNode): void {
    const prev = clauses[clauses.length - 1];
    if (prev && conj === 'and' && prev.occur !== 'must_not') prev.occur = 'must';
    if (prev && this.andByDefault && conj === 'or' && prev.occur !== 'must_not') prev.occur = 'should';
    let occur: FqOccur;
    if (mod === 'not') occur = 'must_not';
    else if (mod === 'req') occur = 'must';
    else if (this.andByDefault) occur = conj === 'or' ? 'should' : 'must';
    else occur = conj === 'and' ? 'must' : 'should';
    clauses.push({ occur, node });
  }

  private parseClause(field: string | null, depth: number, after: string): FqNode {
    let tok = this.peek();
    let fieldPos: number | null = null;
    if (tok.type === 'term' && this.peek(1).type === 'colon') {
      if (tok.raw === '*') return this.parseMatchAll();
      if (tok.wildcard) throw new FilterSyntaxError(tok.pos, "a field name without '*' or '?' before ':'", found(tok));
      this.i += 2;
      field = tok.text;
      fieldPos = tok.pos;
      after = `'${tok.raw}:'`;
      tok = this.peek();
    }
    if (tok.type === 'lparen') {
      if (depth >= MAX_FILTER_DEPTH) {
        throw new FilterSyntaxError(tok.pos, `at most ${MAX_FILTER_DEPTH} nested groups`, "a deeper '('");
      }
      this.next();
      const node = this.parseQuery(field, depth + 1, "'('");
      this.expect('rparen', `')' to close the group opened at position ${tok.pos}`);
      const boost = this.parseBoost();
      if (boost !== undefined) node.boost = boost;
      return node;
    }
    return this.parseTerm(field, fieldPos ?? tok.pos, after);
  }

  private parseMatchAll(): FqNode {
    this.i += 2;
    const tok = this.peek();
    if (tok.type !== 'term' || tok.raw !== '*') {
      throw new FilterSyntaxError(tok.pos, "'*' after '*:' (only *:* may use the field '*')", found(tok));
    }
    this.next();
    const node: FqNode = { kind: 'all' };
    const boost = this.parseBoost();
    if (boost !== undefined) node.boost = boost;
    return node;
  }

  private parseBoost(): number | undefined {
    return this.peek().type === 'boost' ? this.next().num : undefined;
  }

  private parseTerm(field: string | null, pos: number, after: string): FqNode {
    const tok = this.next();
    let node: FqLeaf;
    if (tok.type === 'term') {
      if (tok.wildcard && tok.raw !== '*') this.countWildcard(tok);
      node = tok.wildcard
        ? tok.raw === '*'
          ? { kind: 'exists', field, pos }
          : { kind: 'wildcard', field, pos, pattern: tok.pattern }
        : { kind: 'term', field, pos, value: tok.text };
      this.parseFuzzy(node);
      const boost = this.parseBoost();
      if (boost !== undefined) {
        node.boost = boost;
        this.parseFuzzy(node);
      }
      return node;
    }
    if (tok.type === 'quoted') {
      node = { kind: 'phrase', field, pos, text: tok.text };
      if (this.peek().type === 'fuzzy') node.slop = Math.trunc(this.next().num ?? 0);
    } else if (tok.type === 'range_start') {
      node = this.parseRange(tok, field, pos);
    } else {
      const what = after === '' ? 'a value (term, phrase, range or group)' : `a value after ${after}`;
      throw new FilterSyntaxError(tok.pos, what, found(tok));
    }
    const boost = this.parseBoost();
    if (boost !== undefined) node.boost = boost;
    return node;
  }

  private countWildcard(tok: Token): void {
    if (tok.pattern.length > MAX_WILDCARD_CHARS) {
      throw new FilterSyntaxError(tok.pos, `a wildcard pattern of at most ${MAX_WILDCARD_CHARS} characters`, `one of ${tok.pattern.length}`);
    }
    if (++this.wildcards > MAX_WILDCARDS) {
      throw new FilterSyntaxError(tok.pos, `at most ${MAX_WILDCARDS} wildcard terms in one filter`, `wildcard term number ${this.wildcards}`);
    }
  }

  // Lucene ignores `~` on wildcards; on terms a bare `~` means the default of 2 edits.
  private parseFuzzy(node: FqLeaf): void {
    if (this.peek().type !== 'fuzzy') return;
    const num = this.next().num;
    if (node.kind === 'term') node.fuzzy = num ?? 2;
  }

  private parseRange(open: Token, field: string | null, pos: number): FqLeaf {
    const lower = this.expect('range_value', `a lower bound after '${open.raw}'`);
    this.expect('range_to', `'TO' after the lower bound '${lower.raw}'`);
    const upper = this.expect('range_value', "an upper bound after 'TO'");
    const close = this.expect('range_end', `']' or '}' to close the range opened at position ${open.pos}`);
    const bound = (t: Token): string | null => (!t.quoted && t.text === '*' ? null : t.text);
    return {
      kind: 'range', field, pos,
      lower: bound(lower), upper: bound(upper),
      includeLower: open.inclusive, includeUpper: close.inclusive,
    };
  }
}

/**
 * Parses a Solr filter query in the Lucene standard syntax. An empty or blank filter is `*:*`.
 * Throws FilterSyntaxError (with `position` and `expected`) for any input it cannot parse.
 */
export function parseFilter(input: string, options: ParseFilterOptions = {}): FqNode {
  const tokens = tokenize(input);
  if (tokens.length === 1) return { kind: 'all' };
  const parser = new Parser(tokens, options.defaultField ?? null, options.defaultOperator === 'AND');
  return parser.parseTop();
}
