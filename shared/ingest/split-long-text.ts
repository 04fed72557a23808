// Splits text into pieces of at most `max` chars (UTF-16 units). Boundaries are tried in order
// paragraph ("\n\n"), line, sentence end, space — first only in the upper half of the window so
// a boundary near the start does not yield a tiny piece, then anywhere. A hard cut happens only
// when the window holds no whitespace at all (one "word" longer than the limit).
// Index-based (no repeated slicing of the remainder, boundaries sought in the window only) so
// multi-MB texts stay linear.

const SENTENCE_ENDS = ['. ', '? ', '! '];

function findCut(text: string, start: number, max: number): [end: number, next: number] {
  const limit = start + max;
  // Boundaries are looked for in this window only (a boundary may start at `limit` and run 2 past):
  // lastIndexOf on the whole text would scan back to its beginning whenever the window has none,
  // which made text without breaks quadratic (5 MB took minutes).
  const win = text.slice(start, limit + 2);
  const from = max;
  for (const floor of [Math.max(1, max >> 1), 1]) {
    let i = win.lastIndexOf('\n\n', from);
    if (i >= floor) return [start + i, start + i + 2];
    i = win.lastIndexOf('\n', from);
    if (i >= floor) return [start + i, start + i + 1];
    i = -1;
    for (const s of SENTENCE_ENDS) i = Math.max(i, win.lastIndexOf(s, from - 1));
    if (i >= floor) return [start + i + 1, start + i + 2];
    i = win.lastIndexOf(' ', from);
    if (i >= floor) return [start + i, start + i + 1];
  }
  let cut = limit;
  const c = text.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff && cut - 1 > start) cut--; // don't split a surrogate pair
  return [cut, cut];
}

function skipBlankLines(text: string, start: number): number {
  for (;;) {
    let j = start;
    while (text[j] === ' ' || text[j] === '\t') j++;
    if (text[j] !== '\n') return start;
    start = j + 1;
  }
}

export function splitLongText(text: string, max: number): string[] {
  if (text.length <= max) return text ? [text] : [];
  const out: string[] = [];
  let start = skipBlankLines(text, 0);
  while (text.length - start > max) {
    const [end, next] = findCut(text, start, max);
    const piece = text.slice(start, end).trimEnd();
    if (piece) out.push(piece);
    start = skipBlankLines(text, next);
  }
  const last = text.slice(start).trimEnd();
  if (last) out.push(last);
  return out;
}
