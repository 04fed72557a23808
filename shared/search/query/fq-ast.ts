// The syntax tree of a Solr filter query (`fq`), shaped after Lucene's query classes so that a case
// from Lucene's own test suite can be checked by printing the tree in Lucene's notation.
// Values are kept as written (unescaped, not analyzed): analysis depends on the field's type in the
// index schema, which the parser does not know.

/** How a clause takes part in its boolean query: Lucene's BooleanClause.Occur. */
export type FqOccur = 'must' | 'should' | 'must_not';

export interface FqClause {
  occur: FqOccur;
  node: FqNode;
}

/**
 * A boolean query. Lucene semantics: every `must` clause matches, no `must_not` clause matches, and
 * when there is no `must` clause at least one `should` clause matches. A bool made only of `must_not`
 * clauses means "all documents except" (Solr adds the implicit `*:*` for purely negative queries).
 * Clauses keep their written order so the printer can reproduce Lucene's strings.
 */
export interface FqBool {
  kind: 'bool';
  clauses: FqClause[];
  boost?: number;
}

interface FqLeafBase {
  /** `null` only when the parser was given no default field and the clause named none. */
  field: string | null;
  /** 0-based offset of the clause (its field name, or its value when it has none) in the input. */
  pos: number;
  boost?: number;
}

export interface FqTerm extends FqLeafBase {
  kind: 'term';
  value: string;
  /** `term~` / `term~1` / `term~0.7`: a fuzzy term. A bare `~` is 2 (Lucene 4+ default edits). */
  fuzzy?: number;
}

export interface FqPhrase extends FqLeafBase {
  kind: 'phrase';
  text: string;
  /** `"a b"~3`: proximity. */
  slop?: number;
}

export interface FqWildcard extends FqLeafBase {
  kind: 'wildcard';
  /** `*` and `?` are wildcards; a literal `*`, `?` or `\` is escaped with `\` (WildcardQuery's convention). */
  pattern: string;
}

export interface FqRange extends FqLeafBase {
  kind: 'range';
  /** `null` for an open end (`*`). Raw text: numbers, strings or Solr date math, by the field's type. */
  lower: string | null;
  upper: string | null;
  includeLower: boolean;
  includeUpper: boolean;
}

/** `field:*`: documents that have a value in the field. */
export interface FqExists extends FqLeafBase {
  kind: 'exists';
}

/** `*:*`, or an empty filter. */
export interface FqAll {
  kind: 'all';
  boost?: number;
}

export type FqLeaf = FqTerm | FqPhrase | FqWildcard | FqRange | FqExists;
export type FqNode = FqBool | FqLeaf | FqAll;

// Java's Float.toString for the boosts that occur in practice: Lucene prints 2 as "2.0".
function formatBoost(boost: number): string {
  return Number.isInteger(boost) ? `${boost}.0` : String(boost);
}

function boostSuffix(node: FqNode): string {
  return node.boost !== undefined && node.boost !== 1 ? `^${formatBoost(node.boost)}` : '';
}

function fieldPrefix(field: string | null, defaultField: string | undefined): string {
  return field === null || field === defaultField ? '' : `${field}:`;
}

function leafToString(node: FqLeaf, defaultField: string | undefined): string {
  const prefix = fieldPrefix(node.field, defaultField);
  switch (node.kind) {
    case 'term':
      return `${prefix}${node.value}${node.fuzzy !== undefined ? `~${node.fuzzy}` : ''}`;
    case 'phrase':
      return `${prefix}"${node.text}"${node.slop !== undefined && node.slop !== 0 ? `~${node.slop}` : ''}`;
    case 'wildcard':
      return `${prefix}${node.pattern}`;
    case 'exists':
      return `${prefix}*`;
    case 'range': {
      const open = node.includeLower ? '[' : '{';
      const close = node.includeUpper ? ']' : '}';
      return `${prefix}${open}${node.lower ?? '*'} TO ${node.upper ?? '*'}${close}`;
    }
  }
}

function boolToString(node: FqBool, defaultField: string | undefined): string {
  const parts = node.clauses.map(({ occur, node: child }) => {
    const sign = occur === 'must' ? '+' : occur === 'must_not' ? '-' : '';
    const inner = toLuceneString(child, defaultField);
    return sign + (child.kind === 'bool' ? `(${inner})` : inner);
  });
  const body = parts.join(' ');
  // Lucene 3's BooleanQuery.toString parenthesises itself when boosted, so nesting prints "((a b)^2.0)".
  return node.boost !== undefined && node.boost !== 1 ? `(${body})${boostSuffix(node)}` : body;
}

/**
 * Prints a tree in Lucene's Query.toString(defaultField) notation (Lucene 3 / Lucene++ flavour):
 * `+a -b c`, `field:"x y"~2`, `field:[a TO *}`, `(nested bool)`, `*:*`, boosts as `^2.0`.
 * Like Lucene it does not escape values, so the output is for reading and comparing, not re-parsing.
 */
export function toLuceneString(node: FqNode, defaultField?: string): string {
  switch (node.kind) {
    case 'all':
      return `*:*${boostSuffix(node)}`;
    case 'bool':
      return boolToString(node, defaultField);
    default:
      return leafToString(node, defaultField) + boostSuffix(node);
  }
}

/** Every leaf of a tree, in input order: what a schema check walks to find unknown fields. */
export function leavesOf(node: FqNode): FqLeaf[] {
  if (node.kind === 'all') return [];
  if (node.kind !== 'bool') return [node];
  return node.clauses.flatMap((c) => leavesOf(c.node));
}
