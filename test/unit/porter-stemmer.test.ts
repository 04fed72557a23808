// Our Porter machine against the program snowball-stemmers generated from porter.sbl: one stem
// differing would change which documents a query matches, and the SciFact figures with them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import snowball from 'snowball-stemmers';
import { describe, expect, it } from 'vitest';
import { normalizeText } from '../../shared/search/analyzer/normalize.js';
import { porterStem } from '../../shared/search/analyzer/porter-stemmer.js';
import { tokenizeWords } from '../../shared/search/analyzer/tokenize-words.js';
import { SHARED_DATA } from '../helpers/python-docs.js';

const reference = snowball.newStemmer('porter');

describe('the Porter stemmer', () => {
  it("gives snowball-stemmers' stem for every token of SciFact and its queries", () => {
    const words = new Set<string>();
    for (const file of ['scifact/corpus.jsonl', 'scifact/queries.dev.jsonl']) {
      for (const token of tokenizeWords(normalizeText(readFileSync(join(SHARED_DATA, file), 'utf8')), (run) => [run])) words.add(token);
    }
    expect(words.size).toBeGreaterThan(40_000);
    const differ = [...words].filter((w) => porterStem(w) !== reference.stem(w));
    expect(differ).toEqual([]);
  });

  it('gives the same stem for random strings of letters (consonant y too), digits, apostrophes and accents', () => {
    const alphabet = "aeiouyYbcdfghlmnprstvwxzkjq'.0123é-";
    let seed = 20261129;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 100_000; i++) {
      let word = '';
      const length = 1 + Math.floor(random() * 12);
      // Mostly lower-case letters, where the rules apply; every third character from the whole alphabet.
      for (let j = 0; j < length; j++) word += alphabet[Math.floor(random() * (j % 3 === 0 ? alphabet.length : 27))];
      expect(porterStem(word), word).toBe(reference.stem(word));
    }
  });

  it('stems as the Porter algorithm does', () => {
    const cases: [string, string][] = [
      ['caresses', 'caress'], ['ponies', 'poni'], ['feed', 'feed'], ['agreed', 'agre'], ['plastered', 'plaster'],
      ['motoring', 'motor'], ['hopping', 'hop'], ['filing', 'file'], ['happy', 'happi'], ['relational', 'relat'],
      ['generalization', 'gener'], ['electriciti', 'electr'], ['adjustable', 'adjust'], ['controll', 'control'],
      ['yelling', 'yell'], ['sayings', 'sai'], ['s', ''], ['', ''],
    ];
    for (const [word, stem] of cases) expect(porterStem(word), word).toBe(stem);
  });
});
