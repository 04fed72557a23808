/**
 * The best `k` units by score, best first (ties: lower unit id first), without sorting every match:
 * a bounded min-heap keeps the current top k while the matches stream past.
 */
export function topUnits(units: ArrayLike<number> & Iterable<number>, scores: Float64Array, k: number): number[] {
  if (units.length <= k) return Array.from(units).sort((a, b) => scores[b] - scores[a] || a - b);
  const heap: number[] = [];
  // "worse" = lower score, or equal score and higher id: the heap's root is the worst kept unit.
  const worse = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (const u of units) {
    if (heap.length < k) {
      heap.push(u);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i], heap[p])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (worse(heap[0], u)) {
      heap[0] = u;
      down(0);
    }
  }
  return heap.sort((a, b) => scores[b] - scores[a] || a - b);
}
