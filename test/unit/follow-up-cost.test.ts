import { afterEach, describe, expect, it, vi } from 'vitest';
import { followUpCandidates, headingOf, MAX_ASKED_CHARS, MAX_TITLE_CHARS } from '../../shared/generation/follow-up-questions.js';

// Section titles are whatever a pushed or crawled page's headings say, of any length; asked questions
// are what a visitor typed. Follow-up questions are computed for every chat reply, on the API.

const MB = 1024 * 1024;
// Runs that a `[...]+$` expression retries from each of their positions: quadratic in their length.
const hostileTitles = [
  `a${':'.repeat(MB)}b`,
  `a${' '.repeat(MB)}b`,
  `How${'.'.repeat(MB)}x`,
  `${'#'.repeat(MB)}`,
  `Guide › ${'¶'.repeat(MB)} x`,
];
const hostileAsked = [`${'?'.repeat(MB)}x`, `${'. '.repeat(MB)}y`];

/** The longest string any regular expression was run over while `fn` ran. */
function longestRegexInput(fn: () => void): number {
  let longest = 0;
  const exec = RegExp.prototype.exec;
  // Replacing exec takes String#replace/split/match and RegExp#test off their fast paths: they call it.
  const spy = vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, s: string) {
    longest = Math.max(longest, String(s).length);
    return exec.call(this, s);
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return longest;
}

afterEach(() => vi.restoreAllMocks());

describe('follow-up questions over hostile titles', () => {
  it(`skips titles over ${MAX_TITLE_CHARS} characters before any expression reads them`, () => {
    for (const title of hostileTitles) expect(headingOf(title)).toBe('');
    const passages = hostileTitles.map((title, i) => ({ index: i + 1, title, text: 'some text' }));
    let out: string[] = [];
    const longest = longestRegexInput(() => {
      out = followUpCandidates([...passages, { index: 9, title: 'Virtual environments', text: 'use virtual environments' }], hostileAsked, { max: 10 });
    });
    expect(out).toEqual(['Tell me more about virtual environments']);
    // The length bound: no expression saw more than an asked question's first MAX_ASKED_CHARS characters.
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(MAX_ASKED_CHARS);
  }, 30_000);

  it('trims long runs at the ends of a title within the bound, keeping those inside', () => {
    const inner = `Setup${':'.repeat(200)}done`;
    expect(headingOf(`## ${inner}${' :¶#'.repeat(50)}`)).toBe(inner);
    expect(headingOf(`${'#'.repeat(MAX_TITLE_CHARS - 10)} Install`)).toBe('Install');
    expect(followUpCandidates([{ index: 1, title: `How to install${'.'.repeat(300)}`, text: '' }], [])).toEqual(['How to install?']);
    expect(followUpCandidates([{ index: 1, title: 'Upgrading pip', text: '' }], [`upgrading pip${'?'.repeat(1500)}`])).toEqual([]);
  });
});
