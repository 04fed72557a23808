import type { FieldSpec, IndexRecord } from '../indexes/index-schema.js';
import type { ApiKeyRecord, Permission } from './ports/key-store.js';
import type { SessionRecord } from './ports/session-store.js';

/**
 * Rows both relational backends store alike (same columns, JSON in text), and the records they
 * become: one mapping, so the two adapters cannot drift apart.
 */
export interface IndexRow {
  id: number;
  uid: string;
  language_code: string;
  schema: string;
  embedder: string | null;
  created_at: number;
  updated_at: number;
}

export const indexRecordOf = (r: IndexRow): IndexRecord => ({
  id: r.id,
  uid: r.uid,
  languageCode: r.language_code,
  fields: JSON.parse(r.schema) as Record<string, FieldSpec>,
  embedder: r.embedder,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  permissions: string;
  indexes: string | null;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export const keyRecordOf = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  permissions: JSON.parse(r.permissions) as Permission[],
  indexes: r.indexes ? (JSON.parse(r.indexes) as string[]) : null,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

export interface SessionRow {
  hash: string;
  csrf_token: string;
  key_id: string;
  key_name: string;
  master_hash: string | null;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
}

export const sessionRecordOf = (r: SessionRow): SessionRecord => ({
  hash: r.hash,
  csrfToken: r.csrf_token,
  keyId: r.key_id,
  keyName: r.key_name,
  masterHash: r.master_hash,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastSeenAt: r.last_seen_at,
});
