const CITATION = /\s*\[\d+\]/g;
const SENTENCE_END = /[.!?]["')\]]*\s/g;

/**
 * Screen-reader announcements of streamed text: each sentence once it is complete, then what is left when the
 * answer is done; never every token (a live region updated per token reads as noise).
 */
export function sentenceAnnouncer(announce: (text: string) => void) {
  let said = 0;
  const say = (text: string) => {
    const clean = text.replace(CITATION, '').trim();
    if (clean) announce(clean);
  };
  return {
    streamed(text: string) {
      let end = said;
      for (const m of text.matchAll(SENTENCE_END)) end = Math.max(end, m.index + m[0].length);
      if (end > said) say(text.slice(said, end));
      said = end;
    },
    /** The final text may differ from the streamed one (citations renumbered): before any stream, say all of it. */
    done(final: string, streamed: string) {
      say(said === 0 ? final : streamed.slice(said));
    },
  };
}
