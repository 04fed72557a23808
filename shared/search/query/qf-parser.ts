/**
 * Solr DisMax `qf`: whitespace-separated fields, each with an optional boost, e.g. `title^2 body^1`.
 * A field without `^n` has boost 1, as in Solr. Errors carry the 0-based position so the API's 400
 * can point at the mistake.
 */
export interface FieldBoost {
  field: string;
  boost: number;
}

export class BoostingSyntaxError extends Error {
  constructor(readonly position: number, readonly expected: string, found: string) {
    super(`Invalid boosting at position ${position}: expected ${expected} but found ${found}`);
    this.name = 'BoostingSyntaxError';
  }
}

const FIELD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;

const describe = (s: string, at: number) => (at >= s.length ? 'end of input' : `'${s[at]}'`);

export function parseBoosting(input: string): FieldBoost[] {
  const out: FieldBoost[] = [];
  const seen = new Map<string, number>();
  let i = 0;
  const skipSpace = () => {
    while (i < input.length && /\s/.test(input[i])) i++;
  };
  skipSpace();
  if (i >= input.length) throw new BoostingSyntaxError(i, 'a field name such as title^2', 'end of input');
  while (i < input.length) {
    FIELD.lastIndex = i;
    const field = FIELD.exec(input)?.[0];
    if (!field) throw new BoostingSyntaxError(i, 'a field name', describe(input, i));
    const start = i;
    i += field.length;
    let boost = 1;
    if (input[i] === '^') {
      i++;
      NUMBER.lastIndex = i;
      const num = NUMBER.exec(input)?.[0];
      if (!num) throw new BoostingSyntaxError(i, `a number after '${field}^'`, describe(input, i));
      boost = Number(num);
      if (!Number.isFinite(boost) || boost < 0) throw new BoostingSyntaxError(i, 'a finite, non-negative boost', num);
      i += num.length;
    }
    if (i < input.length && !/\s/.test(input[i])) throw new BoostingSyntaxError(i, "whitespace or '^' after a field", describe(input, i));
    // Solr keeps the last boost given for a repeated field; say so rather than guess silently.
    if (seen.has(field)) throw new BoostingSyntaxError(start, `each field once ('${field}' repeats)`, `'${field}'`);
    seen.set(field, out.length);
    out.push({ field, boost });
    skipSpace();
  }
  return out;
}
