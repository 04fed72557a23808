/**
 * A page of an admin listing: at most `limit` rows, after `after`, the sort key of the previous page's last row.
 * Keyset paging: a row inserted or deleted between two pages moves no other row to another page, so a walk
 * meets every row that exists throughout it exactly once.
 */
export interface ListPage<K> {
  limit: number;
  after?: K;
}

/** Sort key of listings oldest first: creation time, then id by code point. */
export interface CreatedKey {
  createdAt: number;
  id: string;
}
