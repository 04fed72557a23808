import type { FaqQuestion, Page } from './python-docs.js';

/**
 * Page shapes for the section-structure evaluation (issue 13, point 5), made from the real Python docs:
 *
 * - `headingsOnly`: the "before" of every set. The splitter also starts a section at anchored items
 *   (`<dt id>`, `<dt><a id>`, `<tr id>`, an empty `<a name|id>` or a `<p id>` before a bold lead);
 *   without those ids it splits at h1–h6 alone, as it did before items existed. So the old sectioning
 *   is measured in the same run, on the same server, by pushing the same pages without item anchors:
 *   the ids and names of dt, tr, p, span and a elements go (an item's id sits on one of these or on
 *   the element opening a dt). A heading takes its anchor from itself, the elements it opens, or an
 *   `<a name|id>` inside it; on the Python docs (and the FAQ pages `boldFaqSite` writes) this gives
 *   exactly the sections the splitter of commit 8c51c8f^ gives on the untouched pages, all 1,060
 *   pages compared section by section (title, anchor, text).
 * - `boldFaqPages`: the Python FAQ pages rewritten in the other common FAQ shape, the one the issue's
 *   held-out site uses: no heading per question, `<a name="q8"></a><p><b>Question?</b></p>` followed
 *   by the answer. Category headings (a section holding question sections) stay headings.
 */

const ID_ATTR = /\s(?:id|name)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi;

export function headingsOnly(html: string): string {
  return html.replace(/<(dt|tr|p|span|a)(\s[^>]*)>/gi, (_, tag: string, attrs: string) => `<${tag}${attrs.replace(ID_ATTR, '')}>`);
}

// Sphinx puts cross-reference targets (`<span id="why-self"></span>`) before some headings: dropped with them.
const QUESTION_HEADING = /<section id="([^"]+)">\s*(?:<span id="[^"]*"><\/span>\s*)*<h([2-6])>([\s\S]*?)<\/h\2>/g;

/**
 * One FAQ page with its question headings turned into anchored bold paragraphs `q1`, `q2`, … in page
 * order. A question is a heading whose section holds no other section. Returns the page and the new
 * anchor of each old section id.
 */
export function boldFaqPage(html: string): { html: string; anchors: Map<string, string> } {
  const anchors = new Map<string, string>();
  const out = html.replace(QUESTION_HEADING, (m, id: string, _level: string, inner: string, at: number) => {
    const rest = html.slice(at + m.length);
    const nextOpen = rest.indexOf('<section');
    const nextClose = rest.indexOf('</section>');
    if (nextOpen >= 0 && nextOpen < nextClose) return m;
    const name = `q${anchors.size + 1}`;
    anchors.set(id, name);
    const question = inner.replace(/<a class="headerlink"[\s\S]*?<\/a>/g, '').replace(/<[^>]*>/g, '').trim();
    return `<section>\n<a name="${name}"></a><p><b>${question}</b></p>`;
  });
  // The page's own table of contents points at the new anchors, as the rewritten site's would.
  return { html: out.replace(/href="#([^"]+)"/g, (m, id: string) => (anchors.has(id) ? `href="#${anchors.get(id)}"` : m)), anchors };
}

/**
 * The whole site with its FAQ pages (`faq/*.html`) in the bold-paragraph shape, and the questions
 * pointing at the new anchors. Questions whose anchor is no question heading keep it (the heading is
 * still there).
 */
export function boldFaqSite(pages: Page[], questions: FaqQuestion[]): { pages: Page[]; questions: FaqQuestion[]; rewritten: number } {
  const anchorsOf = new Map<string, Map<string, string>>();
  const out = pages.map((p) => {
    if (!p.uid.startsWith('faq/') || p.uid === 'faq/index.html') return p;
    const r = boldFaqPage(p.content);
    anchorsOf.set(p.uid, r.anchors);
    return { ...p, content: r.html };
  });
  const rewritten = [...anchorsOf.values()].reduce((n, a) => n + a.size, 0);
  const moved = questions.map((q) => {
    const anchor = q.answer_page && q.answer_anchor ? anchorsOf.get(q.answer_page)?.get(q.answer_anchor) : undefined;
    return anchor ? { ...q, answer_anchor: anchor } : q;
  });
  return { pages: out, questions: moved, rewritten };
}
