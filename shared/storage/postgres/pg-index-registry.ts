import type pg from 'pg';
import type { FieldSpec, IndexRecord } from '../../indexes/index-schema.js';
import { IndexLimitReached, type IndexRegistry } from '../ports/index-registry.js';
import type { ListPage } from '../ports/list-page.js';
import { indexRecordOf, type IndexRow } from '../stored-rows.js';
import { inTransaction } from './pg-transaction.js';

const COLUMNS = 'id, uid, language_code, schema, embedder, created_at, updated_at';

/**
 * Definitions are read on every request but change rarely: a short-lived cache saves the round
 * trip. Changes made by this process are seen at once, another process's within CACHE_MS.
 */
const CACHE_MS = 1000;

export class PgIndexRegistry implements IndexRegistry {
  private readonly cache = new Map<string, { index: IndexRecord | null; at: number }>();

  constructor(private readonly pool: pg.Pool) {}

  async upsert(uid: string, languageCode: string, fields: Record<string, FieldSpec>, maxIndexes = Infinity) {
    this.cache.clear();
    const params = [uid, languageCode, JSON.stringify(fields), Date.now()];
    // xmax = 0 only on a freshly inserted row: how an upsert tells "created" from "updated".
    const upsert = `INSERT INTO indexes (uid, language_code, schema, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (uid) DO UPDATE SET language_code = excluded.language_code, schema = excluded.schema,
         updated_at = excluded.updated_at
       RETURNING ${COLUMNS}, (xmax = 0) AS created`;
    const created = (rows: (IndexRow & { created: boolean })[]) => ({ index: indexRecordOf(rows[0]), created: rows[0].created });
    if (maxIndexes === Infinity) return created((await this.pool.query<IndexRow & { created: boolean }>(upsert, params)).rows);
    const updated = await this.pool.query<IndexRow>(
      `UPDATE indexes SET language_code = $2, schema = $3, updated_at = $4 WHERE uid = $1 RETURNING ${COLUMNS}`, params);
    if (updated.rows[0]) return { index: indexRecordOf(updated.rows[0]), created: false };
    return inTransaction(this.pool, async (client) => {
      // Creations take turns (the lock conflicts with itself, from any process), so each counts every other's.
      await client.query('LOCK TABLE indexes IN SHARE ROW EXCLUSIVE MODE');
      const { rows: [n] } = await client.query<{ count: number; exists: boolean }>(
        `SELECT count(*)::int AS count, coalesce(bool_or(uid = $1), false) AS exists FROM indexes`, [uid]);
      if (!n.exists && n.count >= maxIndexes) throw new IndexLimitReached(maxIndexes);
      return created((await client.query<IndexRow & { created: boolean }>(upsert, params)).rows);
    });
  }

  async get(uid: string) {
    const hit = this.cache.get(uid);
    const now = Date.now();
    if (hit && now - hit.at < CACHE_MS) return hit.index;
    const { rows } = await this.pool.query<IndexRow>(`SELECT ${COLUMNS} FROM indexes WHERE uid = $1`, [uid]);
    const index = rows[0] ? indexRecordOf(rows[0]) : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(uid, { index, at: now });
    return index;
  }

  async getById(id: number) {
    const { rows } = await this.pool.query<IndexRow>(`SELECT ${COLUMNS} FROM indexes WHERE id = $1`, [id]);
    return rows[0] ? indexRecordOf(rows[0]) : null;
  }

  async list(page?: ListPage<string>) {
    const { rows } = await this.pool.query<IndexRow>(
      `SELECT ${COLUMNS} FROM indexes WHERE $2::text IS NULL OR uid > $2 ORDER BY uid LIMIT $1`, [page?.limit ?? null, page?.after ?? null]);
    return rows.map(indexRecordOf);
  }

  async setEmbedder(id: number, embedder: string) {
    this.cache.clear();
    await this.pool.query(`UPDATE indexes SET embedder = $1 WHERE id = $2`, [embedder, id]);
  }
}
