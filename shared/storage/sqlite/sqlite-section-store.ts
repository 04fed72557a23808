import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ChangeEntry, PublishItem, PublishResult, SectionPosition, SectionStore, SectionView } from '../ports/section-store.js';
import { immediate, type Db } from './open-database.js';
import type { Statement } from 'better-sqlite3';
import { chunkBySections } from '../chunk-by-sections.js';
import { ChangeSignal } from './change-signal.js';

const MAX_SECTIONS_PER_TRANSACTION = 200;
/** Positions read by one statement; a statement is prepared once per count up to this. */
const POSITIONS_PER_STATEMENT = 64;

/** The change signal's file, beside search.db. */
export const CHANGE_SIGNAL_FILE = 'search.changed';
/**
 * Longest a reader trusts an unchanged signal before it asks the change log anyway: bounds how late it sees a
 * publish whose process died between its commit and its mark (the job's replay publishes and marks at once).
 */
export const SIGNAL_TRUST_MS = 1000;

const SECTION_COLUMNS = `id, doc_uid AS uid, version, ord, field, title, anchor, text, vector_model AS vectorModel`;

/**
 * Sections and their vectors in search.db: one transaction swaps a document's whole presence and
 * logs the change. SQLite serialises writers, so the AUTOINCREMENT sequence of the change log
 * follows commit order. The document store is told afterwards (markPublished); if that never
 * happens the document stays pending and its replayed job finds it already live.
 */
export class SqliteSectionStore implements SectionStore {
  private readonly q;
  /** Statements prepared per SQL builder and count of positions or ids read. */
  private readonly prepared = new Map<(n: number) => string, Map<number, Statement<unknown[], SectionRowView>>>();

  private readonly signal: ChangeSignal;
  /** Per index, the last "nothing new" the change log gave: after which entry, under which signal, when. */
  private readonly quiet = new Map<number, { seq: number; signal: number; at: number }>();

  constructor(private readonly db: Db) {
    this.signal = new ChangeSignal(join(dirname(db.name), CHANGE_SIGNAL_FILE));
    this.q = {
      live: db.prepare<[number, string], { version: number }>(`SELECT version FROM live WHERE index_id = ? AND uid = ?`),
      setLive: db.prepare(
        `INSERT INTO live (index_id, uid, version, deleted) VALUES (?, ?, ?, ?)
         ON CONFLICT (index_id, uid) DO UPDATE SET version = excluded.version, deleted = excluded.deleted`,
      ),
      deleteSections: db.prepare(`DELETE FROM sections WHERE index_id = ? AND doc_uid = ?`),
      insertSection: db.prepare(
        `INSERT INTO sections (index_id, doc_uid, version, ord, field, title, anchor, text, hash, vector, vector_model)
         VALUES (@indexId, @uid, @version, @ord, @field, @title, @anchor, @text, @hash, @vector, @model)`,
      ),
      vectorByHash: db.prepare<[string, string], Buffer>(
        `SELECT vector FROM sections WHERE hash = ? AND vector_model = ? AND vector IS NOT NULL LIMIT 1`,
      ).pluck(),
      logChange: db.prepare(`INSERT INTO changes (index_id, uid) VALUES (?, ?)`),
      changes: db.prepare<[number, number, number], ChangeEntry>(
        `SELECT seq, uid FROM changes WHERE index_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ),
      lastChange: db.prepare<[number], number>(`SELECT coalesce(max(seq), 0) FROM changes WHERE index_id = ?`).pluck(),
      firstChange: db.prepare<[number], number>(`SELECT coalesce(min(seq), 0) FROM changes WHERE index_id = ?`).pluck(),
      // One sequence for all indexes: keeping the newest `keep` overall keeps at least as many per
      // index, and each index's newest entry always stays, so a reader can tell "nothing new" from
      // "pruned past me".
      prune: db.prepare(
        `DELETE FROM changes WHERE seq <= (SELECT max(seq) FROM changes) - ?
           AND seq < (SELECT max(c.seq) FROM changes c WHERE c.index_id = changes.index_id)`,
      ),
      allSections: db.prepare<[number], SectionRowView>(
        `SELECT ${SECTION_COLUMNS}, vector FROM sections WHERE index_id = ? ORDER BY doc_uid, ord`,
      ),
      allSectionsBare: db.prepare<[number], SectionRowView>(
        `SELECT ${SECTION_COLUMNS} FROM sections WHERE index_id = ? ORDER BY doc_uid, ord`,
      ),
      // The documents of a page by the (index_id, doc_uid) index, then their sections; the first page has no lower bound.
      pageSections: db.prepare<[number, number, string, number], SectionRowView>(pageSql(true, true)),
      pageSectionsBare: db.prepare<[number, number, string, number], SectionRowView>(pageSql(false, true)),
      firstPageSections: db.prepare<[number, number, number], SectionRowView>(pageSql(true, false)),
      firstPageSectionsBare: db.prepare<[number, number, number], SectionRowView>(pageSql(false, false)),
      docSections: db.prepare<[number, string], SectionRowView>(
        `SELECT ${SECTION_COLUMNS}, vector FROM sections WHERE index_id = ? AND doc_uid = ? ORDER BY ord`,
      ),
      docSectionsBare: db.prepare<[number, string], SectionRowView>(
        `SELECT ${SECTION_COLUMNS} FROM sections WHERE index_id = ? AND doc_uid = ? ORDER BY ord`,
      ),
    };
  }

  async publish(indexId: number, items: PublishItem[], model: string): Promise<PublishResult> {
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
          if (!live || live.version < item.version) this.replace(indexId, item, model);
          (item.sections === null ? result.removed : result.published).push(ref);
        }
      });
    }
    // After the commits, so a reader that sees the new mark finds the entries; it also covers an entry this store
    // committed but never marked (its process died: this is the replay, which publishes again).
    this.signal.mark();
    return result;
  }

  private replace(indexId: number, item: PublishItem, model: string) {
    this.q.deleteSections.run(indexId, item.uid);
    for (const s of item.sections ?? []) {
      this.q.insertSection.run({
        indexId, uid: item.uid, version: item.version, ord: s.ord, field: s.field, title: s.title, anchor: s.anchor,
        text: s.text, hash: s.hash, vector: s.vector ? toBlob(s.vector) : null, model: s.vector ? model : null,
      });
    }
    this.q.setLive.run(indexId, item.uid, item.version, item.sections === null ? 1 : 0);
    this.q.logChange.run(indexId, item.uid);
  }

  async sections(indexId: number, uids?: string[], options: { vectors?: boolean } = {}): Promise<SectionView[]> {
    const withVectors = options.vectors !== false;
    const rows = uids
      ? uids.flatMap((u) => (withVectors ? this.q.docSections : this.q.docSectionsBare).all(indexId, u))
      : (withVectors ? this.q.allSections : this.q.allSectionsBare).all(indexId);
    return rows.map(toView);
  }

  async sectionsPage(indexId: number, afterUid: string | null, documents: number, options: { vectors?: boolean } = {}): Promise<SectionView[]> {
    const withVectors = options.vectors !== false;
    const rows = afterUid === null
      ? (withVectors ? this.q.firstPageSections : this.q.firstPageSectionsBare).all(indexId, indexId, documents)
      : (withVectors ? this.q.pageSections : this.q.pageSectionsBare).all(indexId, indexId, afterUid, documents);
    return rows.map(toView);
  }

  async sectionsAt(indexId: number, at: readonly SectionPosition[]): Promise<SectionView[]> {
    return this.readInParts(at, sectionsAtSql, (part) => [indexId, ...part.flatMap((p) => [p.uid, p.ord])]);
  }

  async sectionsById(indexId: number, ids: readonly number[]): Promise<SectionView[]> {
    return this.readInParts(ids, sectionsByIdSql, (part) => [...part, indexId]);
  }

  /** Reads `items` POSITIONS_PER_STATEMENT at a time, with a statement prepared once per count. */
  private readInParts<T>(items: readonly T[], sql: (n: number) => string, params: (part: readonly T[]) => unknown[]): SectionView[] {
    const out: SectionView[] = [];
    for (let i = 0; i < items.length; i += POSITIONS_PER_STATEMENT) {
      const part = items.slice(i, i + POSITIONS_PER_STATEMENT);
      let byCount = this.prepared.get(sql);
      if (!byCount) this.prepared.set(sql, (byCount = new Map()));
      let st = byCount.get(part.length);
      if (!st) byCount.set(part.length, (st = this.db.prepare<unknown[], SectionRowView>(sql(part.length))));
      for (const r of st.all(...params(part))) out.push({ ...r, vector: null });
    }
    return out;
  }

  async liveVersions(indexId: number, uids: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const uid of uids) {
      const live = this.q.live.get(indexId, uid);
      if (live) out.set(uid, live.version);
    }
    return out;
  }

  /** Closes the signal's file (the database is the storage's to close). */
  close(): void {
    this.signal.close();
  }

  async changesSince(indexId: number, seq: number, limit: number) {
    // The signal is read before the query: a publish that commits after it changes the signal.
    const signal = this.signal.read();
    const now = performance.now();
    const quiet = this.quiet.get(indexId);
    if (quiet && quiet.seq === seq && quiet.signal === signal && now - quiet.at < SIGNAL_TRUST_MS) return [];
    const changes = this.q.changes.all(indexId, seq, limit);
    if (changes.length === 0) this.quiet.set(indexId, { seq, signal, at: now });
    return changes;
  }

  async lastChange(indexId: number): Promise<number> {
    return this.q.lastChange.get(indexId) as number;
  }

  async firstChange(indexId: number): Promise<number> {
    return this.q.firstChange.get(indexId) as number;
  }

  async pruneChanges(keep: number): Promise<number> {
    return immediate(this.db, () => this.q.prune.run(keep).changes);
  }

  async reusableVectors(hashes: string[], model: string): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (const h of new Set(hashes)) {
      const blob = this.q.vectorByHash.get(h, model);
      if (blob) found.set(h, fromBlob(blob));
    }
    return found;
  }
}

/** One row-value IN over the document index. */
const sectionsAtSql = (n: number) =>
  `SELECT ${SECTION_COLUMNS} FROM sections WHERE index_id = ? AND (doc_uid, ord) IN (VALUES ${Array(n).fill('(?, ?)').join(', ')})`;

/**
 * By rowid: one B-tree lookup per section, where a position needs the document index first. The unary +
 * keeps the planner off the document index: without statistics it would scan all of an index's sections
 * for `index_id = ?` and test each id, a search's cost growing with the corpus.
 */
export const sectionsByIdSql = (n: number) =>
  `SELECT ${SECTION_COLUMNS} FROM sections WHERE id IN (${Array(n).fill('?').join(', ')}) AND +index_id = ?`;

type SectionRowView = Omit<SectionView, 'vector'> & { vector?: Buffer | null };

const toBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const fromBlob = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/** A page of documents (after a uid, or from the first), with their sections' vectors or without. */
function pageSql(vectors: boolean, after: boolean): string {
  return `SELECT ${SECTION_COLUMNS}${vectors ? ', vector' : ''} FROM sections WHERE index_id = ? AND doc_uid IN
    (SELECT DISTINCT doc_uid FROM sections WHERE index_id = ?${after ? ' AND doc_uid > ?' : ''} ORDER BY doc_uid LIMIT ?)
    ORDER BY doc_uid, ord`;
}

function toView(r: SectionRowView): SectionView {
  return { ...r, vector: r.vector ? fromBlob(r.vector) : null };
}
