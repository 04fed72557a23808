import type { ApiKeyRecord, KeyStore, Permission } from '../ports/key-store.js';
import type { CreatedKey, ListPage } from '../ports/list-page.js';
import type { Db } from './open-database.js';
import { keyRecordOf, type KeyRow } from '../stored-rows.js';
import { createdPageParams, type CreatedPageParams } from './list-page-params.js';

export class SqliteKeyStore implements KeyStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare(
        `INSERT INTO api_keys (id, name, hash, prefix, permissions, indexes, created_at)
         VALUES (@id, @name, @hash, @prefix, @permissions, @indexes, @createdAt)`,
      ),
      byHash: db.prepare<[string], KeyRow>(`SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL`),
      byId: db.prepare<[string], KeyRow>(`SELECT * FROM api_keys WHERE id = ?`),
      list: db.prepare<[CreatedPageParams], KeyRow>(
        `SELECT * FROM api_keys WHERE @afterAt IS NULL OR created_at > @afterAt OR (created_at = @afterAt AND id > @afterId)
         ORDER BY created_at, id LIMIT @limit`,
      ),
      revoke: db.prepare(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`),
      markUsed: db.prepare(`UPDATE api_keys SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)`),
      offerSecret: db.prepare(`INSERT INTO settings (key, value) VALUES ('secret', ?) ON CONFLICT DO NOTHING`),
      secret: db.prepare<[], string>(`SELECT value FROM settings WHERE key = 'secret'`).pluck(),
    };
  }

  async insert(record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>, hash: string) {
    this.q.insert.run({
      ...record,
      hash,
      permissions: JSON.stringify(record.permissions),
      indexes: record.indexes ? JSON.stringify(record.indexes) : null,
    });
  }

  async findByHash(hash: string) {
    const r = this.q.byHash.get(hash);
    return r ? keyRecordOf(r) : null;
  }

  async get(id: string) {
    const r = this.q.byId.get(id);
    return r ? keyRecordOf(r) : null;
  }

  async list(page?: ListPage<CreatedKey>) {
    return this.q.list.all(createdPageParams(page)).map(keyRecordOf);
  }

  async revoke(id: string) {
    return this.q.revoke.run(Date.now(), id).changes > 0;
  }

  async markUsed(id: string, at: number) {
    this.q.markUsed.run({ at, id });
  }

  async sharedSecret(candidate: string) {
    this.q.offerSecret.run(candidate);
    return this.q.secret.get() as string;
  }
}
