import { escapeHtml } from '../../text/escape-html.js';

export const LINE_BREAK = '<span class="service line-break"></span>';

/**
 * A section as a `paragraph` result's content: plain text inside one <p>, every character that could
 * start markup escaped (a document is untrusted, the widget inserts this as HTML), and each line
 * break of the original (\n, \r\n, \r, U+2028/2029) replaced by the placeholder element.
 */
export function paragraphHtml(text: string): string {
  return `<p>${text.split(/\r\n|[\n\r\u2028\u2029]/).map(escapeHtml).join(LINE_BREAK)}</p>`;
}
