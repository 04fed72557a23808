import { makeVocabulary, prng, seedFor, zipfRank, type Vocabulary } from './search-corpus.js';

/**
 * The synthetic corpus of `npm run bench:capacity`: pages of SciFact's shape (a title and one
 * abstract-long paragraph, so one section each) in bench:search's Zipf vocabulary of real English
 * words, which the default embedder knows, so every section gets a vector and the search
 * interface's vector leg has work. Deterministic: document i is the same in every run, whatever
 * the size, so a million is the hundred thousand plus more.
 *
 * Lengths follow SciFact's corpus.jsonl (5,183 abstracts): titles of 7-19 words (median 12),
 * abstracts of 116-295 words between the 10th and 90th percentile (mean 202).
 */

/** Bump when a document or the way a data folder is seeded changes: seeded folders of another version are not reused. */
export const CAPACITY_CORPUS_VERSION = 1;

export const CAPACITY_VOCABULARY = { size: 50_000, zipf: 1.0 } as const;

export const capacityVocabulary = (): Vocabulary => makeVocabulary(CAPACITY_VOCABULARY.size, CAPACITY_VOCABULARY.zipf);

export interface CapacityDoc {
  uid: string;
  title: string;
  /** `<p>…</p>`: a page's HTML content, as document push takes it. */
  content: string;
}

/** Document `i`: a title of 7-19 words and a paragraph of 120-280 words, Zipf-drawn. */
export function capacityDoc(v: Vocabulary, i: number): CapacityDoc {
  const rand = prng(seedFor(3, i));
  const words = (n: number) => Array.from({ length: n }, () => v.words[zipfRank(v, rand)]).join(' ');
  const title = words(7 + Math.floor(rand() * 13));
  const text = words(120 + Math.floor(rand() * 161));
  return { uid: `s${i}`, title, content: `<p>${text[0].toUpperCase()}${text.slice(1)}.</p>` };
}
