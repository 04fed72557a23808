import { z } from 'zod';
import { normalizeQuery } from '../../shared/search/query/normalize-query.js';
import { MAX_QUERY_CHARS } from './search-interface-schemas.js';
import { nextCursorSchema, pageFields, uidCursor } from './list-page.js';

/** A suggestion to block or unblock, in any spelling: it is compared as autocomplete counts queries (normalized). */
export const blockedSuggestionSchema = z.object({
  suggestion: z.string({ error: 'is required' })
    .max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)
    .transform(normalizeQuery)
    .refine((q) => q.length > 0, 'must not be empty')
    .describe('The suggestion as shown or typed; case and spacing do not matter'),
});

/** A page of them by code point; a cursor holds a whole suggestion (500 characters of up to 4 UTF-8 bytes, base64url). */
const blockedPageFields = pageFields('Blocked suggestions', uidCursor, 3000);
export const blockedSuggestionListQuerySchema = z.strictObject(blockedPageFields);
/** Blocking answers the first page; the query string may carry `suggestion` as well. */
export const blockedSuggestionPageSchema = z.object(blockedPageFields);

export const blockedSuggestionsViewSchema = z.object({
  blocked_suggestions: z.array(z.string()).describe('Normalized (lower case, spaces collapsed), sorted by code point: a page of them'),
  next_cursor: nextCursorSchema,
});
