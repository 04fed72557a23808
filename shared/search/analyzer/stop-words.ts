/**
 * Stop words per language, removed after lower-casing and before stemming (the lists are
 * written in lower-case, unstemmed, with their accents).
 *
 * English is Lucene's ENGLISH_STOP_WORDS_SET (33 words), because the SciFact reference
 * figure was measured with exactly that set; a longer list removes words that carry meaning
 * in queries ("between", "against", "most").
 * Most other European languages use the Snowball lists that Lucene's analyzers load too,
 * as shipped by @orama/stopwords (Apache-2.0); their Spanish list is not Snowball's and
 * holds content words (tiempo, trabajo, valor), so Spanish has a short function-word list here.
 * Chinese, Korean and Thai have none: segmentation already drops punctuation, and BM25's
 * IDF makes the frequent particles nearly free.
 */
import { stopwords as danish } from '@orama/stopwords/danish';
import { stopwords as dutch } from '@orama/stopwords/dutch';
import { stopwords as finnish } from '@orama/stopwords/finnish';
import { stopwords as french } from '@orama/stopwords/french';
import { stopwords as german } from '@orama/stopwords/german';
import { stopwords as italian } from '@orama/stopwords/italian';
import { stopwords as japanese } from '@orama/stopwords/japanese';
import { stopwords as norwegian } from '@orama/stopwords/norwegian';
import { stopwords as portuguese } from '@orama/stopwords/portuguese';
import { stopwords as russian } from '@orama/stopwords/russian';
import { stopwords as swedish } from '@orama/stopwords/swedish';

const ENGLISH_LUCENE = [
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not',
  'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was',
  'will', 'with',
];

const SPANISH = [
  'a', 'al', 'algo', 'ante', 'con', 'contra', 'cual', 'cuando', 'de', 'del', 'desde', 'donde', 'durante', 'e',
  'el', 'ella', 'ellas', 'ellos', 'en', 'entre', 'era', 'eran', 'es', 'esa', 'esas', 'ese', 'eso', 'esos',
  'esta', 'estaba', 'estas', 'este', 'esto', 'estos', 'está', 'están', 'fue', 'fueron', 'ha', 'han', 'hasta',
  'hay', 'la', 'las', 'le', 'les', 'lo', 'los', 'me', 'mi', 'mis', 'mucho', 'muy', 'más', 'nos', 'o', 'os',
  'otra', 'otro', 'para', 'pero', 'por', 'porque', 'que', 'quien', 'se', 'sea', 'ser', 'si', 'sin', 'sobre',
  'son', 'su', 'sus', 'también', 'te', 'tu', 'tus', 'un', 'una', 'unas', 'uno', 'unos', 'y', 'ya', 'yo',
  'él', 'sí',
];

const LISTS: Readonly<Record<string, readonly string[]>> = {
  en: ENGLISH_LUCENE,
  de: german,
  fr: french,
  es: SPANISH,
  it: italian,
  pt: portuguese,
  nl: dutch,
  sv: swedish,
  da: danish,
  no: norwegian,
  nb: norwegian,
  nn: norwegian,
  fi: finnish,
  ru: russian,
  ja: japanese,
};

const EMPTY: ReadonlySet<string> = new Set();
const cache = new Map<string, ReadonlySet<string>>();

/** The stop set of a language (empty when it has none); lists pass through NFKC + lower-case. */
export function stopWordsFor(language: string): ReadonlySet<string> {
  let set = cache.get(language);
  if (set === undefined) {
    const list = LISTS[language];
    set = list ? new Set(list.map((w) => w.normalize('NFKC').toLowerCase()).filter((w) => w.length > 0)) : EMPTY;
    cache.set(language, set);
  }
  return set;
}
