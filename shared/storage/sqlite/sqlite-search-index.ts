import type { KeywordHit, PublishItem, PublishResult, SearchIndex, SectionView } from '../ports/search-index.js';
import type { Statement } from 'better-sqlite3';
import { immediate, type Db } from './open-database.js';

const ftsTable = (indexId: number) => `fts_${Math.trunc(indexId)}`;
const MAX_SECTIONS_PER_TRANSACTION = 200;

/** Groups whole documents into chunks of about `max` sections (a bigger document gets a chunk alone). */
function chunkBySections(items: PublishItem[], max: number): PublishItem[][] {
  const chunks: PublishItem[][] = [];
  let current: PublishItem[] = [];
  let size = 0;
  for (const item of items) {
    const n = Math.max(1, item.sections?.length ?? 1);
    if (current.length && size + n > max) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += n;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/**
 * Sections, their FTS5 keyword entries and their vectors, in search.db: one transaction swaps a
 * document's whole keyword+vector presence. The document store is told afterwards (markPublished);
 * if that never happens the document stays pending and its replayed job finds it already live.
 */
export class SqliteSearchIndex implements SearchIndex {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      live: db.prepare<[number, string], { version: number }>(`SELECT version FROM live WHERE index_id = ? AND uid = ?`),
      setLive: db.prepare(
        `INSERT INTO live (index_id, uid, version, deleted) VALUES (?, ?, ?, ?)
         ON CONFLICT (index_id, uid) DO UPDATE SET version = excluded.version, deleted = excluded.deleted`,
      ),
      sectionIds: db.prepare<[number, string], number>(
        `SELECT id FROM sections WHERE index_id = ? AND doc_uid = ?`,
      ).pluck(),
      deleteSections: db.prepare(`DELETE FROM sections WHERE index_id = ? AND doc_uid = ?`),
      insertSection: db.prepare(
        `INSERT INTO sections (index_id, doc_uid, version, ord, field, title, anchor, text, hash, vector, vector_model)
         VALUES (@indexId, @uid, @version, @ord, @field, @title, @anchor, @text, @hash, @vector, @model)`,
      ),
      vectorByHash: db.prepare<[string, string], Buffer>(
        `SELECT vector FROM sections WHERE hash = ? AND vector_model = ? AND vector IS NOT NULL LIMIT 1`,
      ).pluck(),
      sectionInfo: db.prepare<[number], { doc_uid: string; title: string }>(
        `SELECT doc_uid, title FROM sections WHERE id = ?`,
      ),
      logChange: db.prepare(`INSERT INTO changes (index_id, uid) VALUES (?, ?)`),
      changes: db.prepare<[number, number, number], { seq: number; uid: string }>(
        `SELECT seq, uid FROM changes WHERE index_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ),
      lastChange: db.prepare<[], number>(`SELECT coalesce(max(seq), 0) FROM changes`).pluck(),
      firstChange: db.prepare<[], number>(`SELECT coalesce(min(seq), 0) FROM changes`).pluck(),
      // The newest entry always stays, so a reader can tell "nothing new" from "pruned past me".
      prune: db.prepare(`DELETE FROM changes WHERE seq < (SELECT max(seq) FROM changes) AND seq <= (SELECT max(seq) FROM changes) - ?`),
      allSections: db.prepare<[number], SectionRowView>(
        `SELECT id, doc_uid AS uid, field, title, anchor, text, vector, vector_model AS vectorModel FROM sections WHERE index_id = ? ORDER BY doc_uid, ord`,
      ),
      docSections: db.prepare<[number, string], SectionRowView>(
        `SELECT id, doc_uid AS uid, field, title, anchor, text, vector, vector_model AS vectorModel FROM sections WHERE index_id = ? AND doc_uid = ? ORDER BY ord`,
      ),
      vectors: db.prepare<[number], { id: number; doc_uid: string; title: string; vector: Buffer }>(
        `SELECT id, doc_uid, title, vector FROM sections WHERE index_id = ? AND vector IS NOT NULL`,
      ),
    };
  }

  ensureIndex(indexId: number): void {
    this.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${ftsTable(indexId)} USING fts5(title, text, content='',
        contentless_delete=1, tokenize="unicode61 remove_diacritics 2")`,
    );
  }

  publish(indexId: number, items: PublishItem[], model: string): PublishResult {
    const fts = ftsTable(indexId);
    const ftsDelete = this.db.prepare(`DELETE FROM ${fts} WHERE rowid = ?`);
    const ftsInsert = this.db.prepare(`INSERT INTO ${fts} (rowid, title, text) VALUES (?, ?, ?)`);
    const result: PublishResult = { published: [], removed: [], stale: 0 };
    // Each document swaps atomically; a batch is split into short transactions so searches and
    // other workers never wait long for the write lock.
    for (const chunk of chunkBySections(items, MAX_SECTIONS_PER_TRANSACTION)) {
      immediate(this.db, () => {
        for (const item of chunk) {
          const ref = { uid: item.uid, version: item.version };
          const live = this.q.live.get(indexId, item.uid);
          if (live && live.version > item.version) {
            result.stale++;
            continue;
          }
          if (!live || live.version < item.version) this.replace(indexId, item, model, ftsDelete, ftsInsert);
          (item.sections === null ? result.removed : result.published).push(ref);
        }
      });
    }
    return result;
  }

  private replace(indexId: number, item: PublishItem, model: string, ftsDelete: Statement, ftsInsert: Statement) {
    for (const id of this.q.sectionIds.all(indexId, item.uid)) ftsDelete.run(id);
    this.q.deleteSections.run(indexId, item.uid);
    for (const s of item.sections ?? []) {
      const { lastInsertRowid } = this.q.insertSection.run({
        indexId, uid: item.uid, version: item.version, ord: s.ord, field: s.field, title: s.title, anchor: s.anchor,
        text: s.text, hash: s.hash, vector: s.vector ? toBlob(s.vector) : null, model: s.vector ? model : null,
      });
      ftsInsert.run(lastInsertRowid, s.title, s.text);
    }
    this.q.setLive.run(indexId, item.uid, item.version, item.sections === null ? 1 : 0);
    this.q.logChange.run(indexId, item.uid);
  }

  sections(indexId: number, uids?: string[]): SectionView[] {
    const rows = uids ? uids.flatMap((u) => this.q.docSections.all(indexId, u)) : this.q.allSections.all(indexId);
    return rows.map((r) => ({ ...r, vector: r.vector ? fromBlob(r.vector) : null }));
  }

  changesSince(indexId: number, seq: number, limit: number) {
    return this.q.changes.all(indexId, seq, limit);
  }

  lastChange(): number {
    return this.q.lastChange.get() as number;
  }

  firstChange(): number {
    return this.q.firstChange.get() as number;
  }

  pruneChanges(keep: number): number {
    return immediate(this.db, () => this.q.prune.run(keep).changes);
  }

  reusableVectors(hashes: string[], model: string): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (const h of new Set(hashes)) {
      const blob = this.q.vectorByHash.get(h, model);
      if (blob) found.set(h, fromBlob(blob));
    }
    return found;
  }

  keywordSearch(indexId: number, query: string, limit: number): KeywordHit[] {
    const terms = query.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (terms.length === 0) return [];
    const match = terms.map((t) => `"${t}"`).join(' OR ');
    const rows = this.db
      .prepare<[string, number], { rowid: number; score: number }>(
        `SELECT rowid, bm25(${ftsTable(indexId)}) AS score FROM ${ftsTable(indexId)}
         WHERE ${ftsTable(indexId)} MATCH ? ORDER BY score LIMIT ?`,
      )
      .all(match, limit);
    return rows.flatMap((r) => {
      const info = this.q.sectionInfo.get(r.rowid);
      return info ? [{ uid: info.doc_uid, sectionId: r.rowid, title: info.title, score: -r.score }] : [];
    });
  }

  vectorSearch(indexId: number, vector: Float32Array, limit: number): KeywordHit[] {
    // Exact scan: fine for the sizes the tests use; the ANN choice is measured with the search issue.
    const hits: KeywordHit[] = [];
    for (const r of this.q.vectors.iterate(indexId)) {
      const v = fromBlob(r.vector);
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += v[i] * vector[i];
      hits.push({ uid: r.doc_uid, sectionId: r.id, title: r.title, score: dot });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }
}

type SectionRowView = Omit<SectionView, 'vector'> & { vector: Buffer | null };

const toBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const fromBlob = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
