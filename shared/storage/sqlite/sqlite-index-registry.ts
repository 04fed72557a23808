import type { FieldSpec, IndexRecord } from '../../indexes/index-schema.js';
import type { IndexRegistry } from '../ports/index-registry.js';
import { immediate, type Db } from './open-database.js';

interface Row {
  id: number;
  uid: string;
  language_code: string;
  schema: string;
  embedder: string | null;
  created_at: number;
  updated_at: number;
}

const toRecord = (r: Row): IndexRecord => ({
  id: r.id,
  uid: r.uid,
  languageCode: r.language_code,
  fields: JSON.parse(r.schema) as Record<string, FieldSpec>,
  embedder: r.embedder,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class SqliteIndexRegistry implements IndexRegistry {
  private readonly q;

  constructor(private readonly db: Db, private readonly onCreate: (id: number) => void) {
    this.q = {
      byUid: db.prepare<[string], Row>(`SELECT * FROM indexes WHERE uid = ?`),
      byId: db.prepare<[number], Row>(`SELECT * FROM indexes WHERE id = ?`),
      all: db.prepare<[], Row>(`SELECT * FROM indexes ORDER BY uid`),
      insert: db.prepare(
        `INSERT INTO indexes (uid, language_code, schema, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
      ),
      update: db.prepare(`UPDATE indexes SET language_code = ?, schema = ?, updated_at = ? WHERE uid = ?`),
      embedder: db.prepare(`UPDATE indexes SET embedder = ? WHERE id = ?`),
    };
  }

  upsert(uid: string, languageCode: string, fields: Record<string, FieldSpec>) {
    return immediate(this.db, () => {
      const now = Date.now();
      const existing = this.q.byUid.get(uid);
      if (existing) {
        this.q.update.run(languageCode, JSON.stringify(fields), now, uid);
        return { index: toRecord(this.q.byUid.get(uid)!), created: false };
      }
      const { lastInsertRowid } = this.q.insert.run(uid, languageCode, JSON.stringify(fields), now, now);
      this.onCreate(Number(lastInsertRowid));
      return { index: toRecord(this.q.byUid.get(uid)!), created: true };
    });
  }

  get(uid: string) {
    const r = this.q.byUid.get(uid);
    return r ? toRecord(r) : null;
  }

  getById(id: number) {
    const r = this.q.byId.get(id);
    return r ? toRecord(r) : null;
  }

  list() {
    return this.q.all.all().map(toRecord);
  }

  setEmbedder(id: number, embedder: string) {
    this.q.embedder.run(embedder, id);
  }
}
