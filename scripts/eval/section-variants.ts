import type { Target } from '../bench/http-load.js';
import { round } from '../bench/stats.js';
import { pushPages } from './ui-search-client.js';
import type { Page } from './python-docs.js';
import { headingsOnly } from './section-shapes.js';

/**
 * Before and after in one run: the same pages pushed into two indexes of the same private stack,
 * "before" without item anchors (sections at h1–h6 only, see section-shapes.ts), "after" as they are
 * (sections at headings and anchored items). Everything else (ranking, embedder, fusion) is shared.
 */
export interface BeforeAfter<T> {
  before: T;
  after: T;
}

export async function pushBeforeAfter(
  api: Target, prefix: string, pages: Page[], assertAlive: () => void, say: (m: string) => void, site?: string,
): Promise<BeforeAfter<string>> {
  const stamp = Date.now().toString(36);
  const indexes = { before: `${prefix}-headings-${stamp}`, after: `${prefix}-items-${stamp}` };
  say(`pushing ${pages.length} pages into ${indexes.after} (sections at headings and anchored items)`);
  await pushPages(api, indexes.after, pages, assertAlive, say, site);
  say(`pushing the same ${pages.length} pages into ${indexes.before} (item anchors removed: sections at h1–h6 only)`);
  await pushPages(api, indexes.before, pages.map((p) => ({ ...p, content: headingsOnly(p.content) })), assertAlive, say, site);
  return indexes;
}

export const pct = (n: number, d: number) => (d ? `${round((100 * n) / d, 1)}%` : '—');

/** "a → b", or just "a" when both are the same. */
export const change = (before: string, after: string) => (before === after ? after : `${before} → ${after}`);
