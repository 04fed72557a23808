/**
 * The synthetic corpus and query list of `npm run bench:search`, fully deterministic (seeded PRNG).
 *
 * Words are pronounceable three-syllable consonant-vowel strings ("bakomu"): no vowel e or y and
 * always a vowel at the end, so the English stemmer leaves them alone and no word is a stopword.
 * Word frequencies follow a Zipf law over the vocabulary ranks.
 */

/** mulberry32: a small, fast, seeded 32-bit PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A well-mixed 32-bit seed for item `i` of stream `stream` (so documents can be made in any order). */
export function seedFor(stream: number, i: number): number {
  let h = Math.imul(stream ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

const CONSONANTS = 'bdfghjklmnprstvz'; // 16
const VOWELS = 'aiou'; // 4 -> 64 syllables, 64^3 = 262,144 distinct words

/** The word of vocabulary rank `r` (0 = most frequent); a bijection for r < 262,144. */
export function wordOf(r: number): string {
  let s = '';
  let n = r;
  for (let k = 0; k < 3; k++) {
    const syl = n % 64;
    n = Math.floor(n / 64);
    s += CONSONANTS[syl >> 2] + VOWELS[syl & 3];
  }
  return s;
}

export interface Vocabulary {
  words: string[];
  /** Cumulative Zipf probabilities by rank (last = 1). */
  cdf: Float64Array;
  exponent: number;
}

export function makeVocabulary(size: number, exponent: number): Vocabulary {
  if (size > 64 ** 3) throw new Error(`vocabulary of at most ${64 ** 3} words`);
  const words = Array.from({ length: size }, (_, r) => wordOf(r));
  const cdf = new Float64Array(size);
  let sum = 0;
  for (let r = 0; r < size; r++) cdf[r] = sum += 1 / (r + 1) ** exponent;
  for (let r = 0; r < size; r++) cdf[r] /= sum;
  cdf[size - 1] = 1;
  return { words, cdf, exponent };
}

/** A Zipf-distributed rank in [lo, hi) (the distribution restricted to that range). */
export function zipfRank(v: Vocabulary, rand: () => number, lo = 0, hi = v.words.length): number {
  const base = lo === 0 ? 0 : v.cdf[lo - 1];
  const u = base + rand() * (v.cdf[hi - 1] - base);
  let a = lo;
  let b = hi - 1;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (v.cdf[m] < u) a = m + 1;
    else b = m;
  }
  return a;
}

export const CATEGORIES = 20;

export interface SynthDoc {
  uid: string;
  fields: { title: string; body: string; category: string; price: number; year: number; published: string };
}

/** Document `i` of the corpus: a title of 3-8 words, a body of 80-120 words, typed fields. */
export function makeDoc(v: Vocabulary, i: number): SynthDoc {
  const rand = prng(seedFor(1, i));
  const words = (n: number) => Array.from({ length: n }, () => v.words[zipfRank(v, rand)]).join(' ');
  const title = words(3 + Math.floor(rand() * 6));
  const body = words(80 + Math.floor(rand() * 41));
  const year = 2000 + Math.floor(rand() * 26);
  const month = 1 + Math.floor(rand() * 12);
  const day = 1 + Math.floor(rand() * 28);
  return {
    uid: `d${i}`,
    fields: {
      title, body,
      category: `c${Math.floor(rand() * CATEGORIES)}`,
      price: Math.round((1 + rand() * 999) * 100) / 100,
      year,
      published: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    },
  };
}

export interface Query {
  terms: [string, string];
  ranks: [number, number];
}

/**
 * `n` two-term queries: one term from ranks [0, 1000) and one from [1000, 20000), each drawn with
 * the Zipf weights restricted to its range (popular words are queried more often), in random order.
 */
export function makeQueries(v: Vocabulary, n: number, seed = 7): Query[] {
  const rand = prng(seedFor(2, seed));
  const hiRange = Math.min(20_000, v.words.length);
  const out: Query[] = [];
  for (let i = 0; i < n; i++) {
    const a = zipfRank(v, rand, 0, 1000);
    const b = zipfRank(v, rand, 1000, hiRange);
    const pair: [number, number] = rand() < 0.5 ? [a, b] : [b, a];
    out.push({ terms: [v.words[pair[0]], v.words[pair[1]]], ranks: pair });
  }
  return out;
}
