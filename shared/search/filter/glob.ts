// Wildcard (`*`, `?`) matching without regular expressions. A backtracking regex built from a
// pattern such as `*?*?*?*?Q` tries every way to split the value among the stars: exponential in
// their number (an 80-character value kept a process busy for minutes). Here `*` is matched
// greedily and, on a mismatch, only the most recent star takes one more character: at most
// value length × pattern length steps, whatever the pattern.

/** One code point of a pattern (as a number), ANY (`?`: any one code point) or STAR (`*`: any run, empty included). */
type GlobToken = number;
const ANY = -1;
const STAR = -2;

export interface Glob {
  readonly tokens: Int32Array;
}

/** Work reported in steps to `onSteps` at least this often, so a caller can cut a long match off. */
const REPORT_EVERY = 65_536;

/** A pattern in WildcardQuery form (`\*`, `\?` and `\\` are literals), compiled once per filter. */
export function compileGlob(pattern: string): Glob {
  const tokens: GlobToken[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\' && i + 1 < chars.length) tokens.push(chars[++i].codePointAt(0)!);
    // Consecutive stars match what one does: keeping one keeps the step bound tight.
    else if (c === '*') {
      if (tokens[tokens.length - 1] !== STAR) tokens.push(STAR);
    } else tokens.push(c === '?' ? ANY : c.codePointAt(0)!);
  }
  return { tokens: Int32Array.from(tokens) };
}

/** The code point at `i` (a lone surrogate stands for itself); its width is 2 when above 0xFFFF. */
function codePointAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) return c;
  const d = s.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff ? ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000 : c;
}

/**
 * Whether the whole of `text` matches. `onSteps(n)` hears of the work done (in chunks and at the
 * end); it may throw to stop a match that has run too long.
 */
export function globMatches(glob: Glob, text: string, onSteps?: (steps: number) => void): boolean {
  const p = glob.tokens;
  const n = text.length;
  let t = 0;
  let k = 0;
  let starK = -1;
  let starT = 0;
  let steps = 0;
  try {
    while (t < n) {
      if (onSteps && ++steps === REPORT_EVERY) {
        steps = 0;
        onSteps(REPORT_EVERY);
      }
      const tok = k < p.length ? p[k] : STAR - 1;
      const cp = codePointAt(text, t);
      if (tok === ANY || tok === cp) {
        t += cp > 0xffff ? 2 : 1;
        k++;
      } else if (tok === STAR) {
        starK = k++;
        starT = t;
      } else if (starK >= 0) {
        // The last star takes one more code point; everything after it is matched again from there.
        starT += codePointAt(text, starT) > 0xffff ? 2 : 1;
        t = starT;
        k = starK + 1;
      } else return false;
    }
    while (k < p.length && p[k] === STAR) k++;
    return k === p.length;
  } finally {
    if (onSteps && steps > 0) onSteps(steps);
  }
}
