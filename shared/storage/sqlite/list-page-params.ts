import type { CreatedKey, ListPage } from '../ports/list-page.js';

// Named parameters of the listings' keyset queries. LIMIT -1 is SQLite's "no limit" (every row, for callers
// that need them all); ids compare as BINARY, i.e. by code point, as on PostgreSQL with COLLATE "C".

export interface CreatedPageParams {
  limit: number;
  afterAt: number | null;
  afterId: string;
}

export interface UidPageParams {
  limit: number;
  after: string | null;
}

export const createdPageParams = (page?: ListPage<CreatedKey>): CreatedPageParams =>
  ({ limit: page?.limit ?? -1, afterAt: page?.after?.createdAt ?? null, afterId: page?.after?.id ?? '' });

export const uidPageParams = (page?: ListPage<string>): UidPageParams => ({ limit: page?.limit ?? -1, after: page?.after ?? null });
