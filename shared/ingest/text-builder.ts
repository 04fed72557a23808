// Accumulates plain text under HTML-like whitespace rules (see html-to-sections.ts for the why).
// Breaks are *requested* and only materialised when more content arrives, so trailing/leading
// breaks vanish and consecutive block boundaries can never stack up beyond one empty line.

const COLLAPSIBLE = /\s+/g;
const NEEDS_COLLAPSE = /[^\S ]| {2}/; // anything but single plain spaces
const NEEDS_SPLIT = /[\n\r\u00a0]/;

export class TextBuilder {
  private readonly lines: string[] = [];
  private cur = '';
  private raw = false; // current line holds <pre> content: keep its spaces verbatim
  private space = false; // a collapsed space is owed before the next inline text
  private pending = 0; // requested break: 0 none, 1 new line, 2 empty line

  /** Request a line (1) or paragraph (2) break before the next content. */
  brk(level: 1 | 2): void {
    if (level > this.pending) this.pending = level;
  }

  /** A block boundary inside a table cell: becomes a space so the row stays on one line. */
  gap(): void {
    if (this.cur) this.space = true;
  }

  /** <br>: ends the line now; repeated ones give at most one empty line. */
  br(): void {
    this.flush();
    if (this.cur) this.endLine();
    else if (this.lines.length > 0 && this.lines[this.lines.length - 1] !== '') this.lines.push('');
  }

  /** " | " between table cells of one row (never at the start of a line). */
  sep(): void {
    this.flush();
    if (!this.cur) return;
    this.cur = this.cur.trimEnd() + ' |';
    this.space = true; // owed space: merges with any gap() from a block at the start of the next cell
  }

  /** Ordinary text: whitespace runs collapse to one space. */
  text(s: string): void {
    const t = NEEDS_COLLAPSE.test(s) ? s.replace(COLLAPSIBLE, ' ') : s;
    const core = t.trim();
    if (!core) {
      if (t) this.space = true;
      return;
    }
    this.flush();
    if (this.cur && (this.space || t.charCodeAt(0) === 32)) this.cur += ' ';
    this.cur += core;
    this.space = t.charCodeAt(t.length - 1) === 32;
  }

  /** Preformatted text: every newline and space is kept. */
  pre(s: string): void {
    if (!s) return;
    this.flush();
    if (this.space && this.cur) this.cur += ' ';
    this.space = false;
    if (!NEEDS_SPLIT.test(s)) {
      this.cur += s; // fast path: highlighted code arrives as many tiny single-line chunks
      this.raw = true;
      return;
    }
    const parts = s.replace(/\r\n?/g, '\n').replace(/\u00a0/g, ' ').split('\n');
    this.cur += parts[0];
    this.raw = true;
    for (let i = 1; i < parts.length; i++) {
      this.endLine();
      this.cur = parts[i];
      this.raw = true;
    }
  }

  /** The accumulated text without leading blank lines or trailing whitespace. */
  finish(): string {
    if (this.cur) this.endLine();
    this.pending = 0;
    this.space = false;
    let a = 0;
    let b = this.lines.length;
    while (a < b && this.lines[a].trim() === '') a++;
    while (b > a && this.lines[b - 1].trim() === '') b--;
    return this.lines.slice(a, b).join('\n').trimEnd();
  }

  private flush(): void {
    if (!this.pending) return;
    if (this.cur) this.endLine();
    if (this.pending === 2 && this.lines.length > 0 && this.lines[this.lines.length - 1] !== '') {
      this.lines.push('');
    }
    this.pending = 0;
    this.space = false;
  }

  private endLine(): void {
    this.lines.push(this.raw ? this.cur : this.cur.trimEnd());
    this.cur = '';
    this.raw = false;
  }
}
