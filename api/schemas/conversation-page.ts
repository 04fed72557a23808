import { z } from 'zod';
import type { ConversationPage, ConversationSummary } from '../../shared/storage/ports/conversation-store.js';

/** An opaque cursor: the last conversation of a page (its latest turn's time and its id), base64url. */
const cursor = z.string().max(400, 'must be at most 400 characters').transform((value, ctx) => {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  const updatedAt = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(updatedAt) || colon === text.length - 1) {
    ctx.addIssue({ code: 'custom', message: 'is not a next_cursor this API gave; start without one' });
    return z.NEVER;
  }
  return { updatedAt, id: text.slice(colon + 1) };
});

/** `limit` and `cursor` of a conversation listing; pages follow the listing's order (latest first). */
export const conversationPageFields = {
  limit: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be from 1 to 1000')
    .max(1000, 'must be from 1 to 1000').default(1000).describe('Conversations per page (default and most 1000)'),
  cursor: cursor.optional().describe('`next_cursor` of the previous page'),
};

/** The store page to ask for: one more than `limit`, to know whether another page follows. */
export function storePage(q: { limit: number; cursor?: { updatedAt: number; id: string } }): ConversationPage {
  return { limit: q.limit + 1, ...(q.cursor ? { after: q.cursor } : {}) };
}

/** The rows of the page and the cursor of the next one (null on the last page). */
export function pageOf(rows: ConversationSummary[], limit: number): { rows: ConversationSummary[]; next_cursor: string | null } {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return { rows: shown, next_cursor: rows.length > limit ? Buffer.from(`${last.updatedAt}:${last.id}`).toString('base64url') : null };
}
