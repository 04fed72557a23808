import type { DocumentMetadata } from '../../documents/document-metadata.js';
import type {
  DocumentFields, DocumentRef, DocumentStore, DocumentWrite, IndexProgress, StoredDocument, WriteOutcome,
} from '../ports/document-store.js';
import { immediate, immediateUnsynced, type Db } from './open-database.js';

interface Row {
  uid: string;
  fields: string | null;
  hash: string | null;
  version: number;
  status: string;
}

/** Commits writes elsewhere (the commit thread) instead of on the caller's thread. */
export type Committer = (writes: DocumentWrite[]) => Promise<WriteOutcome[]>;

export class SqliteDocumentStore implements DocumentStore {
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly committer: Committer | null = null,
  ) {
    this.q = {
      nextSeq: db.prepare(`UPDATE meta SET value = value + ? WHERE key = 'seq' RETURNING value`).pluck(),
      get: db.prepare<[number, string], Row>(
        `SELECT uid, fields, hash, version, status FROM documents WHERE index_id = ? AND uid = ?`,
      ),
      upsert: db.prepare(
        `INSERT INTO documents (index_id, uid, fields, hash, version, status, job, claimed, error, updated_at, metadata)
         VALUES (@indexId, @uid, @fields, @hash, @version, 'pending', @job, 0, NULL, @now, @metadata)
         ON CONFLICT (index_id, uid) DO UPDATE SET fields = excluded.fields, hash = excluded.hash, metadata = excluded.metadata,
           version = excluded.version, status = 'pending', job = excluded.job, claimed = 0, error = NULL,
           updated_at = excluded.updated_at`,
      ),
      list: db.prepare<[number, string, number], { uid: string; fields: string }>(
        `SELECT uid, fields FROM documents WHERE index_id = ? AND uid > ? AND fields IS NOT NULL
         ORDER BY uid LIMIT ?`,
      ),
      version: db.prepare<[number, string], number>(`SELECT version FROM documents WHERE index_id = ? AND uid = ?`).pluck(),
      indexed: db.prepare(
        `UPDATE documents SET indexed_version = version, status = 'indexed', job = NULL, error = NULL, updated_at = ?
         WHERE index_id = ? AND uid = ? AND version = ?`,
      ),
      forget: db.prepare(`DELETE FROM documents WHERE index_id = ? AND uid = ? AND version = ? AND fields IS NULL`),
      failed: db.prepare(
        `UPDATE documents SET status = 'failed', error = ?, job = NULL, updated_at = ?
         WHERE index_id = ? AND uid = ? AND version = ?`,
      ),
      counts: db.prepare<[number], { status: string; n: number }>(
        `SELECT status, count(*) AS n FROM documents WHERE index_id = ? GROUP BY status`,
      ),
      deletedCounts: db.prepare<[number], { status: string; n: number }>(
        `SELECT status, count(*) AS n FROM documents WHERE index_id = ? AND fields IS NULL GROUP BY status`,
      ),
      lastError: db.prepare<[number], { uid: string; error: string; updated_at: number }>(
        `SELECT uid, error, updated_at FROM documents
         WHERE index_id = ? AND status = 'failed' AND fields IS NOT NULL ORDER BY updated_at DESC LIMIT 1`,
      ),
      metadata: db.prepare<[number, string], string>(
        `SELECT metadata FROM documents WHERE index_id = ? AND uid = ? AND metadata IS NOT NULL`,
      ).pluck(),
      hasMetadata: db.prepare<[number, string], number>(
        `SELECT 1 FROM documents WHERE index_id = ? AND uid = ? AND metadata IS NOT NULL`,
      ).pluck(),
      full: db.prepare<[number, string], Row & { error: string | null }>(
        `SELECT uid, fields, hash, version, status, error FROM documents WHERE index_id = ? AND uid = ?`,
      ),
      pendingJobs: db.prepare<[number, number], { indexId: number; job: string | null }>(
        `SELECT DISTINCT index_id AS indexId, job FROM documents
         WHERE status = 'pending' AND updated_at <= ? LIMIT ?`,
      ),
      pendingOfJob: db.prepare<[number, string | null, number], DocumentRef>(
        `SELECT uid, version FROM documents WHERE index_id = ? AND status = 'pending' AND job IS ? LIMIT ?`,
      ),
      own: db.prepare<[number, string], DocumentRef>(
        `SELECT uid, version FROM documents WHERE index_id = ? AND status = 'pending' AND job = ?`,
      ),
      unclaimed: db.prepare<[number, string, number], DocumentRef>(
        `SELECT uid, version FROM documents WHERE index_id = ? AND status = 'pending' AND claimed = 0 AND job IS NOT ?
         ORDER BY version LIMIT ?`,
      ),
      fieldsAt: db.prepare<[number, string, number], { fields: string | null }>(
        `SELECT fields FROM documents WHERE index_id = ? AND uid = ? AND version = ?`,
      ),
      claim: db.prepare(`UPDATE documents SET job = ?, claimed = 1 WHERE index_id = ? AND uid = ? AND version = ?`),
      reassign: db.prepare(`UPDATE documents SET job = ?, claimed = 1 WHERE index_id = ? AND uid = ? AND version = ?`),
      requeueable: db.prepare<[number], DocumentRef>(`SELECT uid, version FROM documents WHERE index_id = ? ORDER BY uid`),
      requeue: db.prepare(
        `UPDATE documents SET version = ?, status = 'pending', job = ?, claimed = 0, error = NULL, updated_at = ?
         WHERE index_id = ? AND uid = ? AND version = ?`,
      ),
    };
  }

  async applyWrites(writes: DocumentWrite[]): Promise<WriteOutcome[]> {
    if (writes.length === 0) return [];
    return this.committer ? this.committer(writes) : this.applyWritesNow(writes);
  }

  /** applyWrites on this thread: what the commit thread runs. */
  applyWritesNow(writes: DocumentWrite[]): WriteOutcome[] {
    if (writes.length === 0) return [];
    return immediate(this.db, () => {
      // One sequence for every process: commits are serialised by SQLite, so versions follow commit order.
      let next = (this.q.nextSeq.get(writes.length) as number) - writes.length;
      const now = Date.now();
      return writes.map((w) => {
        const existing = this.q.get.get(w.indexId, w.uid);
        if (isNoop(existing, w)) return { uid: w.uid, version: null };
        const version = ++next;
        this.q.upsert.run({
          indexId: w.indexId, uid: w.uid, fields: w.fields,
          hash: w.hash, version, job: w.job, now, metadata: w.fields === null ? null : (w.metadata ?? null),
        });
        return { uid: w.uid, version };
      });
    });
  }

  async list(indexId: number, limit: number, afterUid: string | null) {
    return this.q.list.all(indexId, afterUid ?? '', limit).map((r) => ({
      uid: r.uid,
      fields: JSON.parse(r.fields) as DocumentFields,
    }));
  }

  async claimPending(indexId: number, job: string, limit: number): Promise<StoredDocument[]> {
    const take = () => {
      const own = this.q.own.all(indexId, job);
      return own.concat(own.length < limit ? this.q.unclaimed.all(indexId, job, limit - own.length) : []);
    };
    // Read first: a job whose documents were taken finds nothing without taking the write lock.
    if (take().length === 0) return [];
    // A claim lost to a power cut frees its documents for the next job: no need to wait for the disk.
    const refs = immediateUnsynced(this.db, () => {
      const found = take();
      for (const r of found) this.q.claim.run(job, indexId, r.uid, r.version);
      return found;
    });
    // Fields are read after the commit, so the API's commits wait on the lock only for the claim itself;
    // a version superseded meanwhile is left out (its successor is unclaimed, for the next job).
    const out: StoredDocument[] = [];
    for (const r of refs.sort((a, b) => a.version - b.version)) {
      const row = this.q.fieldsAt.get(indexId, r.uid, r.version);
      if (row) out.push({ uid: r.uid, version: r.version, fields: row.fields ? (JSON.parse(row.fields) as DocumentFields) : null });
    }
    return out;
  }

  async currentRefs(indexId: number, refs: DocumentRef[]): Promise<DocumentRef[]> {
    return refs.filter((r) => this.q.version.get(indexId, r.uid) === r.version);
  }

  async markPublished(indexId: number, published: DocumentRef[], removed: DocumentRef[]): Promise<void> {
    if (published.length + removed.length === 0) return;
    // Lost to a power cut, the documents stay pending: their next job finds the versions live and marks them.
    immediateUnsynced(this.db, () => {
      const now = Date.now();
      for (const r of published) this.q.indexed.run(now, indexId, r.uid, r.version);
      for (const r of removed) this.q.forget.run(indexId, r.uid, r.version);
    });
  }

  async markFailed(indexId: number, refs: DocumentRef[], message: string): Promise<void> {
    const now = Date.now();
    immediate(this.db, () => {
      for (const r of refs) this.q.failed.run(message, now, indexId, r.uid, r.version);
    });
  }

  async progress(indexId: number): Promise<IndexProgress> {
    const p: IndexProgress = { documents: 0, indexed: 0, pending: 0, pending_deletes: 0, failed: 0, last_error: null };
    // Two index-only counts (all rows, deletes) instead of one scan that would read every row's fields.
    const add = (rows: { status: string; n: number }[], sign: number) => {
      for (const { status, n } of rows) {
        p.documents += sign * n;
        if (status === 'indexed') p.indexed += sign * n;
        else if (status === 'pending') p.pending += sign * n;
        else p.failed += sign * n;
      }
    };
    add(this.q.counts.all(indexId), 1);
    const deletes = this.q.deletedCounts.all(indexId);
    add(deletes, -1);
    p.pending_deletes = deletes.reduce((n, r) => n + r.n, 0);
    const last = this.q.lastError.get(indexId);
    if (last) p.last_error = { uid: last.uid, message: last.error, at: new Date(last.updated_at).toISOString() };
    return p;
  }

  async fields(indexId: number, uids: string[]): Promise<Map<string, DocumentFields>> {
    const out = new Map<string, DocumentFields>();
    for (const uid of uids) {
      const r = this.q.full.get(indexId, uid);
      if (r?.fields) out.set(uid, JSON.parse(r.fields) as DocumentFields);
    }
    return out;
  }

  async metadata(indexId: number, uids: string[]): Promise<Map<string, DocumentMetadata>> {
    const out = new Map<string, DocumentMetadata>();
    for (const uid of uids) {
      const m = this.q.metadata.get(indexId, uid);
      if (m !== undefined) out.set(uid, JSON.parse(m) as DocumentMetadata);
    }
    return out;
  }

  async withMetadata(indexId: number, uids: string[]): Promise<Set<string>> {
    return new Set(uids.filter((uid) => this.q.hasMetadata.get(indexId, uid) !== undefined));
  }

  async get(indexId: number, uid: string) {
    const r = this.q.full.get(indexId, uid);
    if (!r) return null;
    const fields = r.fields ? (JSON.parse(r.fields) as DocumentFields) : null;
    return { uid: r.uid, version: r.version, fields, status: r.status, error: r.error };
  }

  async pendingJobs(olderThan: number, limit: number) {
    return this.q.pendingJobs.all(olderThan, limit);
  }

  async pendingOfJob(indexId: number, job: string | null, limit: number): Promise<DocumentRef[]> {
    return this.q.pendingOfJob.all(indexId, job, limit);
  }

  async reassignJob(indexId: number, refs: DocumentRef[], job: string): Promise<void> {
    immediate(this.db, () => {
      for (const r of refs) this.q.reassign.run(job, indexId, r.uid, r.version);
    });
  }

  /**
   * Every document gets a new version, as if pushed again: the search side only ever replaces a live
   * version with a newer one, and jobs still carrying the old versions skip themselves.
   */
  async requeueIndex(indexId: number, jobFor: (n: number) => string, batchSize: number) {
    return immediate(this.db, () => {
      const old = this.q.requeueable.all(indexId);
      let next = (this.q.nextSeq.get(old.length) as number) - old.length;
      const batches: { job: string; refs: DocumentRef[] }[] = [];
      const now = Date.now();
      for (let i = 0; i < old.length; i += batchSize) {
        const job = jobFor(batches.length);
        const refs = old.slice(i, i + batchSize).map((r) => {
          const version = ++next;
          this.q.requeue.run(version, job, now, indexId, r.uid, r.version);
          return { uid: r.uid, version };
        });
        batches.push({ job, refs });
      }
      return batches;
    });
  }
}

function isNoop(existing: Row | undefined, w: DocumentWrite): boolean {
  if (!existing) return w.fields === null;
  if (w.fields === null) return existing.fields === null;
  // A failed document is retried by pushing it again, even unchanged.
  return existing.fields !== null && existing.hash === w.hash && existing.status !== 'failed';
}
