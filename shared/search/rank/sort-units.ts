/** Below this many units the engine's own sort is faster than the passes and their counts. */
const RADIX_MIN = 4096;
const DIGIT_BITS = 11;
const DIGITS = 1 << DIGIT_BITS;

/**
 * Sorts unit ids (non-negative int32) ascending, in place, and returns them. Long runs are sorted by
 * least-significant-digit radix (11 bits a pass, as many passes as the largest id needs: two below
 * 4 million units): at a million sections a pruned search sorts tens of thousands of candidates, and
 * the comparison sort of a typed array was a tenth of the search's time there.
 */
export function sortUnits(units: Int32Array): Int32Array {
  const n = units.length;
  if (n < RADIX_MIN) return units.sort();
  let max = 0;
  for (let i = 0; i < n; i++) if (units[i] > max) max = units[i];
  let from: Int32Array = units;
  let to: Int32Array = new Int32Array(n);
  const counts = new Int32Array(DIGITS);
  for (let shift = 0; shift === 0 || max >>> shift > 0; shift += DIGIT_BITS) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(from[i] >>> shift) & (DIGITS - 1)]++;
    for (let d = 0, at = 0; d < DIGITS; d++) {
      const c = counts[d];
      counts[d] = at;
      at += c;
    }
    for (let i = 0; i < n; i++) {
      const u = from[i];
      to[counts[(u >>> shift) & (DIGITS - 1)]++] = u;
    }
    [from, to] = [to, from];
  }
  if (from !== units) units.set(from);
  return units;
}
