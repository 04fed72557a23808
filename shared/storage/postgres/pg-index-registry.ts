import type pg from 'pg';
import type { FieldSpec, IndexRecord } from '../../indexes/index-schema.js';
import type { IndexRegistry } from '../ports/index-registry.js';
import { indexRecordOf, type IndexRow } from '../stored-rows.js';

const COLUMNS = 'id, uid, language_code, schema, embedder, created_at, updated_at';

/**
 * Definitions are read on every request but change rarely: a short-lived cache saves the round
 * trip. Changes made by this process are seen at once, another process's within CACHE_MS.
 */
const CACHE_MS = 1000;

export class PgIndexRegistry implements IndexRegistry {
  private readonly cache = new Map<string, { index: IndexRecord | null; at: number }>();

  constructor(private readonly pool: pg.Pool) {}

  async upsert(uid: string, languageCode: string, fields: Record<string, FieldSpec>) {
    this.cache.clear();
    const now = Date.now();
    // xmax = 0 only on a freshly inserted row: how an upsert tells "created" from "updated".
    const { rows } = await this.pool.query<IndexRow & { created: boolean }>(
      `INSERT INTO indexes (uid, language_code, schema, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (uid) DO UPDATE SET language_code = excluded.language_code, schema = excluded.schema,
         updated_at = excluded.updated_at
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [uid, languageCode, JSON.stringify(fields), now],
    );
    return { index: indexRecordOf(rows[0]), created: rows[0].created };
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

  async list() {
    const { rows } = await this.pool.query<IndexRow>(`SELECT ${COLUMNS} FROM indexes ORDER BY uid`);
    return rows.map(indexRecordOf);
  }

  async setEmbedder(id: number, embedder: string) {
    this.cache.clear();
    await this.pool.query(`UPDATE indexes SET embedder = $1 WHERE id = $2`, [embedder, id]);
  }
}
