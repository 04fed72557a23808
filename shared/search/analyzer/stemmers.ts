/**
 * Stemmers per language, all Snowball algorithms from `snowball-stemmers` (ISC, a
 * JavaScript translation of the Snowball Java stemmers that Lucene's SnowballFilter uses).
 *
 * English uses the original Porter algorithm, not Snowball's "english" (Porter2): Lucene's
 * EnglishAnalyzer applies PorterStemFilter, and the SciFact reference figure we must reach
 * was measured with it. The two differ on words like "generalization" (gener / general).
 * It runs on our own Snowball machine (porter-stemmer.ts): the same stems, 13x faster.
 * Norwegian Bokmål and Nynorsk share the Snowball Norwegian stemmer, as in Lucene.
 * Chinese, Japanese, Korean and Thai are not stemmed (no inflection to strip, or
 * none that a suffix stripper could handle).
 */
import snowball from 'snowball-stemmers';
import { porterStem } from './porter-stemmer.js';

export type Stem = (term: string) => string;

const ALGORITHM: Readonly<Record<string, string>> = {
  en: 'porter',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  sv: 'swedish',
  da: 'danish',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  fi: 'finnish',
  ru: 'russian',
};

// Tokens this long are identifiers, hashes or junk rather than inflected words; stemming them
// would only cost time.
const MAX_STEM_INPUT = 64;

/**
 * The stemmer of a language, or undefined when the language is not stemmed. Not memoised here: the
 * analyzer remembers what each token becomes, stemming included.
 */
export function stemmerFor(language: string): Stem | undefined {
  const algorithm = ALGORITHM[language];
  if (algorithm === undefined) return undefined;
  if (algorithm === 'porter') return (term) => (term.length > MAX_STEM_INPUT ? term : porterStem(term));
  const stemmer = snowball.newStemmer(algorithm);
  // The stemmer keeps its working buffer on the instance; it is synchronous, so sharing one
  // instance between callers is safe in a single-threaded process.
  return (term) => (term.length > MAX_STEM_INPUT ? term : stemmer.stem(term));
}
