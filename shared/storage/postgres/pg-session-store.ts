import type pg from 'pg';
import type { SessionRecord, SessionStore } from '../ports/session-store.js';
import { sessionRecordOf, type SessionRow } from '../stored-rows.js';

export class PgSessionStore implements SessionStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(s: SessionRecord) {
    await this.pool.query(
      `INSERT INTO web_sessions (hash, csrf_token, key_id, key_name, master_hash, created_at, expires_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [s.hash, s.csrfToken, s.keyId, s.keyName, s.masterHash, s.createdAt, s.expiresAt, s.lastSeenAt],
    );
  }

  async find(hash: string, now: number) {
    const { rows } = await this.pool.query<SessionRow>(`SELECT * FROM web_sessions WHERE hash = $1 AND expires_at > $2`, [hash, now]);
    return rows[0] ? sessionRecordOf(rows[0]) : null;
  }

  async touch(hash: string, lastSeenAt: number, expiresAt: number) {
    await this.pool.query(`UPDATE web_sessions SET last_seen_at = $1, expires_at = $2 WHERE hash = $3`, [lastSeenAt, expiresAt, hash]);
  }

  async delete(hash: string) {
    return ((await this.pool.query(`DELETE FROM web_sessions WHERE hash = $1`, [hash])).rowCount ?? 0) > 0;
  }

  async deleteExpired(now: number) {
    return (await this.pool.query(`DELETE FROM web_sessions WHERE expires_at <= $1`, [now])).rowCount ?? 0;
  }

  async deleteOfKey(keyId: string) {
    return (await this.pool.query(`DELETE FROM web_sessions WHERE key_id = $1`, [keyId])).rowCount ?? 0;
  }
}
