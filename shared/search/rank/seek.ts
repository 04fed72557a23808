/** The first position >= `from` whose unit is >= `unit` in the ascending `postings` (galloping, then binary search). */
export function seek(postings: Int32Array, length: number, from: number, unit: number): number {
  if (from >= length || postings[from] >= unit) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < length && postings[hi] < unit) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > length) hi = length;
  // postings[lo] < unit; the answer is in (lo, hi].
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (postings[mid] < unit) lo = mid;
    else hi = mid;
  }
  return hi;
}
