/**
 * Character-level normalization shared by every language's chain.
 *
 * Two separate steps because they must run at different points of the chain:
 * - `normalizeText` runs first, on the whole text, so the tokenizer and the stop-word
 *   lists see one canonical form (full-width Latin, ligatures and compatibility forms
 *   become plain letters; case no longer matters).
 * - `foldAccents` runs last, on each term, after stemming. The Snowball stemmers rely on
 *   diacritics to find suffixes (Spanish "-ación", French "-é", German umlauts and ß,
 *   which the German stemmer itself rewrites to a/o/u/ss), so folding earlier would
 *   change their output; folding afterwards still lets "cafe" meet "café".
 */

// NFKC splits Thai SARA AM (ำ) and Lao AM (ຳ) into NIKHAHIT + SARA AA, a spelling no Thai
// dictionary knows: ICU would then cut words apart ("ระหว่าง" -> "ระ", "หว่าง").
const SPLIT_AM = /\u0e4d\u0e32|\u0ecd\u0eb2/g;
const rejoinAm = (pair: string): string => (pair === '\u0e4d\u0e32' ? '\u0e33' : '\u0eb3');

/** NFKC then lower-case; locale-independent so the result never depends on the host. */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(SPLIT_AM, rejoinAm);
}

// Letters with no canonical decomposition, so NFD alone would leave them untouched.
const SPECIAL_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss', ẞ: 'ss', œ: 'oe', æ: 'ae', ø: 'o', đ: 'd', ð: 'd', ł: 'l', ħ: 'h', ı: 'i', þ: 'th', ŀ: 'l',
};

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const LATIN_BASE = /^\p{Script=Latin}$/u;
const COMBINING = /\p{M}/gu;

/**
 * Removes diacritics from Latin-script letters only. Other scripts keep their marks on
 * purpose: stripping them from Cyrillic й, Japanese が/ぱ or Thai vowels would merge
 * unrelated words. `keep` lists letters that are distinct letters of the index language
 * (Swedish å ä ö, Danish/Norwegian æ ø å), which Lucene's analyzers for those languages
 * never fold either.
 */
export function foldAccents(term: string, keep?: ReadonlySet<string>): string {
  if (ASCII_ONLY.test(term)) return term;
  let out = '';
  for (const ch of term) {
    if (ch.charCodeAt(0) < 0x80 || keep?.has(ch)) {
      out += ch;
      continue;
    }
    const special = SPECIAL_FOLDS[ch];
    if (special !== undefined) {
      out += special;
      continue;
    }
    const decomposed = ch.normalize('NFD');
    if (decomposed.length > 1 && LATIN_BASE.test(String.fromCodePoint(decomposed.codePointAt(0)!))) {
      out += decomposed.replace(COMBINING, '');
    } else {
      out += ch;
    }
  }
  return out;
}

/** Letters that stay as they are per language (see `foldAccents`). */
export function lettersKeptFor(language: string): ReadonlySet<string> | undefined {
  switch (language) {
    case 'sv':
    case 'fi':
      return new Set(['å', 'ä', 'ö']);
    case 'da':
    case 'no':
    case 'nb':
    case 'nn':
      return new Set(['æ', 'ø', 'å']);
    default:
      return undefined;
  }
}

/**
 * Language-specific spelling variants to unify before stop words and stemming.
 * Russian: ё is routinely written as е, and the Snowball Russian stemmer and stop list
 * only know е.
 */
export function prepareForLanguage(text: string, language: string): string {
  if (language === 'ru') return text.replace(/ё/g, 'е');
  return text;
}
