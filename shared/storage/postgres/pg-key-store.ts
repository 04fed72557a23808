import type pg from 'pg';
import type { ApiKeyRecord, KeyStore, Permission } from '../ports/key-store.js';
import type { CreatedKey, ListPage } from '../ports/list-page.js';
import { keyRecordOf, type KeyRow } from '../stored-rows.js';

const COLUMNS = 'id, name, prefix, permissions, indexes, created_at, revoked_at, last_used_at';

export class PgKeyStore implements KeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>, hash: string) {
    await this.pool.query(
      `INSERT INTO api_keys (id, name, hash, prefix, permissions, indexes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [record.id, record.name, hash, record.prefix, JSON.stringify(record.permissions),
        record.indexes ? JSON.stringify(record.indexes) : null, record.createdAt],
    );
  }

  async findByHash(hash: string) {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`, [hash]);
    return rows[0] ? keyRecordOf(rows[0]) : null;
  }

  async get(id: string) {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return rows[0] ? keyRecordOf(rows[0]) : null;
  }

  async list(page?: ListPage<CreatedKey>) {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE $2::bigint IS NULL OR created_at > $2 OR (created_at = $2 AND id COLLATE "C" > $3)
       ORDER BY created_at, id COLLATE "C" LIMIT $1`,
      [page?.limit ?? null, page?.after?.createdAt ?? null, page?.after?.id ?? ''],
    );
    return rows.map(keyRecordOf);
  }

  async revoke(id: string) {
    const r = await this.pool.query(`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [Date.now(), id]);
    return (r.rowCount ?? 0) > 0;
  }

  async markUsed(id: string, at: number) {
    await this.pool.query(`UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, [at, id]);
  }

  /** A concurrent first caller's INSERT waits for the winner's commit, then does nothing and reads it. */
  async sharedSecret(candidate: string) {
    await this.pool.query(`INSERT INTO settings (key, value) VALUES ('secret', $1) ON CONFLICT DO NOTHING`, [candidate]);
    const { rows } = await this.pool.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'secret'`);
    return rows[0].value;
  }
}
