/// <reference types="node" />
// The widget type-checks against these schemas (its responses), in a project without Node types: this file uses Buffer.
import { z } from 'zod';
import type { CreatedKey, ListPage } from '../../shared/storage/ports/list-page.js';

/** Largest page of every admin listing, and its default (docs/admin-api.md, docs/security.md). */
export const MAX_PAGE = 1000;
const RANGE = `must be from 1 to ${MAX_PAGE}`;

/** How the sort key of a page's last row travels to the next request: text, sent base64url so it is opaque. */
export interface CursorCodec<K> {
  encode(key: K): string;
  /** null: not something `encode` wrote. */
  decode(text: string): K | null;
}

/** Rows ordered by a time (ms) and then an id: `<ms>:<id>`. */
export function timeIdCursor<F extends string>(field: F): CursorCodec<Record<F, number> & { id: string }> {
  return {
    encode: (key) => `${key[field]}:${key.id}`,
    decode(text) {
      const colon = text.indexOf(':');
      const at = Number(text.slice(0, colon));
      if (colon < 1 || !Number.isSafeInteger(at) || colon === text.length - 1) return null;
      return { [field]: at, id: text.slice(colon + 1) } as Record<F, number> & { id: string };
    },
  };
}

/** Listings oldest first (keys, configurations, instant answers). */
export const createdCursor: CursorCodec<CreatedKey> = timeIdCursor('createdAt');

/** Listings by uid or another unique text (indexes, sources, blocked suggestions): `uid:<text>`, so that no other cursor passes for one. */
export const uidCursor: CursorCodec<string> = {
  encode: (uid) => `uid:${uid}`,
  decode: (text) => (text.startsWith('uid:') && text.length > 4 ? text.slice(4) : null),
};

/** `limit` and `cursor` of a listing whose pages `codec` continues; `cursorChars` fits the longest key it encodes. */
export function pageFields<K>(noun: string, codec: CursorCodec<K>, cursorChars = 400) {
  const cursor = z.string().max(cursorChars, `must be at most ${cursorChars} characters`).transform((value, ctx) => {
    const key = codec.decode(Buffer.from(value, 'base64url').toString('utf8'));
    if (key !== null) return key;
    ctx.addIssue({ code: 'custom', message: 'is not a next_cursor this API gave; start without one' });
    return z.NEVER;
  });
  return {
    limit: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, RANGE).max(MAX_PAGE, RANGE)
      .default(MAX_PAGE).describe(`${noun} per page (default and most ${MAX_PAGE})`),
    cursor: cursor.optional().describe('`next_cursor` of the previous page'),
  };
}

/** The query string of a listing that takes nothing but its page. */
export const pageQuerySchema = <K>(noun: string, codec: CursorCodec<K>, cursorChars?: number) => z.strictObject(pageFields(noun, codec, cursorChars));

/** `next_cursor` as every paged response carries it. */
export const nextCursorSchema = z.string().nullable().describe('Pass as `cursor` for the next page; null on the last one');

/** The store page to ask for: one more than `limit`, to know whether another page follows. */
export function storePage<K>(q: { limit: number; cursor?: K }): ListPage<K> {
  return { limit: q.limit + 1, ...(q.cursor !== undefined ? { after: q.cursor } : {}) };
}

/** The rows of the page and the cursor of the next one (null on the last page). */
export function pageOf<R, K>(rows: R[], limit: number, codec: CursorCodec<K>, keyOf: (row: R) => K): { rows: R[]; next_cursor: string | null } {
  const shown = rows.slice(0, limit);
  const next = rows.length > limit ? codec.encode(keyOf(shown[shown.length - 1])) : null;
  return { rows: shown, next_cursor: next === null ? null : Buffer.from(next).toString('base64url') };
}
