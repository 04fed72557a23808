/**
 * The analysis chain of an index, chosen by its `language_code`. Documents and queries go
 * through the very same chain, so a query term matches exactly the terms stored for it.
 *
 * Order of the chain, and why:
 *  1. NFKC + lower-case on the whole text, so the tokenizer sees one canonical form.
 *  2. Tokenize: UAX #29-like words for space-delimited scripts; runs of Han/kana/Hangul/Thai
 *     go to jieba (zh) or ICU (everything else).
 *  3. Per-token clean-up that Lucene's analyzers do too: English possessive "'s" removal,
 *     French/Italian elision ("l'homme" -> "homme").
 *  4. Stop words, on unstemmed accented words, which is how the lists are written.
 *  5. Snowball stemming, which needs the diacritics to recognise suffixes.
 *  6. Accent folding last, Latin letters only, keeping the letters of the language's alphabet.
 */
import { foldAccents, lettersKeptFor, normalizeText, prepareForLanguage } from './normalize.js';
import { icuSegmenter, segmentChinese } from './segment-cjk.js';
import { type Stem, stemmerFor } from './stemmers.js';
import { stopWordsFor } from './stop-words.js';
import { TokenMemo } from './token-memo.js';
import { type RunSegmenter, TokenSpans, scanTokens, tokenHash, tokenizeByExpression } from './tokenize-words.js';

/** Numbers terms (an index's TermDictionary): the same number for the same term, for as long as it lives. */
export interface TermNumbering {
  /** Tells numberings apart (unique in the process), so a cached number is never read for another one. */
  readonly serial: number;
  id(term: string): number;
}

export interface Analyzer {
  readonly language: string;
  /** Terms in order; a term's position is its array index. */
  analyze(text: string): string[];
  /** What analyze() gives, as the terms' numbers in `numbering`. */
  analyzeNumbered(text: string, numbering: TermNumbering): number[];
}

/** The language codes an index may declare; kept equal to SUPPORTED_LANGUAGES of the index schema. */
export const ANALYZER_LANGUAGES = [
  'en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'no', 'nb', 'nn', 'fi', 'ru',
  'zh', 'ja', 'ko', 'th',
] as const;

// Lucene's FrenchAnalyzer and ItalianAnalyzer default elision articles.
const ELISIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  fr: new Set(['l', 'm', 't', 'qu', 'n', 's', 'j', 'd', 'c', 'jusqu', 'quoiqu', 'lorsqu', 'puisqu']),
  it: new Set([
    'c', 'l', 'all', 'dall', 'dell', 'nell', 'sull', 'coll', 'pell', 'gl', 'agl', 'dagl', 'degl', 'negl',
    'sugl', 'un', 'm', 't', 's', 'v', 'd',
  ]),
};

type TokenFilter = (token: string) => string;

function tokenFilterFor(language: string): TokenFilter | undefined {
  if (language === 'en') {
    // Lucene's EnglishPossessiveFilter: "cell's" -> "cell" (the tokenizer keeps it whole).
    return (t) => (t.length > 2 && (t.endsWith("'s") || t.endsWith('’s')) ? t.slice(0, -2) : t);
  }
  const articles = ELISIONS[language];
  if (articles === undefined) return undefined;
  return (t) => {
    const i = t.search(/['’]/);
    return i > 0 && articles.has(t.slice(0, i)) ? t.slice(i + 1) : t;
  };
}

function runSegmenterFor(language: string): RunSegmenter {
  if (language === 'zh') return segmentChinese;
  // ICU needs no locale to find Japanese or Thai words; the index's own locale is a hint only.
  return icuSegmenter(language === 'ja' || language === 'ko' || language === 'th' ? language : 'und');
}

// Steps 3 to 6 depend on the token alone, and tokens repeat heavily (Zipf): one lookup per token
// replaces the filter, stop-word, stemming and folding steps, and the same term string comes back
// each time (its hash is computed once for the index's maps). The lookup is by the token's place in
// the text, so a token met before costs no string (a Map keyed by sliced tokens was a third of
// taking a document in). Bounded and cleared when full, so junk input cannot grow it.
const TERM_MEMO_LIMIT = 100_000;

/**
 * A token's term, and its number in the numbering that last asked: a document pushed into an index
 * gets its terms' numbers with the same lookup that finds the terms (a second lookup per token, in
 * the index's dictionary, was an eighth of taking a document in). A serial, not the numbering itself,
 * so the memo never keeps a dropped index's dictionary alive.
 */
class MemoEntry {
  serial = -1;
  id = -1;
  constructor(readonly term: string) {}
}

class ChainAnalyzer implements Analyzer {
  private readonly memo = new TokenMemo<MemoEntry>(TERM_MEMO_LIMIT);
  private readonly spans = new TokenSpans();
  /** Scratch of entries(): the entries of the text analysed last. */
  private readonly found: MemoEntry[] = [];
  private readonly segmentRun: RunSegmenter;
  private readonly tokenFilter: TokenFilter | undefined;
  private readonly stopWords: ReadonlySet<string>;
  private readonly stem: Stem | undefined;
  private readonly keepLetters: ReadonlySet<string> | undefined;

  constructor(readonly language: string) {
    this.segmentRun = runSegmenterFor(language);
    this.tokenFilter = tokenFilterFor(language);
    this.stopWords = stopWordsFor(language);
    this.stem = stemmerFor(language);
    this.keepLetters = lettersKeptFor(language);
  }

  analyze(text: string): string[] {
    const terms: string[] = [];
    for (const entry of this.entries(text)) if (entry.term.length > 0) terms.push(entry.term);
    return terms;
  }

  analyzeNumbered(text: string, numbering: TermNumbering): number[] {
    const ids: number[] = [];
    const serial = numbering.serial;
    for (const entry of this.entries(text)) {
      if (entry.term.length === 0) continue;
      if (entry.serial !== serial) {
        entry.id = numbering.id(entry.term);
        entry.serial = serial;
      }
      ids.push(entry.id);
    }
    return ids;
  }

  /** The memo entries of the text's tokens, in order (a scratch array, valid until the next call). */
  private entries(text: string): MemoEntry[] {
    const found = this.found;
    found.length = 0;
    if (typeof text !== 'string' || text.length === 0) return found;
    const normalized = prepareForLanguage(normalizeText(text), this.language);
    const spans = this.spans;
    if (scanTokens(normalized, spans)) {
      for (let i = 0; i < spans.count; i++) {
        const start = spans.start[i];
        const end = spans.end[i];
        const hash = spans.hash[i];
        found.push(this.memo.find(normalized, start, end, hash) ?? this.remember(normalized.slice(start, end), hash));
      }
    } else {
      for (const token of tokenizeByExpression(normalized, this.segmentRun)) {
        const hash = tokenHash(token, 0, token.length);
        found.push(this.memo.find(token, 0, token.length, hash) ?? this.remember(token, hash));
      }
    }
    return found;
  }

  private remember(token: string, hash: number): MemoEntry {
    // A token cut out of a text is, in V8, a view that keeps the whole text alive; kept here, and as a
    // term in an index's dictionary, it would keep every text that brought a new long word (SciFact: 3.8
    // of 27 MB of heap). A copy of its own, made once per new token.
    token = (' ' + token).slice(1);
    const entry = new MemoEntry(this.term(token));
    this.memo.add(token, hash, entry);
    return entry;
  }

  /** What a token becomes after the per-token steps (3 to 6); '' when it is dropped. */
  private term(token: string): string {
    if (this.tokenFilter) token = this.tokenFilter(token);
    if (token.length === 0 || this.stopWords.has(token)) return '';
    if (this.stem) token = this.stem(token);
    return foldAccents(token, this.keepLetters);
  }
}

const analyzers = new Map<string, Analyzer>();

/** The analyzer for `languageCode`; one shared instance per language (they hold no per-call state). */
export function createAnalyzer(languageCode: string): Analyzer {
  let analyzer = analyzers.get(languageCode);
  if (analyzer === undefined) {
    if (!(ANALYZER_LANGUAGES as readonly string[]).includes(languageCode)) {
      throw new Error(`unsupported language code "${languageCode}"; supported codes: ${ANALYZER_LANGUAGES.join(', ')}`);
    }
    analyzer = new ChainAnalyzer(languageCode);
    analyzers.set(languageCode, analyzer);
  }
  return analyzer;
}
