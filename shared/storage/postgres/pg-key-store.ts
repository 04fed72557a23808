import type pg from 'pg';
import type { ApiKeyRecord, KeyStore, Permission } from '../ports/key-store.js';

interface Row {
  id: string;
  name: string;
  prefix: string;
  permissions: string;
  indexes: string | null;
  created_at: number;
  revoked_at: number | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  permissions: JSON.parse(r.permissions) as Permission[],
  indexes: r.indexes ? (JSON.parse(r.indexes) as string[]) : null,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

const COLUMNS = 'id, name, prefix, permissions, indexes, created_at, revoked_at';

export class PgKeyStore implements KeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(record: Omit<ApiKeyRecord, 'revokedAt'>, hash: string) {
    await this.pool.query(
      `INSERT INTO api_keys (id, name, hash, prefix, permissions, indexes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [record.id, record.name, hash, record.prefix, JSON.stringify(record.permissions),
        record.indexes ? JSON.stringify(record.indexes) : null, record.createdAt],
    );
  }

  async findByHash(hash: string) {
    const { rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`, [hash]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list() {
    const { rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`);
    return rows.map(toRecord);
  }

  async revoke(id: string) {
    const r = await this.pool.query(`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [Date.now(), id]);
    return (r.rowCount ?? 0) > 0;
  }

  /** A concurrent first caller's INSERT waits for the winner's commit, then does nothing and reads it. */
  async sharedSecret(candidate: string) {
    await this.pool.query(`INSERT INTO settings (key, value) VALUES ('secret', $1) ON CONFLICT DO NOTHING`, [candidate]);
    const { rows } = await this.pool.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'secret'`);
    return rows[0].value;
  }
}
