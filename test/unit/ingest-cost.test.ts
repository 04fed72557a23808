import type { AnyNode } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../shared/crawl/extract-page.js';
import { parseSitemap } from '../../shared/crawl/sitemaps.js';
import { MAX_HTML_DEPTH, parseCappedDocument } from '../../shared/ingest/depth-capped-parser.js';
import { documentSections } from '../../shared/ingest/document-sections.js';
import { htmlToSections } from '../../shared/ingest/html-to-sections.js';
import { splitLongText } from '../../shared/ingest/split-long-text.js';

// Inputs a pusher or a crawled site can send that used to cost quadratic time or overflow the stack.
// Each test's timeout is one the unfixed code exceeded by far (noted per test); the assertions are
// structural: piece sizes, tree depth, text kept.

const MB5 = 5 * 1024 * 1024;

/** Element depth of a DOM, walked without recursion. */
function depthOf(root: AnyNode): number {
  let max = 0;
  const stack: [AnyNode, number][] = [[root, 0]];
  while (stack.length) {
    const [node, d] = stack.pop()!;
    max = Math.max(max, d);
    if ('children' in node) for (const c of node.children) stack.push([c, c.type === 'tag' ? d + 1 : d]);
  }
  return max;
}

const nested = (n: number, tag = 'div') =>
  `<html><head><title>Deep</title></head><body><h1>Top</h1><p>shallow words</p>${`<${tag} class="x">`.repeat(n)}<h2 id="inner">Inner</h2><p>deep words here</p>${`</${tag}>`.repeat(n)}<p>after words</p></body></html>`;

describe('long text without breaks', () => {
  // Before: boundaries were sought with lastIndexOf over the whole text, back to its start on every
  // cut (1 MB took 6 s, 5 MB about 3 minutes).
  it('5 MB without a space or line break splits into pieces of the limit, every character kept', () => {
    const text = 'x'.repeat(MB5);
    const pieces = splitLongText(text, 4000);
    expect(pieces.length).toBe(Math.ceil(MB5 / 4000));
    expect(pieces.every((p) => p.length <= 4000)).toBe(true);
    expect(pieces.join('').length).toBe(MB5);
  }, 20_000);

  it('5 MB with a break only at the very start still cuts near the limit, not at the break', () => {
    const text = `start\n${'y'.repeat(MB5)}`;
    const pieces = splitLongText(text, 4000);
    expect(pieces[0]).toBe('start');
    expect(pieces.slice(1).every((p) => p.length === 4000 || p === pieces[pieces.length - 1])).toBe(true);
  }, 20_000);

  it('a 5 MB text field and a 5 MB html paragraph become sections of at most 4000 characters', () => {
    const text = 'z'.repeat(MB5);
    for (const [type, value] of [['text', text], ['html', `<p>${text}</p>`]] as const) {
      const sections = documentSections({ body: { type } }, { title: 'Long', body: value });
      expect(sections.length).toBe(Math.ceil(MB5 / 4000));
      expect(sections.every((s) => s.text.length <= 4000 && s.field === 'body')).toBe(true);
    }
  }, 60_000);
});

describe('deep HTML nesting', () => {
  it(`parses 100,000 nested divs into a tree at most ${MAX_HTML_DEPTH} elements deep, keeping all text`, () => {
    const doc = parseCappedDocument(nested(100_000));
    expect(depthOf(doc)).toBeLessThanOrEqual(MAX_HTML_DEPTH + 1);
    const text = (function collect(): string {
      const parts: string[] = [];
      const stack: AnyNode[] = [doc];
      while (stack.length) {
        const node = stack.pop()!;
        if (node.type === 'text') parts.push(node.data);
        else if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
      }
      return parts.join('').replace(/\s+/g, ' ');
    })();
    expect(text).toContain('Inner deep words here after words');
  }, 20_000);

  it('keeps shallow structure exactly (a page under the cap parses as before)', () => {
    const sections = htmlToSections(nested(100));
    expect(sections.map((s) => [s.title, s.anchor, s.text])).toEqual([
      ['Top', null, 'shallow words'],
      ['Inner', 'inner', 'deep words here\n\nafter words'],
    ]);
  });

  // Before: htmlparser2 shifts its stack of open elements at the front, so 100,000 nested divs
  // took about 14 s here, and more for every nesting level added.
  it('sections 100,000 nested divs (and spans, and unclosed ps) with their text', () => {
    for (const tag of ['div', 'span', 'section']) {
      const sections = htmlToSections(nested(100_000, tag));
      const all = sections.map((s) => `${s.title}: ${s.text}`).join(' | ');
      expect(all).toContain('shallow words');
      expect(all).toContain('deep words here');
      expect(all).toContain('after words');
    }
    const unclosed = htmlToSections(`<body>${'<div><p>level '.repeat(50_000)}end</body>`);
    expect(unclosed.map((s) => s.text).join(' ')).toMatch(/level level .* end$/s);
  }, 30_000);

  // Before: "Maximum call stack size exceeded" (the serializer and text walks recurse per level).
  it('the crawler extracts a page of 100,000 nested divs and of 50,000 sibling articles', () => {
    const page = extractPage(nested(100_000), 'http://example.com/deep');
    expect(page.title).toBe('Deep');
    expect(page.text).toContain('Inner deep words here after words');
    expect(page.contentHtml).toContain('deep words here');
    const siblings = extractPage(`<body>${'<article><p>one of many</p></article>'.repeat(50_000)}</body>`, 'http://example.com/many');
    expect(siblings.text.split('one of many').length - 1).toBe(50_000);
  }, 30_000);

  // Before: "Maximum call stack size exceeded" reading the loc's text, after tens of seconds of parsing.
  it('reads a sitemap whose loc is wrapped in 100,000 nested elements', () => {
    const xml = `<urlset><url><loc>http://example.com/a</loc></url><url><loc>${'<x>'.repeat(100_000)}http://example.com/b${'</x>'.repeat(100_000)}</loc></url></urlset>`;
    expect(parseSitemap(xml)?.entries.map((e) => e.url)).toEqual(['http://example.com/a', 'http://example.com/b']);
  }, 30_000);
});
