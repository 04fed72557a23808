/**
 * The first position >= `from` whose unit is >= `unit` in the ascending `postings`. A jump of more than a
 * few postings starts at the place the list's spread suggests (units are near evenly spread over a list
 * at this scale), then gallops from there, out in steps that double, and ends in a binary search: a seek
 * far into a long list reads a few of its cache lines instead of the twenty a gallop from `from` reads.
 */
export function seek(postings: Int32Array, length: number, from: number, unit: number): number {
  if (from >= length || postings[from] >= unit) return from;
  let lo = from;
  let hi = from + 1;
  if (hi < length && postings[hi] < unit) {
    // Beyond the next posting: guess where the unit falls between here and the list's end.
    const last = postings[length - 1];
    if (last < unit) return length;
    const first = postings[from];
    const guess = from + Math.floor(((unit - first) / (last - first)) * (length - 1 - from));
    if (guess > hi) {
      if (postings[guess] < unit) {
        lo = guess;
        // Out from the guess in doubling steps until past the unit.
        let step = 1;
        hi = guess + 1;
        while (hi < length && postings[hi] < unit) {
          lo = hi;
          step *= 2;
          hi = guess + step;
        }
        if (hi > length) hi = length;
      } else {
        hi = guess;
        // Back from the guess in doubling steps until before the unit (`from` is).
        let step = 1;
        let at = guess - 1;
        while (at > lo && postings[at] >= unit) {
          hi = at;
          step *= 2;
          at = guess - step;
        }
        if (at > lo) lo = at;
      }
    } else {
      let step = 1;
      lo = hi;
      hi = from + 2;
      while (hi < length && postings[hi] < unit) {
        lo = hi;
        step *= 2;
        hi = from + 1 + step;
      }
      if (hi > length) hi = length;
    }
  }
  // postings[lo] < unit <= postings[hi] (or hi === length); the answer is in (lo, hi].
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (postings[mid] < unit) lo = mid;
    else hi = mid;
  }
  return hi;
}
