import type { FieldSpec, IndexRecord } from '../../indexes/index-schema.js';
import { IndexLimitReached, type IndexRegistry } from '../ports/index-registry.js';
import type { ListPage } from '../ports/list-page.js';
import { immediate, type Db } from './open-database.js';
import { indexRecordOf, type IndexRow } from '../stored-rows.js';
import { uidPageParams, type UidPageParams } from './list-page-params.js';

/**
 * Definitions are read on every request but change rarely: a short-lived cache saves the query and
 * JSON parse. Changes made by this process are seen at once, another process's within CACHE_MS.
 */
const CACHE_MS = 1000;

export class SqliteIndexRegistry implements IndexRegistry {
  private readonly q;
  private readonly cache = new Map<string, { index: IndexRecord | null; at: number }>();

  constructor(private readonly db: Db) {
    this.q = {
      byUid: db.prepare<[string], IndexRow>(`SELECT * FROM indexes WHERE uid = ?`),
      byId: db.prepare<[number], IndexRow>(`SELECT * FROM indexes WHERE id = ?`),
      list: db.prepare<[UidPageParams], IndexRow>(`SELECT * FROM indexes WHERE @after IS NULL OR uid > @after ORDER BY uid LIMIT @limit`),
      count: db.prepare<[], number>(`SELECT count(*) FROM indexes`).pluck(),
      insert: db.prepare(
        `INSERT INTO indexes (uid, language_code, schema, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
      ),
      update: db.prepare(`UPDATE indexes SET language_code = ?, schema = ?, updated_at = ? WHERE uid = ?`),
      embedder: db.prepare(`UPDATE indexes SET embedder = ? WHERE id = ?`),
    };
  }

  async upsert(uid: string, languageCode: string, fields: Record<string, FieldSpec>, maxIndexes = Infinity) {
    this.cache.clear();
    return immediate(this.db, () => {
      const now = Date.now();
      const existing = this.q.byUid.get(uid);
      if (existing) {
        this.q.update.run(languageCode, JSON.stringify(fields), now, uid);
        return { index: indexRecordOf(this.q.byUid.get(uid)!), created: false };
      }
      if ((this.q.count.get() as number) >= maxIndexes) throw new IndexLimitReached(maxIndexes);
      this.q.insert.run(uid, languageCode, JSON.stringify(fields), now, now);
      return { index: indexRecordOf(this.q.byUid.get(uid)!), created: true };
    });
  }

  async get(uid: string) {
    const hit = this.cache.get(uid);
    const now = Date.now();
    if (hit && now - hit.at < CACHE_MS) return hit.index;
    const r = this.q.byUid.get(uid);
    const index = r ? indexRecordOf(r) : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(uid, { index, at: now });
    return index;
  }

  async getById(id: number) {
    const r = this.q.byId.get(id);
    return r ? indexRecordOf(r) : null;
  }

  async list(page?: ListPage<string>) {
    return this.q.list.all(uidPageParams(page)).map(indexRecordOf);
  }

  async setEmbedder(id: number, embedder: string) {
    this.cache.clear();
    this.q.embedder.run(embedder, id);
  }
}
