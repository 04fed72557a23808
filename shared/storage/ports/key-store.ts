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
}

export interface KeyStore {
  insert(record: Omit<ApiKeyRecord, 'revokedAt'>, hash: string): void;
  findByHash(hash: string): ApiKeyRecord | null;
  list(): ApiKeyRecord[];
  revoke(id: string): boolean;
}
