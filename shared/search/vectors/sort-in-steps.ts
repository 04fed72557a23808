/**
 * Sorts `items` in place by `compare`, stably (as Array.prototype.sort), yielding after about `step`
 * comparisons: a bottom-up merge sort, so a sort of a million items with a costly comparison (uids as
 * strings) hands the event loop over instead of holding it for most of a second.
 */
export function* sortInSteps(items: Int32Array, compare: (a: number, b: number) => number, step = 20_000): Generator<void, void, void> {
  const n = items.length;
  let from = items;
  let to: Int32Array = new Int32Array(n);
  let done = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      // Ties take the left run's item first: stable.
      while (i < mid && j < hi) to[k++] = compare(from[j], from[i]) < 0 ? from[j++] : from[i++];
      while (i < mid) to[k++] = from[i++];
      while (j < hi) to[k++] = from[j++];
      done += hi - lo;
      if (done >= step) {
        done = 0;
        yield;
      }
    }
    [from, to] = [to, from];
  }
  if (from !== items) items.set(from);
}
