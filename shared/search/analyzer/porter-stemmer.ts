/**
 * Snowball's `porter` program (the original Porter algorithm, which Lucene's EnglishAnalyzer applies
 * through PorterStemFilter), run on a minimal Snowball machine of our own. The `snowball-stemmers`
 * package runs the same program through an emulation of Java's overloading and string buffers that
 * cost 6–20 µs per word; English analysis meets a word it has not seen for most documents, so this
 * is the one stemmer that runs here. Routine for routine and table for table it is the program that
 * package generated from porter.sbl (steps 1a, 2 and 3, plain replacements, carry the text in their
 * tables instead of a case number each); a test holds the two to the same stem for every word of the
 * evaluation corpora and for random strings.
 */

/**
 * A string of `porter`'s tables, the index of the longest shorter string it ends with (-1: none), and
 * what the routine does with it: a case number, or for a plain replacement the text put in its place
 * (null: left as it is).
 */
interface Among {
  s: number[];
  substringI: number;
  result: number;
  to: string | null;
}

const chars = (s: string) => [...s].map((c) => c.charCodeAt(0));
const among = (list: [string, number, number][]): Among[] =>
  list.map(([s, substringI, result]) => ({ s: chars(s), substringI, result, to: null }));
/** An among whose every case replaces the suffix found. */
const replacements = (list: [string, number, string | null][]): Among[] =>
  list.map(([s, substringI, to]) => ({ s: chars(s), substringI, result: 1, to }));

// The tables of porter.sbl's `among`s, in Snowball's sorted order.
const A_STEP_1A = replacements([['s', -1, ''], ['ies', 0, 'i'], ['sses', 0, 'ss'], ['ss', 0, null]]);
const A_STEP_1B_END = among([
  ['', -1, 3], ['bb', 0, 2], ['dd', 0, 2], ['ff', 0, 2], ['gg', 0, 2], ['bl', 0, 1], ['mm', 0, 2], ['nn', 0, 2],
  ['pp', 0, 2], ['rr', 0, 2], ['at', 0, 1], ['tt', 0, 2], ['iz', 0, 1],
]);
const A_STEP_1B = among([['ed', -1, 2], ['eed', 0, 1], ['ing', -1, 2]]);
const A_STEP_2 = replacements([
  ['anci', -1, 'ance'], ['enci', -1, 'ence'], ['abli', -1, 'able'], ['eli', -1, 'e'], ['alli', -1, 'al'], ['ousli', -1, 'ous'],
  ['entli', -1, 'ent'], ['aliti', -1, 'al'], ['biliti', -1, 'ble'], ['iviti', -1, 'ive'], ['tional', -1, 'tion'],
  ['ational', 10, 'ate'], ['alism', -1, 'al'], ['ation', -1, 'ate'], ['ization', 13, 'ize'], ['izer', -1, 'ize'],
  ['ator', -1, 'ate'], ['iveness', -1, 'ive'], ['fulness', -1, 'ful'], ['ousness', -1, 'ous'],
]);
const A_STEP_3 = replacements([
  ['icate', -1, 'ic'], ['ative', -1, ''], ['alize', -1, 'al'], ['iciti', -1, 'ic'], ['ical', -1, 'ic'], ['ful', -1, ''], ['ness', -1, ''],
]);
const A_STEP_4 = among([
  ['ic', -1, 1], ['ance', -1, 1], ['ence', -1, 1], ['able', -1, 1], ['ible', -1, 1], ['ate', -1, 1], ['ive', -1, 1],
  ['ize', -1, 1], ['iti', -1, 1], ['al', -1, 1], ['ism', -1, 1], ['ion', -1, 2], ['er', -1, 1], ['ous', -1, 1],
  ['ant', -1, 1], ['ent', -1, 1], ['ment', 15, 1], ['ement', 16, 1], ['ou', -1, 1],
]);

/** A grouping as Snowball encodes it: a bit per character from `min` to `max`. */
interface Grouping {
  bits: number[];
  min: number;
  max: number;
}

const G_V: Grouping = { bits: [17, 65, 16, 1], min: 97, max: 121 }; // a e i o u y
const G_V_WXY: Grouping = { bits: [1, 17, 65, 208, 1], min: 89, max: 121 }; // Y a e i o u w x y

function inGroup(g: Grouping, ch: number): boolean {
  if (ch > g.max || ch < g.min) return false;
  ch -= g.min;
  return (g.bits[ch >> 3] & (1 << (ch & 7))) !== 0;
}
const Y_LOWER = 121;
const Y_UPPER = 89;

class PorterProgram {
  private current = '';
  private cursor = 0;
  private limit = 0;
  private limitBackward = 0;
  private bra = 0;
  private ket = 0;
  private p1 = 0;
  private p2 = 0;
  /** porter.sbl's backward routines, in the order `stem` runs them. */
  private readonly steps = [this.step1a, this.step1b, this.step1c, this.step2, this.step3, this.step4, this.step5a, this.step5b];

  stem(word: string): string {
    this.current = word;
    this.cursor = 0;
    this.limit = word.length;
    this.limitBackward = 0;
    this.bra = 0;
    this.ket = word.length;
    let yFound = false;
    // A 'y' that starts the word or follows a vowel is a consonant: marked 'Y' (not in v) until the end.
    if (this.sliceIs(Y_LOWER)) {
      this.sliceFrom('Y');
      yFound = true;
    }
    this.cursor = 0;
    while (this.goto(() => this.inGrouping(G_V) && this.sliceIs(Y_LOWER))) {
      this.sliceFrom('Y');
      yFound = true;
    }
    this.cursor = 0;
    this.markRegions();
    this.cursor = 0;
    this.limitBackward = 0;
    this.cursor = this.limit;
    for (const step of this.steps) {
      const fromEnd = this.limit - this.cursor;
      step.call(this);
      this.cursor = this.limit - fromEnd;
    }
    this.cursor = this.limitBackward;
    if (yFound) while (this.goto(() => this.sliceIs(Y_UPPER))) this.sliceFrom('y');
    return this.current;
  }

  /**
   * Snowball's goto: the first position from the cursor on where `at` succeeds, the cursor left there
   * (and the slice `at` set); false, the cursor where it was, when there is none.
   */
  private goto(at: () => boolean): boolean {
    const start = this.cursor;
    for (;;) {
      const from = this.cursor;
      if (at()) {
        this.cursor = from;
        return true;
      }
      this.cursor = from;
      if (this.cursor >= this.limit) {
        this.cursor = start;
        return false;
      }
      this.cursor++;
    }
  }

  /** [ch]: the slice is this one character. */
  private sliceIs(ch: number): boolean {
    this.bra = this.cursor;
    if (!this.eqS(ch)) return false;
    this.ket = this.cursor;
    return true;
  }

  /** p1 and p2: after the first non-vowel that follows a vowel, once and twice (the limit when there is none). */
  private markRegions(): void {
    this.p1 = this.limit;
    this.p2 = this.limit;
    if (!this.gopastVowelThenNonVowel()) return;
    this.p1 = this.cursor;
    if (!this.gopastVowelThenNonVowel()) return;
    this.p2 = this.cursor;
  }

  private gopastVowelThenNonVowel(): boolean {
    while (!this.inGrouping(G_V)) {
      if (this.cursor >= this.limit) return false;
      this.cursor++;
    }
    while (!this.outGrouping(G_V)) {
      if (this.cursor >= this.limit) return false;
      this.cursor++;
    }
    return true;
  }

  // --- The backward routines of porter.sbl ---

  private shortV(): boolean {
    return this.outGroupingB(G_V_WXY) && this.inGroupingB(G_V) && this.outGroupingB(G_V);
  }

  private r1(): boolean {
    return this.p1 <= this.cursor;
  }

  private r2(): boolean {
    return this.p2 <= this.cursor;
  }

  /**
   * `[substring] among (...)` of replacements, behind a region mark: the longest suffix of `table`
   * ending at the cursor is replaced by its `to` when it starts at or after `regionStart`.
   */
  private replaceSuffix(table: Among[], regionStart: number): void {
    this.ket = this.cursor;
    const w = this.findAmongB(table);
    if (w === null) return;
    this.bra = this.cursor;
    if (this.cursor >= regionStart && w.to !== null) this.sliceFrom(w.to);
  }

  private step1a(): void {
    this.replaceSuffix(A_STEP_1A, 0);
  }

  private step1b(): void {
    this.ket = this.cursor;
    const suffix = this.findAmongB(A_STEP_1B);
    if (suffix === null) return;
    this.bra = this.cursor;
    if (suffix.result === 1) {
      if (this.r1()) this.sliceFrom('ee');
      return;
    }
    // 'ed', 'ing': only when a vowel precedes them.
    const fromEnd = this.limit - this.cursor;
    while (!this.inGroupingB(G_V)) {
      if (this.cursor <= this.limitBackward) return;
      this.cursor--;
    }
    this.cursor = this.limit - fromEnd;
    this.sliceFrom('');
    const endFromEnd = this.limit - this.cursor;
    const end = this.findAmongB(A_STEP_1B_END);
    if (end === null) return;
    this.cursor = this.limit - endFromEnd;
    const v = end.result;
    if (v === 1) {
      this.insertAtCursor('e');
    } else if (v === 2) {
      this.ket = this.cursor;
      if (this.cursor <= this.limitBackward) return;
      this.cursor--;
      this.bra = this.cursor;
      this.sliceFrom('');
    } else if (v === 3) {
      if (this.cursor !== this.p1) return;
      const shortFromEnd = this.limit - this.cursor;
      if (!this.shortV()) return;
      this.cursor = this.limit - shortFromEnd;
      this.insertAtCursor('e');
    }
  }

  private step1c(): void {
    this.ket = this.cursor;
    const fromEnd = this.limit - this.cursor;
    if (!this.eqSB(Y_LOWER)) {
      this.cursor = this.limit - fromEnd;
      if (!this.eqSB(Y_UPPER)) return;
    }
    this.bra = this.cursor;
    while (!this.inGroupingB(G_V)) {
      if (this.cursor <= this.limitBackward) return;
      this.cursor--;
    }
    this.sliceFrom('i');
  }

  private step2(): void {
    this.replaceSuffix(A_STEP_2, this.p1);
  }

  private step3(): void {
    this.replaceSuffix(A_STEP_3, this.p1);
  }

  private step4(): void {
    this.ket = this.cursor;
    const suffix = this.findAmongB(A_STEP_4);
    if (suffix === null) return;
    this.bra = this.cursor;
    if (!this.r2()) return;
    const v = suffix.result;
    if (v === 1) {
      this.sliceFrom('');
    } else if (v === 2) {
      const fromEnd = this.limit - this.cursor;
      if (!this.eqSB(115 /* s */)) {
        this.cursor = this.limit - fromEnd;
        if (!this.eqSB(116 /* t */)) return;
      }
      this.sliceFrom('');
    }
  }

  private step5a(): void {
    this.ket = this.cursor;
    if (!this.eqSB(101 /* e */)) return;
    this.bra = this.cursor;
    const fromEnd = this.limit - this.cursor;
    if (!this.r2()) {
      this.cursor = this.limit - fromEnd;
      if (!this.r1()) return;
      const shortFromEnd = this.limit - this.cursor;
      if (this.shortV()) return;
      this.cursor = this.limit - shortFromEnd;
    }
    this.sliceFrom('');
  }

  private step5b(): void {
    this.ket = this.cursor;
    if (!this.eqSB(108 /* l */)) return;
    this.bra = this.cursor;
    if (!this.r2()) return;
    if (!this.eqSB(108)) return;
    this.sliceFrom('');
  }

  // --- The Snowball machine: the operations porter's routines use, as the Snowball runtime defines them ---

  private inGrouping(g: Grouping): boolean {
    if (this.cursor >= this.limit || !inGroup(g, this.current.charCodeAt(this.cursor))) return false;
    this.cursor++;
    return true;
  }

  private outGrouping(g: Grouping): boolean {
    if (this.cursor >= this.limit || inGroup(g, this.current.charCodeAt(this.cursor))) return false;
    this.cursor++;
    return true;
  }

  private inGroupingB(g: Grouping): boolean {
    if (this.cursor <= this.limitBackward || !inGroup(g, this.current.charCodeAt(this.cursor - 1))) return false;
    this.cursor--;
    return true;
  }

  private outGroupingB(g: Grouping): boolean {
    if (this.cursor <= this.limitBackward || inGroup(g, this.current.charCodeAt(this.cursor - 1))) return false;
    this.cursor--;
    return true;
  }

  /** One character forwards (porter only ever compares one). */
  private eqS(ch: number): boolean {
    if (this.limit - this.cursor < 1 || this.current.charCodeAt(this.cursor) !== ch) return false;
    this.cursor++;
    return true;
  }

  /** One character backwards. */
  private eqSB(ch: number): boolean {
    if (this.cursor - this.limitBackward < 1 || this.current.charCodeAt(this.cursor - 1) !== ch) return false;
    this.cursor--;
    return true;
  }

  /** Snowball's find_among_b: the longest string of `v` ending at the cursor (null: none), the cursor before it. */
  private findAmongB(v: Among[]): Among | null {
    let i = 0;
    let j = v.length;
    const c = this.cursor;
    const lb = this.limitBackward;
    let commonI = 0;
    let commonJ = 0;
    let firstKeyInspected = false;
    for (;;) {
      const k = i + ((j - i) >> 1);
      let diff = 0;
      let common = commonI < commonJ ? commonI : commonJ;
      const w = v[k];
      for (let i2 = w.s.length - 1 - common; i2 >= 0; i2--) {
        if (c - common === lb) {
          diff = -1;
          break;
        }
        diff = this.current.charCodeAt(c - 1 - common) - w.s[i2];
        if (diff !== 0) break;
        common++;
      }
      if (diff < 0) {
        j = k;
        commonJ = common;
      } else {
        i = k;
        commonI = common;
      }
      if (j - i <= 1) {
        if (i > 0) break;
        if (j === i) break;
        if (firstKeyInspected) break;
        firstKeyInspected = true;
      }
    }
    for (;;) {
      const w = v[i];
      if (commonI >= w.s.length) {
        this.cursor = c - w.s.length;
        return w;
      }
      i = w.substringI;
      if (i < 0) return null;
    }
  }

  private replaceS(cBra: number, cKet: number, s: string): number {
    const adjustment = s.length - (cKet - cBra);
    this.current = this.current.slice(0, cBra) + s + this.current.slice(cKet);
    this.limit += adjustment;
    if (this.cursor >= cKet) this.cursor += adjustment;
    else if (this.cursor > cBra) this.cursor = cBra;
    return adjustment;
  }

  private sliceFrom(s: string): void {
    this.replaceS(this.bra, this.ket, s);
  }

  private insertAtCursor(s: string): void {
    const c = this.cursor;
    const adjustment = this.replaceS(c, c, s);
    if (c <= this.bra) this.bra += adjustment;
    if (c <= this.ket) this.ket += adjustment;
    this.cursor = c;
  }
}

const program = new PorterProgram();

/** The Porter stem of a lower-cased word (synchronous: one machine serves every caller of the process). */
export function porterStem(word: string): string {
  return program.stem(word);
}
