/**
 * Candidate follow-up questions for a chat reply: the section titles of the retrieved passages that the
 * conversation has not covered yet, phrased as something a user would type. The caller keeps only those
 * that a real search answers.
 *
 * Rules, per passage in rank order:
 *  - The heading is the passage title; of a breadcrumb ("Guide › Installing packages", also `>`, `»`)
 *    the last part, of a title with a site suffix ("Installing packages | Python Docs", also ` - `,
 *    ` — `) the first part.
 *  - Skipped: empty headings, generic ones ("Introduction", "Overview", "FAQ", "See also", ...), headings
 *    longer than 12 words, and headings already covered by an asked question: at least 60% of the
 *    heading's content terms occur in the asked questions (a heading "Virtual environments" is covered by
 *    "how do I use virtual environments?", "Installing packages in a virtual environment" is not by
 *    "what is a virtual environment?"; 2 of 4 terms).
 *  - Phrasing: a heading that is a question (ends with "?") is used as is; one starting with "How to /
 *    How do / Why / What / When / Where / Which / Can / Should ..." gets a "?"; any other becomes
 *    "Tell me more about <heading>", its first letter lower-cased when the first word is an ordinary word
 *    (Installing, The, Virtual — the passages write it in lower case) and not a name or acronym (Python,
 *    PyPI, API). "Tell me more about" rather than "What about": the question
 *    is also sent as a new chat message, and must make sense without the reply it followed.
 *  - Deduplicated case-insensitively (and by heading), questions equal to an asked one dropped, at most
 *    `max` (default 3).
 *  - Cost: titles (headings of pushed or crawled pages, any length) over MAX_TITLE_CHARS are skipped before
 *    anything looks at them, asked questions are read to MAX_ASKED_CHARS, and trailing characters are trimmed
 *    by loops, not by `[...]+$` expressions, which retry from every position of a long run (quadratic).
 */
import { contentTerms } from './extractive-generator.js';
import type { Passage } from './generation-types.js';

export interface FollowUpOptions {
  /** Most candidates; default 3. */
  max?: number;
  /** Analyzer language for the "already covered" test; default `en`. */
  language?: string;
}

const GENERIC_HEADINGS = new Set([
  'introduction', 'intro', 'overview', 'summary', 'contents', 'table of contents', 'toc', 'notes', 'note',
  'faq', 'faqs', 'see also', 'references', 'reference', 'home', 'index', 'untitled', 'more', 'details',
  'general', 'misc', 'miscellaneous', 'other', 'others', 'about', 'example', 'examples', 'background',
  'conclusion', 'next steps', 'related', 'related articles', 'links', 'footnotes', 'main', 'content',
]);
const MAX_HEADING_WORDS = 12;
const COVERED_SHARE = 0.6;
const QUESTION_START = /^(?:how|why|what|when|where|which|who|can|could|should|is|are|do|does)\b/i;
/** Longer titles are no heading a user would ask about (a breadcrumb of 12 words fits easily). */
export const MAX_TITLE_CHARS = 500;
/** Of each asked question only this much is compared. */
export const MAX_ASKED_CHARS = 2000;

const isSpace = (c: string) => c.trim() === '';
/** `s` without the characters at its start and end that `drop` selects: one pass each way. */
function trimWhere(s: string, dropStart: (c: string) => boolean, dropEnd: (c: string) => boolean): string {
  let a = 0;
  let b = s.length;
  while (a < b && dropStart(s[a])) a++;
  while (b > a && dropEnd(s[b - 1])) b--;
  return s.slice(a, b);
}
const trimEndOf = (s: string, chars: string, spaces = false) => trimWhere(s, () => false, (c) => chars.includes(c) || (spaces && isSpace(c)));

/** The heading part of a passage title (see the module comment); '' for a title over MAX_TITLE_CHARS. */
export function headingOf(title: string): string {
  if (title.length > MAX_TITLE_CHARS) return '';
  let t = title.replace(/\s+/g, ' ').trim();
  const crumbs = t.split(/ (?:›|»|>) /);
  t = crumbs[crumbs.length - 1];
  t = t.split(/ (?:\||-|—|–|·) /)[0];
  return trimWhere(t, (c) => c === '#' || isSpace(c), (c) => c === ':' || c === '¶' || c === '#' || isSpace(c)).trim();
}

/**
 * Lower-cases the heading's first letter when its first word is an ordinary word capitalised only for
 * being first: one capital then lower-case letters, and either a gerund or article, or a word the
 * passages write in lower case at least as often as capitalised mid-sentence ("virtual" yes, "Python" no).
 */
function lowerFirstWord(heading: string, texts: string[]): string {
  const first = heading.split(' ')[0];
  if (!/^\p{Lu}\p{Ll}+$/u.test(first)) return heading;
  let ordinary = /ing$/.test(first) || /^(?:the|a|an)$/i.test(first);
  if (!ordinary) {
    const lower = first.toLowerCase();
    let lowerUses = 0;
    let capitalUses = 0;
    for (const t of texts) {
      lowerUses += countWord(t, lower, () => true);
      // Capitalised after a word, comma or bracket (not at a sentence start): a name, like "Python".
      capitalUses += countWord(t, first, (before) => /[\p{L}\p{N},;:)] +$/u.test(before));
    }
    ordinary = lowerUses > 0 && lowerUses >= capitalUses;
  }
  return ordinary ? heading[0].toLowerCase() + heading.slice(1) : heading;
}

/**
 * Occurrences of `word` as a whole word in `text` for which `accept(the 8 characters before it)` holds.
 * indexOf rather than a regular expression per candidate: this runs for every chat reply.
 */
function countWord(text: string, word: string, accept: (before: string) => boolean): number {
  let n = 0;
  for (let i = text.indexOf(word); i !== -1; i = text.indexOf(word, i + word.length)) {
    const prev = text[i - 1] ?? ' ';
    const next = text[i + word.length] ?? ' ';
    if (/[\p{L}\p{N}]/u.test(prev) || /[\p{L}\p{N}]/u.test(next)) continue;
    if (accept(text.slice(Math.max(0, i - 8), i))) n++;
  }
  return n;
}

function phrase(heading: string, texts: string[]): string {
  if (heading.endsWith('?')) return heading;
  if (QUESTION_START.test(heading)) return `${trimEndOf(heading, '.!')}?`;
  return `Tell me more about ${lowerFirstWord(trimEndOf(heading, '.!'), texts)}`;
}

const key = (q: string) => trimEndOf(q.toLowerCase().replace(/\s+/g, ' '), '?.!', true).trim();

export function followUpCandidates(passages: Passage[], asked: string[], options: FollowUpOptions = {}): string[] {
  const max = Math.max(0, Math.floor(options.max ?? 3));
  const language = options.language ?? 'en';
  const askedText = asked.map((q) => q.slice(0, MAX_ASKED_CHARS));
  const askedKeys = new Set(askedText.map(key));
  const askedTerms = new Set(askedText.flatMap((q) => contentTerms(q, language)));
  const texts = passages.map((p) => p.text ?? '');
  const seen = new Set<string>();
  const out: string[] = [];
  for (const passage of passages) {
    if (out.length >= max) break;
    const heading = headingOf(passage.title ?? '');
    if (!heading || GENERIC_HEADINGS.has(key(heading)) || heading.split(' ').length > MAX_HEADING_WORDS) continue;
    const terms = [...new Set(contentTerms(heading, language))];
    if (terms.length === 0) continue;
    const covered = terms.filter((t) => askedTerms.has(t)).length / terms.length;
    if (covered >= COVERED_SHARE) continue;
    const question = phrase(heading, texts);
    const k = key(question);
    if (seen.has(k) || seen.has(key(heading)) || askedKeys.has(k) || askedKeys.has(key(heading))) continue;
    seen.add(k);
    seen.add(key(heading));
    out.push(question);
  }
  return out;
}
