import type { CreatedKey, ListPage } from './list-page.js';

export type Permission = 'read' | 'write' | 'admin';

export interface ApiKeyRecord {
  id: string;
  name: string;
  /** First characters of the secret, safe to show so people can tell keys apart. */
  prefix: string;
  permissions: Permission[];
  /** null: every index. */
  indexes: string[] | null;
  createdAt: number;
  revokedAt: number | null;
  /** When the key last authenticated a request (to the minute); null: never. */
  lastUsedAt: number | null;
}

export interface KeyStore {
  insert(record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>, hash: string): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** The key with this id, revoked or not. */
  get(id: string): Promise<ApiKeyRecord | null>;
  /** Oldest first (then by id); a page of them after `page.after`, or every key without `page`. */
  list(page?: ListPage<CreatedKey>): Promise<ApiKeyRecord[]>;
  revoke(id: string): Promise<boolean>;
  /** Records a use; never moves last_used_at backwards (processes record out of order). */
  markUsed(id: string, at: number): Promise<void>;
  /**
   * The server secret every process must share (signatures, session hashes): the stored one, or
   * `candidate` when none is stored yet. Concurrent first callers all get the same winner.
   */
  sharedSecret(candidate: string): Promise<string>;
}
