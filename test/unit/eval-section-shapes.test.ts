import { describe, expect, it } from 'vitest';
import { htmlToSections } from '../../shared/ingest/html-to-sections.js';
import { wholePageBm25 } from '../../scripts/eval/page-bm25.js';
import { boldFaqPage, boldFaqSite, headingsOnly } from '../../scripts/eval/section-shapes.js';

const split = (html: string) => htmlToSections(html, { fallbackTitle: 'Page' }).map((s) => [s.title, s.anchor]);

describe('eval page shapes: headingsOnly (the "before" of the section-structure evaluation)', () => {
  const page = `<main><section id="api"><h2>API</h2>
    <dl><dt class="sig" id="os.getcwd"><span id="alias"></span>os.getcwd()</dt><dd><p>Return the directory.</p></dd>
        <dt><a id="os.sep" href="#os.sep">os.sep</a></dt><dd><p>The separator.</p></dd></dl>
    <a name="q8"></a><p><b>Why?</b></p><p>Because.</p>
    <p id="p1"><strong>How?</strong> Like this.</p>
    <table><tr id="row-a"><td>a</td><td>first</td></tr></table>
    </section><section id="more"><h2><a name="named"></a>More</h2><p>Text.</p></section></main>`;

  it('the page as it is splits at every anchored item (a heading with no text of its own gives no section)', () => {
    expect(split(page)).toEqual([
      ['os.getcwd()', 'os.getcwd'], ['os.sep', 'os.sep'], ['Why?', 'q8'], ['How?', 'p1'], ['a', 'row-a'],
      ['More', 'more'],
    ]);
  });

  it('without item anchors it splits at headings only, headings keeping their anchors', () => {
    expect(split(headingsOnly(page))).toEqual([['API', 'api'], ['More', 'more']]);
  });

  it('keeps the text, classes and links', () => {
    const h = headingsOnly(page);
    expect(h).toContain('<dt class="sig">');
    expect(h).toContain('<a href="#os.sep">');
    expect(htmlToSections(h).map((s) => s.text).join('\n')).toContain('Because.');
  });
});

describe('eval page shapes: boldFaqPage (the Python FAQ as anchored bold paragraphs)', () => {
  const faq = `<main><section id="faq"><h1>FAQ</h1>
    <nav><a href="#why-x">Why x?</a></nav>
    <section id="general"><h2>General</h2>
      <section id="why-x"><span id="target"></span><h3><a class="toc-backref" href="#id1">Why x?</a><a class="headerlink" href="#why-x">¶</a></h3><p>Because x.</p></section>
      <section id="how-y"><h3>How <code>y</code>?</h3><p>Like y.</p></section>
    </section></section></main>`;

  it('turns question headings (sections holding no section) into q1, q2, … and keeps category headings', () => {
    const { html, anchors } = boldFaqPage(faq);
    expect([...anchors]).toEqual([['why-x', 'q1'], ['how-y', 'q2']]);
    expect(html).toContain('<a name="q1"></a><p><b>Why x?</b></p>');
    expect(html).toContain('<a href="#q1">');
    expect(html).not.toMatch(/<h3/);
    expect(split(html)).toEqual([['Why x?', 'q1'], ['How y?', 'q2']]);
    expect(split(headingsOnly(html))).toEqual([['General', 'general']]);
  });

  it('rewrites only faq/ pages and moves the questions to the new anchors', () => {
    const pages = [
      { uid: 'faq/general.html', title: 'FAQ', content: faq },
      { uid: 'faq/index.html', title: 'FAQ index', content: faq },
      { uid: 'library/os.html', title: 'os', content: faq },
    ];
    const questions = [
      { id: 'a', question: 'Why x?', answer_page: 'faq/general.html', answer_anchor: 'why-x' },
      { id: 'b', question: 'Gone?', answer_page: 'faq/general.html', answer_anchor: 'general' },
      { id: 'c', question: 'None?', answer_page: null },
    ];
    const site = boldFaqSite(pages, questions);
    expect(site.rewritten).toBe(2);
    expect(site.pages.map((p) => p.content === faq)).toEqual([false, true, true]);
    expect(site.questions.map((q) => q.answer_anchor)).toEqual(['q1', 'general', undefined]);
  });
});

describe('eval baseline: wholePageBm25', () => {
  it('ranks whole pages by BM25 over title and visible text, not by their best section', () => {
    const pages = [
      { uid: 'one', title: 'Sockets', content: '<h2>Timeouts</h2><p>socket timeout value</p><h2>Other</h2><p>socket socket buffers</p>' },
      { uid: 'two', title: 'Files', content: '<p>file timeout handling</p><script>socket socket socket</script>' },
      { uid: 'three', title: 'Misc', content: '<p>nothing relevant here</p>' },
    ];
    const search = wholePageBm25(pages);
    expect(search('socket timeout', 10)).toEqual(['one', 'two']);
    expect(search('sockets', 10)).toEqual(['one']);
    expect(search('socket timeout', 1)).toEqual(['one']);
  });
});
