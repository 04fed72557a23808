// Elements that could run code, load frames, restyle the widget or confuse a re-parse (mutation XSS).
const DROP = 'script,style,link,meta,base,iframe,frame,object,embed,template,noscript,svg,math,form';
const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset']);

/**
 * Server HTML (escaped paragraphs, instant answers sanitized when saved) made safe to insert a second time, in
 * case a proxy or an old record slipped something through. No `style` attributes either: a host page's
 * Content-Security-Policy without 'unsafe-inline' styles would refuse them and report each one.
 */
export function cleanHtml(html: string): string {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  body.querySelectorAll(DROP).forEach((el) => el.remove());
  for (const el of Array.from(body.querySelectorAll('*'))) {
    for (const { name, value } of Array.from(el.attributes)) {
      const unsafeUrl = URL_ATTRS.has(name) && !/^(https?:|mailto:|tel:|[/#?.]|[^:]*$)/i.test(value.trim());
      if (name.startsWith('on') || name === 'style' || unsafeUrl) el.removeAttribute(name);
    }
    if (el.getAttribute('target') === '_blank') el.setAttribute('rel', 'noopener noreferrer');
  }
  return body.innerHTML;
}

/** The text of a summary's HTML (`<p>` paragraphs of escaped text), paragraphs as blank lines. */
export function htmlText(html: string): string {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  body.querySelectorAll('.line-break').forEach((s) => s.replaceWith('\n'));
  return Array.from(body.children.length ? body.children : [body], (p) => p.textContent ?? '').join('\n\n').trim();
}
