/**
 * The form in which queries are counted, suggested and learnt from: compatibility forms folded,
 * lower case, whitespace collapsed, so "How to  Install?" and "how to install?" are one query.
 */
export function normalizeQuery(query: string): string {
  return query.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}
