import type { SessionRecord, SessionStore } from '../ports/session-store.js';
import { sessionRecordOf, type SessionRow } from '../stored-rows.js';
import type { Db } from './open-database.js';

export class SqliteSessionStore implements SessionStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare(
        `INSERT INTO web_sessions (hash, csrf_token, key_id, key_name, master_hash, created_at, expires_at, last_seen_at)
         VALUES (@hash, @csrfToken, @keyId, @keyName, @masterHash, @createdAt, @expiresAt, @lastSeenAt)`,
      ),
      find: db.prepare<[string, number], SessionRow>(`SELECT * FROM web_sessions WHERE hash = ? AND expires_at > ?`),
      touch: db.prepare(`UPDATE web_sessions SET last_seen_at = ?, expires_at = ? WHERE hash = ?`),
      delete: db.prepare(`DELETE FROM web_sessions WHERE hash = ?`),
      deleteExpired: db.prepare(`DELETE FROM web_sessions WHERE expires_at <= ?`),
      deleteOfKey: db.prepare(`DELETE FROM web_sessions WHERE key_id = ?`),
    };
  }

  async create(session: SessionRecord) {
    this.q.insert.run(session);
  }

  async find(hash: string, now: number) {
    const r = this.q.find.get(hash, now);
    return r ? sessionRecordOf(r) : null;
  }

  async touch(hash: string, lastSeenAt: number, expiresAt: number) {
    this.q.touch.run(lastSeenAt, expiresAt, hash);
  }

  async delete(hash: string) {
    return this.q.delete.run(hash).changes > 0;
  }

  async deleteExpired(now: number) {
    return this.q.deleteExpired.run(now).changes;
  }

  async deleteOfKey(keyId: string) {
    return this.q.deleteOfKey.run(keyId).changes;
  }
}
