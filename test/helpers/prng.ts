/** mulberry32: a small seeded PRNG, so a fuzz failure names its seed and replays. Floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The PRNG of input number `index` of a run seeded with `seed`: every input replays alone from (seed, index),
 * so a long fuzz run can be split into ranges, resumed, and a failure reproduced without its predecessors.
 */
export function inputRand(seed: number, index: number): () => number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return prng((h ^ (h >>> 16)) >>> 0);
}
