/**
 * The offline generator: answers a summary or chat question with the most relevant sentences of the
 * retrieved passages, copied verbatim (whitespace normalised), each followed by its citation.
 *
 * Output format: `Sentence one. [1] Sentence two. [2]` — the sentence exactly as in the passage
 * (its own final punctuation included), one space, then `[n]` where n is the passage's `index`;
 * sentences are joined by one space. The citation sits *after* the sentence so that the sentence
 * stays a verbatim substring of its passage; `checkCitations(..., 'extractive')` relies on this
 * (in extractive mode every citation group ends a sentence).
 *
 * Selection:
 *  - Passages are split into sentences (`sentenceSpans`): line breaks always end a sentence; within a
 *    line, Intl.Segmenter's sentence boundaries, joined back after abbreviations ("Dr.", "e.g.", "Fig.",
 *    initials "J.") and after "?"/"!" before a lower-case word ('Ask "why?" he said.'), and added at a
 *    period before a lower-case word ("... for Python. pip also ...": technical text starts sentences
 *    with lower-case names) unless an abbreviation, "etc.", a single letter or number or a dotted word
 *    ("requirements.txt", "U.S.") precedes it. Decimals ("3.14") and dotted code ("os.path.join") never
 *    split. Leading list markers ("- ", "• ") and bare numbering ("1.") are dropped.
 *  - Sentences with fewer than 4 analysed terms (headings, "See below.") or more than 60 words are
 *    skipped, not truncated: a truncated sentence would no longer be verbatim, and 60+ word "sentences"
 *    are nearly always run-together lists, tables or code whose line breaks were lost. Sentences that
 *    contain something looking like a citation ("a[0]", "see [2]") are skipped too, as they would be
 *    ambiguous in the answer.
 *  - Score: BM25 (k1 1.2, b 0.75; the candidate sentences are the collection for IDF and length) of the
 *    sentence's analysed terms against the question's content terms (analysed terms minus question and
 *    filler words such as "what", "how", "do", "I" for English) with weight 1; for chat, the previous
 *    question's terms with weight 0.5 and the one before with 0.25, so "and how do I install it?" after
 *    "what is pip?" finds the pip installation sentences. Then a small rank prior 1 / (1 + 0.1·r) for the
 *    passage at position r (passages come best first) and a bonus of up to 25% when the passage title
 *    holds the question's terms (sections often say "it" for their subject).
 *  - A sentence must share at least one term with the current question; only when the question has no
 *    content terms at all ("tell me more") does overlap with earlier questions count. No such sentence:
 *    `{ text: '', cited: [] }` (the caller answers "no relevant results").
 *  - Greedy by score, skipping sentences scoring under 30% of the best one and near-duplicates of a chosen
 *    sentence (content-term Jaccard ≥ 0.6, or ≥ 80% of the smaller one's terms shared), up to
 *    `maxSentences` (4). The chosen sentences are then put back in reading order: by passage (rank order),
 *    then by position in the passage.
 */
import { createAnalyzer, type Analyzer } from '../search/analyzer/analyzer.js';
import type { GeneratedAnswer, GenerationInput } from './generation-types.js';

export interface ExtractiveOptions {
  /** Analyzer language (the index's `language_code`); default `en`. */
  language?: string;
  /** Most sentences in the answer; default 4. */
  maxSentences?: number;
}

export const MIN_SENTENCE_TERMS = 4;
export const MAX_SENTENCE_WORDS = 60;

// ---------------------------------------------------------------------------------------------------
// Sentences

/** A sentence of a text: [start, end) offsets, trimmed of surrounding white space and list markers. */
export interface SentenceSpan {
  start: number;
  end: number;
}

// Made on first use: ICU's sentence rules took ~20 ms of every API process's start.
let segmenter: Intl.Segmenter | undefined;

/** Abbreviations after which a period does not end a sentence (lower-case, with their periods). */
const ABBREVIATIONS = new Set([
  'e.g.', 'i.e.', 'eg.', 'ie.', 'cf.', 'vs.', 'viz.', 'approx.', 'ca.', 'resp.', 'incl.', 'excl.', 'esp.',
  'dr.', 'mr.', 'mrs.', 'ms.', 'prof.', 'st.', 'sr.', 'jr.', 'mt.', 'gen.', 'col.', 'lt.', 'capt.', 'sgt.',
  'rev.', 'hon.', 'fig.', 'figs.', 'eq.', 'eqs.', 'ref.', 'refs.', 'vol.', 'vols.', 'ch.', 'sec.', 'p.',
  'pp.', 'al.', 'ed.', 'eds.', 'dept.', 'univ.', 'corp.', 'jan.', 'feb.', 'mar.', 'apr.', 'jun.', 'jul.',
  'aug.', 'sep.', 'sept.', 'oct.', 'nov.', 'dec.',
]);
/** Abbreviations that are only one before a number: "No. 5", "Art. 3". */
const NUMBER_ABBREVIATIONS = new Set(['no.', 'nos.', 'nr.', 'art.', 'ver.', 'v.']);

const LIST_MARKER = /^(?:[-*•·‣◦▪–]\s+)+/u;
const NUMBERED_MARKER_ONLY = /^(?:\d{1,3}|[a-z]|[ivx]{1,5})[.)]$/i;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

/** The last word before `end` in `text`, without leading brackets or quotes: "(e.g." -> "e.g.". */
function lastWord(text: string): string {
  return (text.trimEnd().split(/\s+/).pop() ?? '').replace(/^[("'“‘[]+/u, '');
}

/** True when a period ending `word` is an abbreviation's rather than a sentence's. */
function isAbbreviation(word: string, next: string): boolean {
  const lower = word.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  if (NUMBER_ABBREVIATIONS.has(lower) && /^\d/.test(next)) return true;
  // An initial: "J. Smith".
  return /^\p{Lu}\.$/u.test(word);
}

/** Whether the segmenter's boundary between `previous` and `next` is a false one. */
function joinsNext(previous: string, next: string): boolean {
  // A lower-case word after "?" or "!" continues the sentence: 'Ask "why?" he said.'
  if (/[?!]["'”’)\]]*$/u.test(previous) && /^\p{Ll}/u.test(next)) return true;
  return /\.$/.test(previous) && isAbbreviation(lastWord(previous), next);
}

/**
 * Periods followed by a lower-case word, where the segmenter (UAX #29) never breaks, are sentence ends
 * in technical text ("... for Python. pip also ..."), unless the word before is an abbreviation, "etc.",
 * a single letter or number, or holds a period itself (a file name, "U.S."): offsets of those breaks.
 */
function lowerCaseBreaks(segment: string): number[] {
  const breaks: number[] = [];
  for (const m of segment.matchAll(/\.["'”’)\]]*\s+(?=\p{Ll})/gu)) {
    const at = m.index ?? 0;
    const word = lastWord(segment.slice(0, at + 1));
    const bare = word.slice(0, -1);
    if (isAbbreviation(word, segment.slice(at + m[0].length)) || /^etc$/i.test(bare)) continue;
    if (bare.includes('.') || /^(?:\p{L}|\p{N}+)$/u.test(bare)) continue;
    breaks.push(at + m[0].length);
  }
  return breaks;
}

/**
 * The sentences of `text` as offsets into it (see the module comment for the rules). Offsets, rather
 * than strings, let the citation checker map sentences back onto a reply it has to edit.
 */
export function sentenceSpans(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  for (const line of text.matchAll(/[^\r\n\u2028\u2029\f\v]+/g)) {
    const lineStart = line.index ?? 0;
    // The segmenter's sentences, cut further at lower-case sentence starts.
    const raw: SentenceSpan[] = [];
    for (const seg of (segmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' })).segment(line[0])) {
      const start = lineStart + seg.index;
      const cuts = [0, ...lowerCaseBreaks(seg.segment), seg.segment.length];
      for (let i = 0; i + 1 < cuts.length; i++) {
        const part = seg.segment.slice(cuts[i], cuts[i + 1]);
        const body = part.trim();
        if (body.length === 0) continue;
        const s = start + cuts[i] + (part.length - part.trimStart().length);
        raw.push({ start: s, end: s + body.length });
      }
    }
    // Joined back where the segmenter broke after an abbreviation or before a lower-case continuation.
    const pieces: SentenceSpan[] = [];
    for (const piece of raw) {
      const prev = pieces[pieces.length - 1];
      if (prev && joinsNext(text.slice(prev.start, prev.end), text.slice(piece.start, piece.end))) prev.end = piece.end;
      else pieces.push({ ...piece });
    }
    for (const piece of pieces) {
      let body = text.slice(piece.start, piece.end);
      const marker = LIST_MARKER.exec(body);
      if (marker) {
        piece.start += marker[0].length;
        body = body.slice(marker[0].length);
      }
      if (!HAS_WORD_CHAR.test(body) || NUMBERED_MARKER_ONLY.test(body)) continue;
      spans.push(piece);
    }
  }
  return spans;
}

/** Collapses every run of white space to one space and trims. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The sentences of `text`, whitespace-normalised. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => normalizeWhitespace(text.slice(s.start, s.end)));
}

// ---------------------------------------------------------------------------------------------------
// Terms

/**
 * Words that carry no topic in a question or an answer sentence, beyond the analyzer's own stop words
 * (English's is Lucene's 33-word list, which keeps "what", "how", "do", "I"). Other languages' Snowball
 * stop lists already hold their question and function words.
 */
const FILLER_WORDS: Readonly<Record<string, string>> = {
  en: `what which who whom whose when where why how do does did done doing can could would should shall may
    might must i me my mine myself we us our ours you your yours yourself he him his she her hers its itself
    them theirs those am been being have has had having were from about also just some any anything
    something thing things way ways here so ok okay hi hello please thanks thank tell explain show give
    know want need get gets got more much many very really other else than too there's what's it's i'm
    let let's like yes sure indeed`,
};

const fillerCache = new Map<string, ReadonlySet<string>>();

function fillerTerms(analyzer: Analyzer): ReadonlySet<string> {
  let set = fillerCache.get(analyzer.language);
  if (set === undefined) {
    const words = FILLER_WORDS[analyzer.language];
    set = new Set(words ? words.split(/\s+/).filter(Boolean).flatMap((w) => analyzer.analyze(w)) : []);
    fillerCache.set(analyzer.language, set);
  }
  return set;
}

/** Analysed terms of `text` without filler words: what a question or a claim is about. */
export function contentTerms(text: string, language = 'en'): string[] {
  const analyzer = createAnalyzer(language);
  const filler = fillerTerms(analyzer);
  return analyzer.analyze(text).filter((t) => !filler.has(t));
}

// ---------------------------------------------------------------------------------------------------
// Selection

/** Bracketed numbers as the citation checker reads them; a sentence holding one is not quoted. */
const CITATION_LIKE = /\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]/;

const K1 = 1.2;
const B = 0.75;
const HISTORY_WEIGHTS = [0.5, 0.25];
const RANK_PRIOR = 0.1;
const TITLE_BONUS = 0.25;
const RELATIVE_CUTOFF = 0.3;
const DUPLICATE_JACCARD = 0.6;
const DUPLICATE_CONTAINMENT = 0.8;

interface Candidate {
  rank: number;
  position: number;
  passageIndex: number;
  text: string;
  terms: string[];
  content: Set<string>;
  score: number;
}

function isNearDuplicate(a: Set<string>, b: Set<string>): boolean {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  if (union === 0) return true;
  const smaller = Math.min(a.size, b.size);
  return shared / union >= DUPLICATE_JACCARD || (smaller > 0 && shared / smaller >= DUPLICATE_CONTAINMENT);
}

export function extractiveAnswer(input: GenerationInput, options: ExtractiveOptions = {}): GeneratedAnswer {
  const language = options.language ?? 'en';
  const maxSentences = Math.max(1, Math.floor(options.maxSentences ?? 4));
  const analyzer = createAnalyzer(language);
  const filler = fillerTerms(analyzer);
  const content = (text: string) => analyzer.analyze(text).filter((t) => !filler.has(t));

  // Query terms and their weights: the question, then earlier questions, most recent first.
  const current = new Set(content(input.question));
  const weights = new Map<string, number>();
  for (const t of current) weights.set(t, 1);
  const history = input.kind === 'chat' ? input.history : [];
  HISTORY_WEIGHTS.forEach((w, i) => {
    const turn = history[history.length - 1 - i];
    if (!turn) return;
    for (const t of content(turn.question)) if (!weights.has(t)) weights.set(t, w);
  });
  if (weights.size === 0) return { text: '', cited: [] };
  // Terms a sentence must share: the question's own, unless it has none ("tell me more").
  const required = current.size > 0 ? current : new Set(weights.keys());

  const candidates: Candidate[] = [];
  const titleShare: number[] = [];
  const totalWeight = [...current].reduce((s, t) => s + (weights.get(t) ?? 0), 0);
  input.passages.forEach((passage, rank) => {
    const titleTerms = new Set(analyzer.analyze(passage.title ?? ''));
    const inTitle = [...current].reduce((s, t) => s + (titleTerms.has(t) ? 1 : 0), 0);
    titleShare[rank] = totalWeight > 0 ? inTitle / totalWeight : 0;
    sentenceSpans(passage.text ?? '').forEach((span, position) => {
      const text = normalizeWhitespace(passage.text.slice(span.start, span.end));
      if (text.split(' ').length > MAX_SENTENCE_WORDS || CITATION_LIKE.test(text)) return;
      const terms = analyzer.analyze(text);
      if (terms.length < MIN_SENTENCE_TERMS) return;
      candidates.push({
        rank, position, passageIndex: passage.index, text, terms,
        content: new Set(terms.filter((t) => !filler.has(t))), score: 0,
      });
    });
  });
  if (candidates.length === 0) return { text: '', cited: [] };

  const df = new Map<string, number>();
  for (const c of candidates) for (const t of new Set(c.terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = candidates.length;
  const avgLength = candidates.reduce((s, c) => s + c.terms.length, 0) / n;

  const scored: Candidate[] = [];
  for (const c of candidates) {
    if (![...required].some((t) => c.content.has(t))) continue;
    const tf = new Map<string, number>();
    for (const t of c.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    let score = 0;
    for (const [term, weight] of weights) {
      const f = tf.get(term);
      if (!f) continue;
      const d = df.get(term) ?? 0;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      score += weight * idf * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * c.terms.length) / avgLength)));
    }
    if (score <= 0) continue;
    c.score = (score * (1 + TITLE_BONUS * titleShare[c.rank])) / (1 + RANK_PRIOR * c.rank);
    scored.push(c);
  }
  if (scored.length === 0) return { text: '', cited: [] };

  scored.sort((a, b) => b.score - a.score || a.rank - b.rank || a.position - b.position);
  const cutoff = scored[0].score * RELATIVE_CUTOFF;
  const chosen: Candidate[] = [];
  for (const c of scored) {
    if (chosen.length >= maxSentences || c.score < cutoff) break;
    if (chosen.some((o) => o.text === c.text || isNearDuplicate(o.content, c.content))) continue;
    chosen.push(c);
  }
  chosen.sort((a, b) => a.rank - b.rank || a.position - b.position);

  const cited: number[] = [];
  for (const c of chosen) if (!cited.includes(c.passageIndex)) cited.push(c.passageIndex);
  return { text: chosen.map((c) => `${c.text} [${c.passageIndex}]`).join(' '), cited };
}
