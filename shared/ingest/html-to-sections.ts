// Turns an HTML page into plain-text sections split at h1–h6 and at anchored items a reader can link to.
//
// Why it is built this way:
// - One pass with htmlparser2's streaming Parser, no DOM: building a DOM costs more than the
//   tokenizer itself on multi-MB pages. We can't know upfront whether the page has a <main>, so
//   content is collected as if it had none; the first <main>/[role=main] (outside skipped
//   regions) discards everything collected so far, and parsing stops when it closes.
// - Anchors need "does this ancestor start with the heading?": each open element records whether
//   it was the first significant child (element or non-blank text) of its parent, and the walk
//   stops at the main element (ids outside the content area would not point at the heading).
//   Sphinx permalinks (<a class="headerlink" href="#x">) are the last-resort anchor: same target.
// - Pages are not all headings: API references list entries as <dl><dt id>, FAQs as
//   <a name="q8"></a><p><b>Question</b>…, data pages as <tr id>. Left whole, such a page is one long
//   section whose best match drowns in its length, so each anchored item starts a section titled by
//   its lead text (the dt, the bold lead, the row's first cell) and linked by its id. An item without
//   an id is not a boundary: a result url could not point at it. When the dl or table holding items
//   closes, what follows belongs to the section that held the list again (nested dls of class
//   members return to their class).
// - Header-link anchors (class headerlink/header-anchor/…, or an in-page link whose text is just
//   ¶ # § 🔗) are removed everywhere, not only in headings: Sphinx also puts them on API <dt>s.
// - A heading whose text comes out empty (icon-only, all permalink) is not a boundary: a section
//   without a title is useless for display, so its content stays with the previous section.
// - Paragraph-like blocks (p, pre, lists, tables, headings, section…) give an empty line, line-like
//   ones (div, li, tr, dt, dd…) a single newline: "\n\n" then marks real paragraph boundaries,
//   which is what the long-section splitter cuts at first. Source newlines inside a <p> are just
//   whitespace (HTML semantics), only structure produces line breaks.
// - <pre>/<textarea> content is verbatim, including repeated empty lines and the first line's
//   indentation (code: PEP 8's two blank lines are content). The "one empty line max" rule applies
//   to breaks we generate; section trimming removes blank lines and trailing space only.
// - Table cells are joined with " | " (readable in result snippets, unlike a tab rendered as a
//   space); block breaks inside a cell become spaces so a row stays on one line.
// - &nbsp; is treated as ordinary whitespace, C0 control chars and lone surrogates are dropped
//   from the output: downstream stores (Postgres text, JSON) reject or mangle them.
// - Also skipped, beyond the brief: iframe/object/canvas fallbacks, button/select widgets,
//   <title> (read only as the page title) and inline style="display:none".
import { DepthCappedParser } from './depth-capped-parser.js';
import { splitLongText } from './split-long-text.js';
import { TextBuilder } from './text-builder.js';

export interface Section {
  ord: number; // 0-based position in the document
  title: string; // heading text (page title for text before the first heading)
  anchor: string | null; // fragment id to link to this section (without '#'), null when none
  text: string; // plain text, line breaks kept as '\n'
}

export interface SectionOptions {
  fallbackTitle?: string; // title for content before the first heading (default: page <title>, else '')
  maxSectionChars?: number; // default 4000: longer sections are split into several with the same title/anchor
}

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'nav', 'title',
  'iframe', 'object', 'canvas', 'button', 'select', 'datalist']);
const PARA = new Set(['p', 'pre', 'blockquote', 'table', 'ul', 'ol', 'dl', 'section', 'article',
  'hr', 'figure', 'header', 'footer', 'aside', 'address', 'details', 'fieldset', 'form', 'main',
  'listing', 'xmp', 'plaintext', 'textarea', 'hgroup', 'center', 'menu', 'dir',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const LINE = new Set(['div', 'li', 'dt', 'dd', 'tr', 'caption', 'figcaption', 'summary', 'legend',
  'thead', 'tbody', 'tfoot', 'option', 'dialog', 'body', 'html']);
const VERBATIM = new Set(['pre', 'textarea', 'listing', 'xmp', 'plaintext']);
const HEADER_LINK_CLASS =
  /(?:^|\s)(?:headerlink|header-anchor|header-link|heading-anchor|anchor-link|anchorjs-link|hash-link|permalink)(?:\s|$)/;
const LINK_SYMBOLS = new Set(['', '¶', '#', '§', '🔗', '⚓', '⚓︎']);
const MAYBE_UNSAFE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uD800-\uDFFF]/;
const UNSAFE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

interface Frame {
  name: string;
  id: string | null;
  first: boolean; // was the first significant child of its parent
  hasChild: boolean;
  level: 0 | 1 | 2; // break produced around it
  skip: boolean; // root of a skipped subtree
  flag: '' | 'title' | 'pre' | 'cell' | 'row' | 'link' | 'mark'; // role needing work on close
  mark: number; // for 'link' inside a heading: title length when it opened
  href: string;
  resume: { title: string | null; anchor: string | null } | null; // dl/table holding items: the section to go back to
}

const isHeading = (n: string) => n.length === 2 && n[0] === 'h' && n[1] >= '1' && n[1] <= '6';
const isBold = (n: string) => n === 'b' || n === 'strong';
const safe = (s: string) => (MAYBE_UNSAFE.test(s) ? s.replace(UNSAFE, '') : s);
const collapse = (s: string) => safe(s).replace(/\s+/g, ' ').trim();

function isSkipped(name: string, a: Record<string, string>): boolean {
  return SKIP.has(name) || a.hidden !== undefined || a['aria-hidden'] === 'true' ||
    a.role === 'navigation' || (name === 'a' && HEADER_LINK_CLASS.test(a.class ?? '')) ||
    (a.style !== undefined && /display\s*:\s*none/i.test(a.style));
}

interface Raw { title: string | null; anchor: string | null; text: string }

export function htmlToSections(html: string, options?: SectionOptions): Section[] {
  try {
    return run(typeof html === 'string' ? html : String(html ?? ''), options ?? {});
  } catch {
    return [];
  }
}

function run(html: string, options: SectionOptions): Section[] {
  const frame = (name: string, id: string | null, first: boolean): Frame =>
    ({ name, id, first, hasChild: false, level: 0, skip: false, flag: '', mark: -1, href: '', resume: null });
  const stack: Frame[] = [frame('#root', null, true)];
  let raw: Raw[] = [];
  let b = new TextBuilder();
  let curTitle: string | null = null; // null: content before the first heading
  let curAnchor: string | null = null;
  let pageTitle = '', inTitle = false, titleDone = false;
  let skipping = false, preDepth = 0, preFresh = false, cellDepth = 0;
  const rows: number[] = [];
  let mainFrame: Frame | null = null;
  let heading: Frame | null = null, hTitle = '', hAnchor: string | null = null;
  let hNamed: string | null = null, hLink: string | null = null;
  let curItem = false, hItem = false; // the current section / the open "heading" is an anchored item
  let markAnchor: string | null = null; // an empty <a name|id> no text has followed yet: a bold lead may use it

  // An anchored item starts a section like a heading does; its lead text becomes the title.
  const startItem = (lead: Frame, anchor: string, container: Frame | null) => {
    heading = lead;
    hTitle = '';
    hAnchor = anchor;
    hNamed = hLink = null;
    hItem = true;
    markAnchor = null;
    if (container && !container.resume) container.resume = { title: curTitle, anchor: curAnchor };
  };
  const nearest = (name: string): Frame | null => {
    for (let i = stack.length - 1; i > 0; i--) if (stack[i].name === name) return stack[i];
    return null;
  };

  const endSection = () => {
    const text = safe(b.finish());
    const prev = raw[raw.length - 1];
    // An item with no text of its own (a dt sharing the next one's dd) keeps its name searchable.
    if (curItem && !text && prev) prev.text += `\n\n${curTitle}`;
    else if (text) raw.push({ title: curTitle, anchor: curAnchor, text });
  };
  const enclosingId = (): string | null => { // starts at the heading itself (top of stack)
    for (let i = stack.length - 1, first = true; first && i > 0; i--) {
      if (stack[i].id) return stack[i].id;
      if (stack[i] === mainFrame) break;
      first = stack[i].first;
    }
    return null;
  };

  // Without an '&' there is no entity to decode, and htmlparser2 then skips text to the next '<' instead of
  // visiting each of its characters (a third of the sectioner's time on SciFact's abstracts).
  const decodeEntities = html.includes('&');
  // Nesting past MAX_HTML_DEPTH is flattened: deep pages stay linear and their text is kept.
  const parser = new DepthCappedParser(html, {
    onopentag(name, a) {
      const parent = stack[stack.length - 1];
      const f = frame(name, a.id || null, !parent.hasChild);
      parent.hasChild = true;
      stack.push(f);
      preFresh = false;
      if (name === 'title' && !titleDone && (!skipping || parent.name === 'head')) {
        f.flag = 'title';
        inTitle = true;
      }
      if (skipping) return;
      const link = heading !== null && name === 'a';
      if (link && !hNamed && (a.name || a.id)) hNamed = a.name || a.id;
      if (heading === null && markAnchor !== null && !(name === 'p' || isBold(name))) markAnchor = null;
      if (isSkipped(name, a)) {
        f.skip = skipping = true;
        if (link && a.href?.startsWith('#')) hLink ??= a.href.slice(1) || null;
        return;
      }
      if (!mainFrame && (name === 'main' || a.role === 'main') && !heading) {
        mainFrame = f;
        raw = [];
        b = new TextBuilder();
        curTitle = curAnchor = null;
      }
      if (heading) {
        if (link && a.href?.startsWith('#')) { f.flag = 'link'; f.mark = hTitle.length; f.href = a.href.slice(1); }
        if (name === 'br' || PARA.has(name) || LINE.has(name)) hTitle += ' ';
        return;
      }
      if (isHeading(name)) {
        heading = f;
        hTitle = '';
        hAnchor = enclosingId();
        hNamed = hLink = null;
        hItem = false;
        return;
      }
      if (name === 'dt' && f.id) return startItem(f, f.id, nearest('dl'));
      // <dt><a id="x"></a>term</dt>: nothing of the dt is written yet, so it can still become the lead.
      if ((a.id || a.name) && parent.name === 'dt' && f.first) return startItem(parent, a.id || a.name, nearest('dl'));
      if (isBold(name) && parent.name === 'p' && (markAnchor ?? (f.first ? parent.id : null))) {
        return startItem(f, (markAnchor ?? parent.id)!, null);
      }
      if (name === 'a' && (a.name || a.id) && a.href === undefined) { f.flag = 'mark'; f.href = a.name || a.id; }
      if ((name === 'td' || name === 'th') && f.first && parent.name === 'tr' && parent.id) return startItem(f, parent.id, nearest('table'));
      if (name === 'br') return cellDepth ? b.gap() : b.br();
      f.level = PARA.has(name) ? 2 : LINE.has(name) ? 1 : 0;
      if (f.level) cellDepth ? b.gap() : b.brk(f.level);
      if (VERBATIM.has(name)) { f.flag = 'pre'; preDepth++; preFresh = true; }
      else if (name === 'tr') { f.flag = 'row'; rows.push(0); }
      else if (name === 'td' || name === 'th') {
        f.flag = 'cell';
        cellDepth++;
        if (rows.length > 0 && rows[rows.length - 1]++ > 0) b.sep();
      }
    },
    ontext(t) {
      const top = stack[stack.length - 1];
      if (!top.hasChild && /\S/.test(t)) top.hasChild = true;
      if (markAnchor !== null && !skipping && /\S/.test(t)) markAnchor = null;
      if (inTitle) { pageTitle += t; return; }
      if (skipping) return;
      if (heading) { hTitle += t; return; }
      if (preDepth > 0) {
        if (preFresh && t.startsWith('\n')) t = t.slice(1);
        preFresh = false;
        b.pre(t);
      } else b.text(t);
    },
    onclosetag(name) {
      let i = stack.length - 1;
      while (i > 0 && stack[i].name !== name) i--;
      if (i === 0) return;
      while (stack.length > i) close(stack.pop() as Frame);
    },
  }, { decodeEntities });

  function close(f: Frame) {
    if (f.flag === 'title') { inTitle = false; titleDone = true; }
    if (f.skip) { skipping = false; return; }
    if (skipping) return;
    if (f === mainFrame) { parser.pause(); return; }
    if (heading) {
      if (f === heading) {
        heading = null;
        const title = collapse(hTitle.replace(/¶/g, ''));
        if (!title) return b.brk(2);
        endSection();
        b = new TextBuilder();
        curTitle = title;
        curAnchor = hAnchor ?? hNamed ?? hLink;
        curItem = hItem;
      } else if (f.flag === 'link' && LINK_SYMBOLS.has(hTitle.slice(f.mark).trim())) {
        hTitle = hTitle.slice(0, f.mark);
        hLink ??= f.href || null;
      } else if (PARA.has(f.name) || LINE.has(f.name)) hTitle += ' ';
      return;
    }
    if (f.level) cellDepth ? b.gap() : b.brk(f.level);
    if (f.resume) {
      endSection();
      b = new TextBuilder();
      ({ title: curTitle, anchor: curAnchor } = f.resume);
      curItem = false;
    }
    // Only an anchor before any text of its paragraph can lead a bold question.
    const parent = stack[stack.length - 1];
    if (f.flag === 'mark' && !f.hasChild && (parent.name !== 'p' || f.first)) markAnchor = f.href;
    if (f.flag === 'pre') { preDepth--; preFresh = false; }
    else if (f.flag === 'row') rows.pop();
    else if (f.flag === 'cell') cellDepth--;
  }

  try {
    parser.parse();
  } catch {
    // keep whatever was collected before the failure
  }
  endSection();

  const intro = options.fallbackTitle ?? collapse(pageTitle);
  const m = options.maxSectionChars;
  const max = typeof m === 'number' && m >= 1 ? Math.floor(m) : 4000;
  const out: Section[] = [];
  for (const r of raw) {
    for (const text of splitLongText(r.text, max)) {
      out.push({ ord: out.length, title: r.title ?? intro, anchor: r.anchor, text });
    }
  }
  return out;
}
