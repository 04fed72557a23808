/**
 * The best `k` units by score, best first (ties: lower unit id first), without sorting every match:
 * a bounded min-heap (a typed array) keeps the current top k while the matches stream past. With
 * `ordered` false the same units come in no particular order (a caller that only needs the set skips the sort).
 */
export function topUnits(units: ArrayLike<number> & Iterable<number>, scores: Float64Array, k: number, ordered = true): number[] {
  if (units.length <= k) return ordered ? Array.from(units).sort((a, b) => scores[b] - scores[a] || a - b) : Array.from(units);
  const heap = new Int32Array(k);
  let size = 0;
  // "worse" = lower score, or equal score and higher id: the heap's root is the worst kept unit.
  for (let n = 0; n < units.length; n++) {
    const u = units[n];
    const su = scores[u];
    if (size < k) {
      let i = size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        const sp = scores[heap[p]];
        if (!(su < sp || (su === sp && u > heap[p]))) break;
        heap[i] = heap[p];
        i = p;
      }
      heap[i] = u;
      continue;
    }
    const root = heap[0];
    const sr = scores[root];
    if (!(sr < su || (sr === su && root > u))) continue;
    // Sift the new unit down from the root.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= k) break;
      const r = l + 1;
      let m = l;
      if (r < k) {
        const sl = scores[heap[l]];
        const sr2 = scores[heap[r]];
        if (sr2 < sl || (sr2 === sl && heap[r] > heap[l])) m = r;
      }
      const sm = scores[heap[m]];
      if (!(sm < su || (sm === su && heap[m] > u))) break;
      heap[i] = heap[m];
      i = m;
    }
    heap[i] = u;
  }
  return ordered ? Array.from(heap).sort((a, b) => scores[b] - scores[a] || a - b) : Array.from(heap);
}
