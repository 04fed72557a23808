import type { FieldSpec } from '../indexes/index-schema.js';
import type { PlainSection } from '../jobs/pipeline-jobs.js';
import { textHash } from '../documents/fields-hash.js';
import { escapeHtml } from '../text/escape-html.js';
import { htmlToSections, type Section } from './html-to-sections.js';
import { own } from '../records/own.js';

const MAX_SECTION_CHARS = 4000;

/** The text a section is embedded and hashed as: its title gives the paragraph its topic. */
export const embeddingText = (s: { title: string; text: string }) => (s.title ? `${s.title}\n${s.text}` : s.text);

/**
 * Splits a document into the sections that search returns: html fields at their headings, other
 * text fields as sections of their own, all titled by the document's `title` field when they have
 * no heading. A document with no body text still gets one section so its title can be found.
 */
export function documentSections(fields: Record<string, FieldSpec>, values: Record<string, unknown>): PlainSection[] {
  const title = typeof values.title === 'string' ? values.title.trim() : '';
  const out: (Section & { field: string })[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    if (name === 'title') continue;
    for (const value of asStrings(own(values, name))) {
      if (spec.type === 'html') {
        out.push(...htmlToSections(value, { fallbackTitle: title, maxSectionChars: MAX_SECTION_CHARS }).map((x) => ({ ...x, field: name })));
      } else if (spec.type === 'text') {
        out.push(...htmlToSections(`<pre>${escapeHtml(value)}</pre>`, { fallbackTitle: title, maxSectionChars: MAX_SECTION_CHARS }).map((x) => ({ ...x, field: name })));
      }
    }
  }
  if (out.length === 0) out.push({ ord: 0, field: '', title, anchor: null, text: '' });
  return out.map((s, ord) => ({
    ord,
    field: s.field,
    title: s.title,
    anchor: s.anchor,
    text: s.text,
    hash: textHash(embeddingText(s)),
  }));
}

function asStrings(v: unknown): string[] {
  if (typeof v === 'string') return v ? [v] : [];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && x.length > 0);
  return [];
}
