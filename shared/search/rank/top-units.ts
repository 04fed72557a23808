/**
 * From this many candidates on, when k is a sizeable part of them, the k-th best score is found by
 * selection instead of a heap. The IVF probe picks ~256 of ~7,800 lists at a million sections: the heap
 * took 90 µs a query on random scores and 480 µs on scores rising with the list number (lists of one
 * coarse cluster are neighbours, so the probe's are), selection 16-27 µs; ~0.08 ms of a 1M search timed in the API.
 */
const SELECT_MIN_UNITS = 2048;
const SELECT_MIN_K = 32;

/**
 * The best `k` units by score, best first (ties: lower unit id first), without sorting every match:
 * a bounded min-heap (a typed array) keeps the current top k while the matches stream past, or, for
 * many candidates and a large k, the k-th best score is selected and the units above it taken. With
 * `ordered` false the same units come in no particular order (a caller that only needs the set skips the sort).
 */
export function topUnits(units: ArrayLike<number> & Iterable<number>, scores: Float64Array, k: number, ordered = true): number[] {
  const byScore = (a: number, b: number) => scores[b] - scores[a] || a - b;
  if (units.length <= k) return ordered ? Array.from(units).sort(byScore) : Array.from(units);
  if (units.length >= SELECT_MIN_UNITS && k >= SELECT_MIN_K) {
    const selected = selectTop(units, scores, k);
    if (selected) return ordered ? selected.sort(byScore) : selected;
  }
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
  return ordered ? Array.from(heap).sort(byScore) : Array.from(heap);
}

let values = new Float64Array(0);
let kept = new Int32Array(0);
/** Scores sampled to guess a threshold that about twice k units pass. */
const SAMPLE = 512;

/**
 * The units the heap would keep, in no order: those scoring above the k-th best score, then those at
 * it by lower id. Null when a score is NaN (no order to select by; the heap decides as it always did).
 * A first pass keeps only the units at or above a threshold guessed from a sample of the scores (about
 * 2k of them): when at least k pass, the k-th best is among them, so selecting there is exact; else all are kept.
 */
function selectTop(units: ArrayLike<number>, scores: Float64Array, k: number): number[] | null {
  const n = units.length;
  if (values.length < n) {
    values = new Float64Array(Math.max(n, 2 * values.length));
    kept = new Int32Array(values.length);
  }
  let m = 0;
  if (n >= 4 * SAMPLE) {
    const step = n / SAMPLE;
    for (let i = 0; i < SAMPLE; i++) values[i] = scores[units[Math.floor(i * step)]];
    const guess = kthLargest(values, SAMPLE, Math.min(SAMPLE, Math.ceil((2 * k * SAMPLE) / n)));
    for (let i = 0; i < n; i++) {
      const u = units[i];
      const s = scores[u];
      if (s >= guess) kept[m++] = u;
      else if (s !== s) return null;
    }
  }
  if (m < k) {
    m = n;
    for (let i = 0; i < n; i++) kept[i] = units[i];
  }
  for (let i = 0; i < m; i++) {
    const s = scores[kept[i]];
    if (s !== s) return null;
    values[i] = s;
  }
  const kth = kthLargest(values, m, k);
  const out: number[] = [];
  const tied: number[] = [];
  for (let i = 0; i < m; i++) {
    const u = kept[i];
    const s = scores[u];
    if (s > kth) out.push(u);
    else if (s === kth) tied.push(u);
  }
  if (out.length < k) {
    tied.sort((a, b) => a - b);
    for (let i = 0; out.length < k; i++) out.push(tied[i]);
  }
  return out;
}
/** The k-th largest of a[0 .. n) (1-based k), reordering a: quickselect, Hoare's partition, median-of-three pivots. */
function kthLargest(a: Float64Array, n: number, k: number): number {
  const target = k - 1;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const x = a[lo];
    const y = a[(lo + hi) >>> 1];
    const z = a[hi];
    const pivot = x > y ? (y > z ? y : x > z ? z : x) : (x > z ? x : y > z ? z : y);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    // a[lo .. j] >= pivot >= a[i .. hi]; between them, the pivot's value.
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return pivot;
  }
  return a[target];
}
