/**
 * Checks and repairs the citations of a generated answer (extractive or from a language model) before it
 * is shown, so that every `[n]` a user sees points at a reference that says what the sentence says.
 *
 * Reading the text:
 *  - A citation group is a bracketed list of numbers: `[1]`, `[1, 2]`, `[1; 2]`; `[1][2]` and `[1] [2]`
 *    are two groups. Every such group counts, wherever it is.
 *  - The text is split into sentences as the extractive generator splits passages (`sentenceSpans`),
 *    with the groups blanked out. A group also ends its sentence: always in `extractive` mode (whose
 *    format is `Sentence. [1] Sentence. [2]`), and in `model` mode when an upper-case letter follows it
 *    ("... packages [1] Virtual environments ..."). A group belongs to the sentence it is in, or else to
 *    the sentence before it ("Sentence. [1]"); a group before the first sentence belongs to that one.
 *  - A cited sentence is its text with the groups taken out (and the space before them), whitespace
 *    normalised: "Pip installs packages [1]." is checked as "Pip installs packages.".
 *
 * Rules:
 *  1. Every number must be the `index` of a given passage; others are removed ("[7]" with 3 passages).
 *  2. `extractive`: a cited sentence must occur verbatim (whitespace normalised, case kept) in each
 *     passage it cites; a citation of a passage that does not hold it is removed.
 *  3. `model`: a cited sentence must be supported: at least SUPPORT_THRESHOLD (0.5) of its distinct
 *     content terms (analysed: lower-cased, stemmed, stop and filler words removed) must occur in the
 *     union of its cited passages (title and text). A cited passage sharing none of the sentence's terms is
 *     removed from it. Why 0.5: stemming already absorbs inflection, so a faithful paraphrase keeps most
 *     of its content words (typically 0.7–1.0) and loses some to synonyms and connecting words; a sentence
 *     with less than half of its vocabulary in the source says mostly something the source does not (an
 *     invented version number, command or product shares only the topic words). Stricter thresholds
 *     rejected good paraphrases in our examples, looser ones let topic-only claims through.
 *     A cited sentence with no content terms at all ("Yes [1].") cannot be checked and is accepted.
 *  4. A sentence that carried citations and keeps none after rules 1–3 is removed entirely, not merely
 *     un-cited: it was presented as sourced, so without a valid source it is an unsupported claim.
 *     Sentences that never had a citation ("Here is what the documentation says:") are kept.
 *  5. The remaining citations are renumbered 1..k in order of first use, so the caller can return exactly
 *     the cited passages as references 1..k; `renumber` maps old → new and `cited` lists the old numbers
 *     in that order. Renumbering alone is not a problem.
 *  6. No citation left at all is a problem ("no citation remains"), so the caller can reject the answer or
 *     fall back to the extractive one.
 *
 * `ok` is true when `problems` is empty, i.e. nothing had to be removed (the text may still have been
 * renumbered: use `repaired` in every case). A removed sentence takes the spaces after it along; when
 * something was removed, lines left empty or holding only a list marker are emptied and blank-line runs
 * shrink to one. Nothing else of the text's layout changes.
 */
import { createAnalyzer } from '../search/analyzer/analyzer.js';
import { contentTerms, normalizeWhitespace, sentenceSpans, type SentenceSpan } from './extractive-generator.js';
import type { Passage } from './generation-types.js';

export interface CitationReport {
  /** Nothing had to be removed (see `problems`). */
  ok: boolean;
  /** What was wrong and removed, for logs. */
  problems: string[];
  /** The text with problems removed and citations renumbered 1..k. */
  repaired: string;
  /** Passage indexes (original numbering) still cited, in order of first citation. */
  cited: number[];
  /** Original passage index → its number in `repaired`. */
  renumber: Map<number, number>;
}

export interface CitationCheckOptions {
  /** Analyzer language for `model` mode; default `en`. */
  language?: string;
}

/** Share of a cited sentence's content terms that its sources must hold (see rule 3). */
export const SUPPORT_THRESHOLD = 0.5;

export interface CitationGroup {
  start: number;
  end: number;
  numbers: number[];
}

const GROUP = /\[\s*(\d{1,6}(?:\s*[,;]\s*\d{1,6})*)\s*\]/g;

/** The citation groups of `text`, in order. */
export function findCitations(text: string): CitationGroup[] {
  return [...text.matchAll(GROUP)].map((m) => ({
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
    numbers: m[1].split(/[,;]/).map((n) => Number.parseInt(n.trim(), 10)),
  }));
}

interface Unit {
  span: SentenceSpan;
  groups: CitationGroup[];
  /** Normalised sentence text without its groups. */
  sentence: string;
  /** Citations kept after checking, in order, deduplicated. */
  kept: number[];
  removed: boolean;
}

function excerpt(sentence: string): string {
  return sentence.length > 80 ? `"${sentence.slice(0, 77)}..."` : `"${sentence}"`;
}

/** Splits spans at the given positions (each a group's end), trimming white space of the parts. */
function splitAt(text: string, spans: SentenceSpan[], cuts: number[]): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  for (const span of spans) {
    let start = span.start;
    const inside = cuts.filter((c) => c > span.start && c < span.end);
    for (const cut of [...inside, span.end]) {
      const part = text.slice(start, cut);
      const lead = part.length - part.trimStart().length;
      const body = part.trim();
      if (/[\p{L}\p{N}]/u.test(body)) out.push({ start: start + lead, end: start + lead + body.length });
      start = cut;
    }
  }
  return out;
}

export function checkCitations(
  text: string,
  passages: Passage[],
  mode: 'extractive' | 'model',
  options: CitationCheckOptions = {},
): CitationReport {
  const language = options.language ?? 'en';
  const problems: string[] = [];
  const byIndex = new Map(passages.map((p) => [p.index, p]));
  const groups = findCitations(text);

  // Sentences of the text with the groups blanked out (same length, so offsets stay valid).
  let blanked = text;
  for (const g of groups) blanked = blanked.slice(0, g.start) + ' '.repeat(g.end - g.start) + blanked.slice(g.end);
  const cuts = groups
    .filter((g) => mode === 'extractive' || /^[^\S\r\n]*\p{Lu}/u.test(text.slice(g.end)))
    .map((g) => g.end);
  const spans = splitAt(blanked, sentenceSpans(blanked), cuts);

  const units: Unit[] = spans.map((span) => ({ span, groups: [], sentence: '', kept: [], removed: false }));
  const orphans: CitationGroup[] = [];
  for (const g of groups) {
    let owner = -1;
    for (let i = 0; i < spans.length && spans[i].start <= g.start; i++) owner = i;
    if (owner < 0 && spans.length > 0) owner = 0;
    if (owner < 0) orphans.push(g);
    else units[owner].groups.push(g);
  }
  for (const g of orphans) problems.push(`citation ${text.slice(g.start, g.end)} is not attached to any sentence`);

  const passageTerms = new Map<number, Set<string>>();
  const termsOf = (p: Passage) => {
    let set = passageTerms.get(p.index);
    if (set === undefined) {
      set = new Set(createAnalyzer(language).analyze(`${p.title ?? ''}\n${p.text ?? ''}`));
      passageTerms.set(p.index, set);
    }
    return set;
  };
  const normalizedPassage = new Map(passages.map((p) => [p.index, normalizeWhitespace(p.text ?? '')]));

  for (const unit of units) {
    if (unit.groups.length === 0) continue;
    const { start, end } = unit.span;
    const lo = Math.min(start, unit.groups[0].start);
    const hi = Math.max(end, unit.groups[unit.groups.length - 1].end);
    // The sentence without its groups (and the white space before each), e.g. "Pip installs packages."
    let raw = text.slice(lo, hi);
    for (const g of [...unit.groups].reverse()) {
      const a = g.start - lo;
      const b = g.end - lo;
      const before = raw.slice(0, a).replace(/[^\S\r\n]+$/, '');
      raw = before + raw.slice(b);
    }
    unit.sentence = normalizeWhitespace(raw);

    const numbers: number[] = [];
    for (const g of unit.groups) for (const n of g.numbers) if (!numbers.includes(n)) numbers.push(n);
    const valid: number[] = [];
    for (const n of numbers) {
      if (byIndex.has(n)) valid.push(n);
      else problems.push(`citation [${n}] refers to no source (${passages.length} given) in ${excerpt(unit.sentence)}`);
    }

    if (mode === 'extractive') {
      for (const n of valid) {
        if (normalizedPassage.get(n)!.includes(unit.sentence)) unit.kept.push(n);
        else problems.push(`${excerpt(unit.sentence)} does not occur verbatim in source [${n}]`);
      }
    } else if (valid.length > 0) {
      const terms = [...new Set(contentTerms(unit.sentence, language))];
      if (terms.length === 0) {
        unit.kept.push(...valid);
      } else {
        const union = new Set<number>();
        const contributing: number[] = [];
        for (const n of valid) {
          const source = termsOf(byIndex.get(n)!);
          let shared = 0;
          terms.forEach((t, i) => {
            if (source.has(t)) {
              shared++;
              union.add(i);
            }
          });
          if (shared > 0) contributing.push(n);
        }
        const coverage = union.size / terms.length;
        const cites = valid.map((n) => `[${n}]`).join('');
        if (coverage < SUPPORT_THRESHOLD) {
          problems.push(
            `${excerpt(unit.sentence)} is not supported by ${cites}: ${union.size} of its ${terms.length} terms occur there`,
          );
        } else {
          for (const n of valid) {
            if (contributing.includes(n)) unit.kept.push(n);
            else problems.push(`source [${n}] shares no term with ${excerpt(unit.sentence)}`);
          }
        }
      }
    }
    if (unit.kept.length === 0) {
      unit.removed = true;
      problems.push(`removed ${excerpt(unit.sentence)}: no valid citation left`);
    }
  }

  // Renumber in order of first use among the kept sentences.
  const renumber = new Map<number, number>();
  const cited: number[] = [];
  for (const unit of units) {
    if (unit.removed) continue;
    for (const n of unit.kept) {
      if (!renumber.has(n)) {
        renumber.set(n, renumber.size + 1);
        cited.push(n);
      }
    }
  }
  if (cited.length === 0) problems.push('no citation remains');

  // Edits on the original text, applied from the end.
  const edits: { start: number; end: number; replacement: string }[] = [];
  for (const g of orphans) edits.push({ start: g.start, end: g.end, replacement: '' });
  for (const unit of units) {
    if (unit.groups.length === 0) continue;
    if (unit.removed) {
      const start = Math.min(unit.span.start, unit.groups[0].start);
      const end = Math.max(unit.span.end, unit.groups[unit.groups.length - 1].end);
      edits.push({ ...withSpaceAround(text, start, end), replacement: '' });
      continue;
    }
    for (const g of unit.groups) {
      const numbers: number[] = [];
      for (const n of g.numbers) {
        const mapped = unit.kept.includes(n) ? renumber.get(n) : undefined;
        if (mapped !== undefined && !numbers.includes(mapped)) numbers.push(mapped);
      }
      if (numbers.length === 0) {
        // Take the white space before the group with it: "packages [9]." -> "packages."
        let start = g.start;
        while (start > 0 && /[^\S\r\n]/.test(text[start - 1])) start--;
        edits.push({ start, end: g.end, replacement: '' });
      } else {
        edits.push({ start: g.start, end: g.end, replacement: `[${numbers.join(', ')}]` });
      }
    }
  }
  let repaired = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) {
    repaired = repaired.slice(0, e.start) + e.replacement + repaired.slice(e.end);
  }
  const removedSomething = edits.some((e) => e.replacement === '');
  if (removedSomething) repaired = tidy(repaired);

  return { ok: problems.length === 0, problems, repaired, cited, renumber };
}

/**
 * Widens a removed sentence by the spaces after it ("A [1]. B [9]. C [1]." -> "A [1]. C [1].") or, at
 * the end of a line, by the spaces before it.
 */
function withSpaceAround(text: string, start: number, end: number): { start: number; end: number } {
  let e = end;
  while (e < text.length && /[^\S\r\n]/.test(text[e])) e++;
  if (e < text.length && !/[\r\n]/.test(text[e])) return { start, end: e };
  let s = start;
  while (s > 0 && /[^\S\r\n]/.test(text[s - 1])) s--;
  return { start: s, end: e };
}

/**
 * Tidies what removals leave: lines holding nothing but white space or a list marker become empty,
 * and runs of blank lines shrink to one. Other lines, and their spacing (code, indentation), stay as they are.
 */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => (/^\s*(?:[-*•]|\d{1,3}[.)])?\s*$/.test(line) ? '' : line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
