import { describe, expect, it } from 'vitest';
import { checkSelector, extractPage } from '../../shared/crawl/extract-page.js';

const page = `<!doctype html>
<html><head>
  <title>  Install
    guide </title>
  <link rel="alternate stylesheet" href="/x.css">
  <link rel="Canonical" href="/docs/install#top">
  <script>var tracking = 1;</script>
</head><body>
  <header><a href="/">Home</a><nav><a href="/docs/">Docs</a></nav></header>
  <main>
    <header><h1>Install</h1></header>
    <p>Run <code>npm i</code>. See <a href="faq.html#q1">the FAQ</a>, <a href="https://other.example/x" rel="nofollow">sponsor</a>,
      <a href="mailto:a@example.com">mail</a>, <a href="javascript:void(0)">nothing</a>.</p>
    <div class="price" data-currency="EUR" onclick="steal()" style="color: red">
      <b>10</b> € <script>alert(1)</script><style>.x{}</style>
      <a href=" java&#9;script:alert(2)" title="t">bad link</a>
      <a href="/buy" onmouseover="x()">buy</a>
    </div>
    <div class="price"><i>20</i></div>
    <footer>Last edited today</footer>
  </main>
  <aside>Related</aside>
  <footer>© Example</footer>
</body></html>`;

describe('extractPage', () => {
  const url = 'https://example.com/docs/install?ref=nav';

  it('takes title, canonical and followable links', () => {
    const p = extractPage(page, url);
    expect(p.title).toBe('Install guide');
    expect(p.canonical).toBe('https://example.com/docs/install');
    expect(p.links).toEqual(['https://example.com/', 'https://example.com/docs/', 'https://example.com/docs/faq.html', 'https://example.com/buy']);
    expect(p.noindex).toBe(false);
  });

  it('keeps the main content without page furniture', () => {
    const p = extractPage(page, url);
    expect(p.contentHtml).toContain('<h1>Install</h1>');
    expect(p.contentHtml).toContain('Last edited today');
    expect(p.contentHtml).not.toMatch(/<script|<style|<nav|© Example|Related/);
    expect(p.text).toMatch(/^Install Run npm i \. See the FAQ ,/);
  });

  it('tries content alternatives in order and honours custom drop selectors', () => {
    const html = '<body><div id="content"><p>Body</p><div class="ad">Ad</div></div><p>outside</p></body>';
    const p = extractPage(html, url, { contentSelector: '#missing, #content, body', dropSelectors: ['.ad'] });
    expect(p.contentHtml).toBe('<p>Body</p>');
    expect(extractPage('<p>only body</p>', url).text).toBe('only body');
  });

  it('keeps fragment attributes named like Object.prototype members', () => {
    const p = extractPage('<div class="f" constructor="c" valueof="v" hasownproperty="h">x</div>', url, { fragments: ['.f'] });
    const attr = p.fragments[0].matches[0].attr!;
    expect(Object.entries(attr)).toEqual([['class', 'f'], ['constructor', 'c'], ['valueof', 'v'], ['hasownproperty', 'h']]);
  });

  it('returns fragments as node trees from the original page, without scripts, styles, handlers or javascript: urls', () => {
    const p = extractPage(page, url, { fragments: ['.price', '#absent', 'header h1'] });
    expect(p.fragments).toHaveLength(3);
    const [price, absent, heading] = p.fragments;
    expect(absent).toEqual({ selector: '#absent', matches: [] });
    expect(heading).toEqual({
      selector: 'header h1',
      matches: [{ type: 'tag', tag: 'h1', attr: {}, children: [{ type: 'text', data: 'Install' }] }],
    });
    expect(price.selector).toBe('.price');
    expect(price.matches).toHaveLength(2);
    const first = price.matches[0];
    expect(first).toMatchObject({ type: 'tag', tag: 'div', attr: { class: 'price', 'data-currency': 'EUR', style: 'color: red' } });
    const serialized = JSON.stringify(price.matches);
    expect(serialized).not.toMatch(/onclick|onmouseover|alert|script|\.x\{\}/i);
    expect(first.children).toContainEqual({ type: 'tag', tag: 'b', attr: {}, children: [{ type: 'text', data: '10' }] });
    expect(first.children).toContainEqual({ type: 'tag', tag: 'a', attr: { title: 't' }, children: [{ type: 'text', data: 'bad link' }] });
    expect(first.children).toContainEqual({ type: 'tag', tag: 'a', attr: { href: '/buy' }, children: [{ type: 'text', data: 'buy' }] });
    expect(price.matches[1]).toEqual({
      type: 'tag',
      tag: 'div',
      attr: { class: 'price' },
      children: [{ type: 'tag', tag: 'i', attr: {}, children: [{ type: 'text', data: '20' }] }],
    });
  });

  it('takes fragments before the drop selectors remove anything', () => {
    const p = extractPage(page, url, { fragments: ['body > footer'] });
    expect(p.fragments[0].matches).toEqual([{ type: 'tag', tag: 'footer', attr: {}, children: [{ type: 'text', data: '© Example' }] }]);
  });

  it('follows meta robots and <base href>', () => {
    const html = '<head><base href="https://cdn.example.com/v2/"><meta name="robots" content="noindex, nofollow"></head><a href="a">a</a>';
    expect(extractPage(html, url)).toMatchObject({ noindex: true, links: [] });
    const based = extractPage('<head><base href="/v2/"></head><a href="a">a</a>', url);
    expect(based.links).toEqual(['https://example.com/v2/a']);
  });

  it('rejects selectors it cannot run, with a message', () => {
    expect(checkSelector('.price > b')).toBeNull();
    expect(checkSelector('a[')).toMatch(/"a\[" is not a CSS selector/);
    expect(checkSelector('p:nope')).toMatch(/not a CSS selector/);
    expect(() => extractPage(page, url, { fragments: ['p:nope'] })).toThrow(/not a CSS selector/);
  });
});
