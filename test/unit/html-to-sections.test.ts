import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { htmlToSections, type Section } from '../../shared/ingest/html-to-sections.js';

const brief = (s: Section[]) => s.map(({ title, anchor, text }) => ({ title, anchor, text }));
const only = (html: string) => {
  const s = htmlToSections(html);
  expect(s).toHaveLength(1);
  return s[0];
};

describe('htmlToSections: headings and anchors', () => {
  const cases: Array<[string, string, string | null]> = [
    ['Sphinx <section id>', '<section id="intro"><h1>Intro<a class="headerlink" href="#intro">¶</a></h1><p>x</p></section>', 'intro'],
    ['old Sphinx div.section', '<div class="section" id="old-style"><h2>Intro</h2><p>x</p></div>', 'old-style'],
    ['heading id', '<h2 id="setup">Intro</h2><p>x</p>', 'setup'],
    ['heading id beats wrapper id', '<section id="s"><h2 id="h">Intro</h2><p>x</p></section>', 'h'],
    ['nested first-child wrappers', '<section id="outer"> <!-- c --> <div><h2>Intro</h2><p>x</p></div></section>', 'outer'],
    ['wrapper that does not start with the heading', '<div id="wrap"><span></span><h2>Intro</h2><p>x</p></div>', null],
    ['<a name> inside heading', '<h2><a name="legacy"></a>Intro</h2><p>x</p>', 'legacy'],
    ['hidden GitHub-style <a id> inside heading', '<h2><a id="user-content-i" class="anchor" aria-hidden="true" href="#i"><svg></svg></a>Intro</h2><p>x</p>', 'user-content-i'],
    ['headerlink href as last resort', '<h3>Intro<a class="headerlink" href="#fallback">¶</a></h3><p>x</p>', 'fallback'],
    ['no anchor at all', '<h2>Intro</h2><p>x</p>', null],
  ];
  it.each(cases)('%s', (_name, html, anchor) => {
    expect(brief(htmlToSections(html))).toEqual([{ title: 'Intro', anchor, text: 'x' }]);
  });

  it('splits at every heading level, in order, with ord', () => {
    const s = htmlToSections('<h1>A</h1><p>a</p><h2>B</h2><p>b</p><h6>C</h6><p>c</p>');
    expect(s.map((x) => [x.ord, x.title, x.text])).toEqual([[0, 'A', 'a'], [1, 'B', 'b'], [2, 'C', 'c']]);
  });

  it('drops sections without text (heading directly followed by a sub-heading)', () => {
    expect(brief(htmlToSections('<h1 id="p">Parent</h1><h2 id="c">Child</h2><p>body</p><h2>Empty</h2>')))
      .toEqual([{ title: 'Child', anchor: 'c', text: 'body' }]);
  });

  it('a heading with no text is not a boundary', () => {
    expect(brief(htmlToSections('<h2>T</h2><p>a</p><h3><a class="headerlink" href="#x">¶</a></h3><p>b</p>')))
      .toEqual([{ title: 'T', anchor: null, text: 'a\n\nb' }]);
  });
});

describe('htmlToSections: header-link removal', () => {
  it.each([
    ['Sphinx headerlink', '<h2>Title<a class="headerlink" href="#t" title="Permalink to this heading">¶</a></h2>'],
    ['bare pilcrow', '<h2>Title ¶</h2>'],
    ['# link', '<h2><a href="#t">#</a> Title</h2>'],
    ['header-anchor class', '<h2>Title <a class="header-anchor" href="#t">🔗</a></h2>'],
    ['whitespace inside heading', '<h2>\n  Title\n  </h2>'],
  ])('%s', (_name, heading) => {
    expect(htmlToSections(`${heading}<p>x</p>`)[0].title).toBe('Title');
  });

  it('keeps the heading text of a toc-backref link', () => {
    const h = '<h2><a class="toc-backref" href="#id3" role="doc-backlink">Why X?</a><a class="headerlink" href="#why-x">¶</a></h2>';
    expect(htmlToSections(`<section id="why-x">${h}<p>x</p></section>`)[0]).toMatchObject({ title: 'Why X?', anchor: 'why-x' });
  });

  it('drops permalinks on API entries from their title and body', () => {
    const html = `<h2>API</h2><dl><dt id="f">f(x)<a class="headerlink" href="#f">¶</a></dt><dd><p>${long('Does f.')}</p></dd></dl>`;
    expect(brief(htmlToSections(html))).toEqual([{ title: 'f(x)', anchor: 'f', text: long('Does f.') }]);
  });
  it('keeps a permalink-only dt (no id) in the body text', () => {
    const html = '<h2>API</h2><dl><dt>f(x)<a class="headerlink" href="#f">¶</a></dt><dd><p>Does f.</p></dd></dl>';
    expect(only(html).text).toBe('f(x)\n\nDoes f.');
  });
});

/** An entry's description, a sentence or two as in a real reference. */
const long = (s: string) => `${s} It takes a few more words than a one-line entry.`;

describe('htmlToSections: anchored items a reader can link to', () => {
  it('splits a definition list at each dt with an id (API reference)', () => {
    const html = `<h1 id="os">os</h1><p>Intro.</p><dl><dt id="os.getcwd">os.getcwd()</dt><dd><p>${long('Current directory.')}</p></dd>` +
      `<dt id="os.chdir">os.chdir(path)</dt><dd><p>${long('Change it.')}</p></dd></dl>`;
    expect(brief(htmlToSections(html))).toEqual([
      { title: 'os', anchor: 'os', text: 'Intro.' },
      { title: 'os.getcwd()', anchor: 'os.getcwd', text: long('Current directory.') },
      { title: 'os.chdir(path)', anchor: 'os.chdir', text: long('Change it.') },
    ]);
  });

  it('takes the id of an element at the start of the dt', () => {
    const html = `<dl><dt><a id="term-x"></a>x</dt><dd>${long('An x.')}</dd><dt><span id="term-y">y</span></dt><dd>${long('A y.')}</dd></dl>`;
    expect(brief(htmlToSections(html))).toEqual([
      { title: 'x', anchor: 'term-x', text: long('An x.') },
      { title: 'y', anchor: 'term-y', text: long('A y.') },
    ]);
  });

  it('a dt without any id is not a boundary', () => {
    expect(brief(htmlToSections('<h2 id="g">Glossary</h2><dl><dt>x</dt><dd>An x.</dd><dt>y <i>z</i></dt><dd>A y.</dd></dl>')))
      .toEqual([{ title: 'Glossary', anchor: 'g', text: 'x\nAn x.\ny z\nA y.' }]);
  });

  it('an item with no text of its own (dts sharing one dd) joins the section before it as text', () => {
    const html = '<h2 id="c">Constants</h2><p>Intro.</p><dl><dt id="A">A</dt><dd>First.</dd><dt id="B">B</dt><dt id="C">C</dt><dd>B or C.</dd></dl>';
    expect(brief(htmlToSections(html))).toEqual([
      { title: 'Constants', anchor: 'c', text: 'Intro.' },
      { title: 'A', anchor: 'A', text: 'First.\n\nB' },
      { title: 'C', anchor: 'C', text: 'B or C.' },
    ]);
  });

  it('after the list, text goes back to the section that held it; nested members return to their class', () => {
    const html = `<h2 id="api">API</h2><p>Intro.</p><dl><dt id="C">class C</dt><dd><p>${long('A class.')}</p>` +
      `<dl><dt id="C.m">m()</dt><dd>${long('A method.')}</dd></dl><p>${long('More on C.')}</p></dd></dl><p>After the list.</p>`;
    expect(brief(htmlToSections(html))).toEqual([
      { title: 'API', anchor: 'api', text: 'Intro.' },
      { title: 'class C', anchor: 'C', text: long('A class.') },
      { title: 'm()', anchor: 'C.m', text: long('A method.') },
      { title: 'class C', anchor: 'C', text: long('More on C.') },
      { title: 'API', anchor: 'api', text: 'After the list.' },
    ]);
  });

  it('splits an FAQ at each named anchor followed by a bold lead paragraph', () => {
    const html = `<h1>FAQ</h1><a name="q1"></a>\n<p><b>How do I install it?</b></p><p>${long('Run the installer.')}</p>` +
      `<p><a name="q2"></a><strong>Is it free?</strong> ${long('Yes, under the MIT licence.')}</p>`;
    expect(brief(htmlToSections(html))).toEqual([
      { title: 'How do I install it?', anchor: 'q1', text: long('Run the installer.') },
      { title: 'Is it free?', anchor: 'q2', text: long('Yes, under the MIT licence.') },
    ]);
  });

  it('a paragraph with its own id and a bold lead is an item too', () => {
    expect(brief(htmlToSections(`<p id="q3"><b>Why?</b> ${long('Because.')}</p>`))).toEqual([{ title: 'Why?', anchor: 'q3', text: long('Because.') }]);
  });

  it('bold text is no lead without an anchor right before it, nor mid-paragraph', () => {
    const html = '<h2 id="h">H</h2><p><b>Note</b> plain.</p><a name="x"></a><p>Text <b>bold</b> more.</p>' +
      '<p>Some <a name="y"></a><b>mid</b> text.</p>';
    expect(brief(htmlToSections(html))).toEqual([{ title: 'H', anchor: 'h', text: 'Note plain.\n\nText bold more.\n\nSome mid text.' }]);
  });

  it('splits a table at each row with an id, titled by its first cell', () => {
    const html = '<h2 id="codes">Codes</h2><table><tr><th>Code</th><th>Meaning</th></tr>' +
      `<tr id="e1"><td>E1</td><td>${long('Disk full.')}</td></tr><tr><td>E1b</td><td>Quota</td></tr>` +
      `<tr id="e2"><td>E2</td><td>${long('No network.')}</td></tr></table><p>See also.</p>`;
    expect(brief(htmlToSections(html))).toEqual([
      { title: 'Codes', anchor: 'codes', text: 'Code | Meaning' },
      { title: 'E1', anchor: 'e1', text: `${long('Disk full.')}\nE1b | Quota` },
      { title: 'E2', anchor: 'e2', text: long('No network.') },
      { title: 'Codes', anchor: 'codes', text: 'See also.' },
    ]);
  });
});

describe('htmlToSections: text layout', () => {
  const cases: Array<[string, string, string]> = [
    ['p gives paragraphs', '<p>a</p><p>b</p>', 'a\n\nb'],
    ['br gives line breaks', '<p>a<br>b<br/>c</p>', 'a\nb\nc'],
    ['repeated br: at most one empty line', '<p>a<br><br><br><br>b</p>', 'a\n\nb'],
    ['collapses whitespace, source newlines are spaces', '<p>  lots   of\n\t space\n</p>', 'lots of space'],
    ['inline elements do not add spaces', '<p>foo<b>bar</b> <i>baz</i>.</p>', 'foobar baz.'],
    ['list items are lines', '<ul><li>one</li><li>two</li></ul>', 'one\ntwo'],
    ['at most one empty line between blocks', '<div><p>a</p></div><div></div><p> </p><hr><blockquote><p>b</p></blockquote>', 'a\n\nb'],
    ['table rows are lines, cells joined', '<table><tr><th>A</th><th>B</th></tr><tr><td><p>1</p><p>one</p></td>\n <td><p>2</p></td><td></td><td>4</td></tr></table>', 'A | B\n1 one | 2 | | 4'],
    ['nbsp is whitespace', '<p>a&nbsp;&nbsp;b</p>', 'a b'],
    ['pre keeps newlines and indentation', '<p>Code:</p><pre>def f():\n    return  1\n\n\nx = 2\n</pre><p>after</p>', 'Code:\n\ndef f():\n    return  1\n\n\nx = 2\n\nafter'],
    ['pre drops the newline right after <pre>', '<pre>\nfirst\n  second</pre>', 'first\n  second'],
    ['highlighted pre (Sphinx spans)', '<div class="highlight"><pre><span></span><span class="k">if</span> <span class="n">x</span>:\n    <span class="n">y</span>\n</pre></div>', 'if x:\n    y'],
    ['textarea is verbatim', '<p>t</p><textarea>a  b\n  c</textarea>', 't\n\na  b\n  c'],
  ];
  it.each(cases)('%s', (_name, body, text) => {
    expect(only(`<h1>T</h1>${body}`).text).toBe(text);
  });

  it('keeps the indentation of a leading code line', () => {
    expect(only('<h1>T</h1><pre>    indented()\nx</pre>').text).toBe('    indented()\nx');
  });
});

describe('htmlToSections: content selection', () => {
  it('skips script, style, nav, hidden and similar elements', () => {
    const html = `<html><head><title>T</title><style>p{}</style><script>var a = "<p>no</p>";</script></head><body>
      <nav><a href="/">Home</a></nav><div role="navigation">Sidebar</div>
      <h1>Doc</h1><p>keep<script>no()</script><noscript>no</noscript> this</p>
      <template><p>no</p></template><svg><text>no</text></svg>
      <p hidden>no</p><p aria-hidden="true">no</p><p style="display: none">no</p><p>end</p></body></html>`;
    expect(brief(htmlToSections(html))).toEqual([{ title: 'Doc', anchor: null, text: 'keep this\n\nend' }]);
  });

  it('uses only <main> when present', () => {
    const html = '<body><header><h1>Site</h1><p>tagline</p></header><main><h1>Real</h1><p>x</p></main><footer>foot</footer></body>';
    expect(brief(htmlToSections(html))).toEqual([{ title: 'Real', anchor: null, text: 'x' }]);
  });

  it('uses only role="main" when present (Sphinx div.body)', () => {
    const html = '<div class="related" role="navigation">prev</div><p>outside</p><div class="body" role="main"><section id="a"><h1>A</h1><p>in</p></section></div><div class="sphinxsidebar"><h3>Quick search</h3></div><p>after</p>';
    expect(brief(htmlToSections(html))).toEqual([{ title: 'A', anchor: 'a', text: 'in' }]);
  });

  it('ignores a <main> inside a skipped element', () => {
    expect(brief(htmlToSections('<template><main>t</main></template><h1>B</h1><p>body</p>')))
      .toEqual([{ title: 'B', anchor: null, text: 'body' }]);
  });
});

describe('htmlToSections: text before the first heading', () => {
  const page = '<html><head><title> Page\n Title </title></head><body><p>intro</p><h2 id="s">S</h2><p>x</p></body></html>';
  it('is titled by <title>, anchor null', () => {
    expect(brief(htmlToSections(page))).toEqual([
      { title: 'Page Title', anchor: null, text: 'intro' },
      { title: 'S', anchor: 's', text: 'x' },
    ]);
  });
  it('uses fallbackTitle when given (even empty)', () => {
    expect(htmlToSections(page, { fallbackTitle: 'Doc' })[0].title).toBe('Doc');
    expect(htmlToSections(page, { fallbackTitle: '' })[0].title).toBe('');
  });
  it("is '' without <title>, and absent without text", () => {
    expect(htmlToSections('<p>just text</p>')).toEqual([{ ord: 0, title: '', anchor: null, text: 'just text' }]);
    expect(htmlToSections('<title>T</title><h1>H</h1><p>x</p>').map((s) => s.title)).toEqual(['H']);
  });
  it('does not use an svg <title> as the page title', () => {
    expect(htmlToSections('<svg><title>icon</title></svg><p>x</p>')[0].title).toBe('');
  });
});

describe('htmlToSections: splitting long sections', () => {
  const para = (n: number) => `Sentence ${n} is here. And another one follows it.`;
  const html = `<section id="big"><h2>Big</h2>${Array.from({ length: 40 }, (_, i) => `<p>${para(i)}</p>`).join('')}</section>`;

  it('splits at paragraph boundaries, keeping title and anchor', () => {
    const s = htmlToSections(html, { maxSectionChars: 300 });
    expect(s.length).toBeGreaterThan(5);
    for (const [i, x] of s.entries()) {
      expect(x).toMatchObject({ ord: i, title: 'Big', anchor: 'big' });
      expect(x.text.length).toBeLessThanOrEqual(300);
      expect(x.text).toMatch(/^Sentence \d+ is here\..*follows it\.$/s);
    }
    expect(s.map((x) => x.text).join('\n\n')).toBe(htmlToSections(html)[0].text);
  });

  it('falls back to lines, then sentences/spaces, never cutting words', () => {
    const line = 'word '.repeat(10).trim();
    const lines = htmlToSections(`<h1>L</h1><pre>${`${line}\n`.repeat(20)}</pre>`, { maxSectionChars: 120 });
    expect(lines.length).toBe(10);
    for (const x of lines) expect(x.text).toMatch(/^(word( word){9}\n?)+$/);
    const words = htmlToSections(`<h1>W</h1><p>${'alpha beta gamma. '.repeat(50)}</p>`, { maxSectionChars: 100 });
    expect(words.length).toBeGreaterThan(5);
    for (const x of words) {
      expect(x.text.length).toBeLessThanOrEqual(100);
      expect(x.text).toMatch(/^alpha .*gamma\.$/);
    }
  });

  it('cuts inside a word only when the word alone exceeds the limit', () => {
    const s = htmlToSections(`<h1>W</h1><p>short ${'x'.repeat(250)} tail</p>`, { maxSectionChars: 100 });
    expect(s.map((x) => x.text)).toEqual(['short', 'x'.repeat(100), 'x'.repeat(100), `${'x'.repeat(50)} tail`]);
  });

  it('defaults to 4000 chars', () => {
    const s = htmlToSections(`<h1>D</h1>${'<p>0123456789 0123456789 0123456789 0123456789</p>'.repeat(200)}`);
    expect(s.length).toBe(3);
    for (const x of s) expect(x.text.length).toBeLessThanOrEqual(4000);
    for (const bad of [0, -5, Number.NaN]) expect(htmlToSections(`<h1>D</h1>${'<p>0123456789 0123456789 0123456789 0123456789</p>'.repeat(200)}`, { maxSectionChars: bad })).toEqual(s);
  });
});

describe('htmlToSections: entities and malformed input', () => {
  it('decodes entities in text, titles and anchors', () => {
    expect(brief(htmlToSections('<h2 id="a&amp;b">Q &amp; A &lt;tag&gt;</h2><p>caf&eacute; &#x1F600; &copy; &#169; &quot;q&quot; &unknown;</p>')))
      .toEqual([{ title: 'Q & A <tag>', anchor: 'a&b', text: 'café 😀 © © "q" &unknown;' }]);
  });

  it.each([
    ['unclosed tags', '<h1>T</h1><p>a<div>b<span>c', [{ title: 'T', anchor: null, text: 'a\n\nbc' }]],
    ['stray closing tags', '</div></p><h1>T</h1></span><p>a</b></p></section>', [{ title: 'T', anchor: null, text: 'a' }]],
    ['implied p closes', '<h1>T</h1><p>a<p>b<ul><li>c<li>d</ul>', [{ title: 'T', anchor: null, text: 'a\n\nb\n\nc\nd' }]],
    ['unterminated tag', '<h1>T</h1><p>a</p><div class="x', [{ title: 'T', anchor: null, text: 'a' }]],
  ])('%s', (_name, html, expected) => {
    expect(brief(htmlToSections(html))).toEqual(expected);
  });

  it('never throws on junk', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pieces = ['<', '>', '</', '<h2>', '</h2>', '<pre>', '<main>', '</main>', '<td>', '<tr>', '&', '&#', '&amp', '\n', ' ', '¶', '\u0000', '\ud800', 'x', '<!--', '-->', '<script>', '<![CDATA[', '"', '=', '<section id=a>', '<br>'];
    const inputs: unknown[] = ['', '<', '<<<>>>', '\u0000\u0001\ufffe', Buffer.from([0xff, 0xfe, 0, 1, 200]).toString('latin1'), undefined, null, 42];
    for (let i = 0; i < 300; i++) inputs.push(Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => pieces[Math.floor(rnd() * pieces.length)]).join(''));
    for (const input of inputs) {
      const s = htmlToSections(input as string, { maxSectionChars: 7 });
      expect(Array.isArray(s)).toBe(true);
      for (const x of s) {
        expect(x.text).not.toBe('');
        expect(x.text).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      }
    }
    expect(htmlToSections('')).toEqual([]);
  });

  it('survives very deep nesting', () => {
    const html = `<h1>Deep</h1>${'<div>'.repeat(10_000)}bottom${'</div>'.repeat(10_000)}`;
    expect(brief(htmlToSections(html))).toEqual([{ title: 'Deep', anchor: null, text: 'bottom' }]);
  });
});

const tarball = fileURLToPath(new URL('../../../shared/data/python-docs/python-3.11.2-html.tar.gz', import.meta.url));

describe('htmlToSections: real Sphinx page', () => {
  it.skipIf(!existsSync(tarball))('sections faq/design.html of the Python 3.11.2 docs', () => {
    const html = execFileSync('tar', ['-xzf', tarball, '-O', 'python-3.11.2/faq/design.html'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const sections = htmlToSections(html);
    const s = sections.find((x) => x.title === 'Why does Python use indentation for grouping of statements?');
    expect(s).toBeDefined();
    expect(s!.anchor).toBe('why-does-python-use-indentation-for-grouping-of-statements');
    expect(s!.text.startsWith('Guido van Rossum believes')).toBe(true);
    expect(s!.text).toContain('if (x <= y)\n        x++;\n        y--;\nz++;');
    expect(sections.every((x) => !x.title.includes('¶') && !x.text.includes('¶'))).toBe(true);
    expect(sections.some((x) => /Quick search|Table of Contents/.test(x.text))).toBe(false); // sidebar/nav skipped
    expect(sections.map((x) => x.ord)).toEqual(sections.map((_, i) => i));
  }, 30_000);
});
