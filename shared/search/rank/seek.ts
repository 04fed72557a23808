/**
 * The first position >= `from` whose unit is >= `unit` in the ascending `postings`. A jump past the next
 * posting starts at the place the list's spread suggests (units are near evenly spread over a list at this
 * scale), gallops from there in steps that double, and ends in a binary search: a seek far into a long list
 * reads a few of its cache lines instead of the twenty a gallop from `from` reads.
 */
export function seek(postings: Int32Array, length: number, from: number, unit: number): number {
  if (from >= length || postings[from] >= unit) return from;
  let lo = from;
  let hi = from + 1;
  if (hi < length && postings[hi] < unit) {
    const last = postings[length - 1];
    if (last < unit) return length;
    const first = postings[from];
    const guess = from + Math.floor(((unit - first) / (last - first)) * (length - 1 - from));
    if (guess > hi && postings[guess] >= unit) {
      // Past the unit: back from the guess in doubling steps until before it (`from + 1` is).
      lo = hi;
      hi = guess;
      let at = guess - 1;
      for (let step = 1; at > lo && postings[at] >= unit; step *= 2, at = guess - step) hi = at;
      if (at > lo) lo = at;
    } else {
      // Before the unit: out in doubling steps from the guess, or from the next posting when the guess is no further.
      const base = guess > hi ? guess : hi;
      lo = base;
      hi = base + 1;
      for (let step = 1; hi < length && postings[hi] < unit; step *= 2, hi = base + step) lo = hi;
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
