import type pg from 'pg';
import type { DocumentMetadata } from '../../documents/document-metadata.js';
import type {
  DocumentFields, DocumentRef, DocumentStore, DocumentWrite, IndexProgress, StoredDocument, WriteOutcome,
} from '../ports/document-store.js';
import { inTransaction } from './pg-transaction.js';

interface Row {
  index_id: number;
  uid: string;
  fields: string | null;
  hash: string | null;
  version: number;
  status: string;
}

const key = (indexId: number, uid: string) => `${indexId}\u0000${uid}`;
const parse = (fields: string | null) => (fields === null ? null : (JSON.parse(fields) as DocumentFields));
const REQUEUE_CHUNK = 10_000;

/**
 * Locks the rows of these refs in uid order (the order applyWrites locks in, so the two never
 * deadlock) and returns the ids of those whose version still matches.
 */
const LOCK_REFS = `
  SELECT d.id FROM documents d
  JOIN unnest($2::text[], $3::bigint[]) AS r(uid, version) ON d.uid = r.uid AND d.version = r.version
  WHERE d.index_id = $1 ORDER BY d.uid FOR UPDATE OF d`;

/**
 * Documents in PostgreSQL. Versions come from one sequence, drawn only after every row the batch
 * touches is locked: a concurrent writer of the same document waits for the lock, so whichever
 * transaction commits later drew the higher version, on any number of hosts.
 */
export class PgDocumentStore implements DocumentStore {
  constructor(private readonly pool: pg.Pool) {}

  async applyWrites(writes: DocumentWrite[]): Promise<WriteOutcome[]> {
    if (writes.length === 0) return [];
    const keys = new Map<string, { indexId: number; uid: string }>();
    for (const w of writes) keys.set(key(w.indexId, w.uid), { indexId: w.indexId, uid: w.uid });
    const ids = [...keys.values()].map((k) => k.indexId);
    const uids = [...keys.values()].map((k) => k.uid);
    return inTransaction(this.pool, async (c) => {
      const now = Date.now();
      const rows = await lockRows(c, [...keys.values()], now);
      const state = new Map<string, Row | null>(rows.map((r) => [key(r.index_id, r.uid), r.version === 0 ? null : r]));
      const accepted: (DocumentWrite | null)[] = writes.map((w) => {
        const k = key(w.indexId, w.uid);
        if (isNoop(state.get(k) ?? null, w)) return null;
        state.set(k, { index_id: w.indexId, uid: w.uid, fields: w.fields, hash: w.hash, version: 0, status: 'pending' });
        return w;
      });
      const versions = await nextVersions(c, accepted.filter((w) => w !== null).length);
      const finals = new Map<string, DocumentWrite & { version: number }>();
      const outcomes = accepted.map((w, i) => {
        if (!w) return { uid: writes[i].uid, version: null };
        const version = versions.shift()!;
        finals.set(key(w.indexId, w.uid), { ...w, version });
        return { uid: w.uid, version };
      });
      const f = [...finals.values()];
      if (f.length) {
        const updated = await c.query(
          `UPDATE documents d SET fields = u.fields, hash = u.hash, version = u.version, status = 'pending',
             job = u.job, claimed = false, error = NULL, updated_at = $7, metadata = u.metadata
           FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $8::text[])
             AS u(i, uid, fields, hash, version, job, metadata)
           WHERE d.index_id = u.i AND d.uid = u.uid`,
          [f.map((w) => w.indexId), f.map((w) => w.uid), f.map((w) => w.fields), f.map((w) => w.hash), f.map((w) => w.version), f.map((w) => w.job), now,
            f.map((w) => (w.fields === null ? null : (w.metadata ?? null)))],
        );
        // Every accepted write has its row locked above; a write of no row would be acknowledged and lost.
        if (updated.rowCount !== f.length) throw new Error(`document write updated ${updated.rowCount} of ${f.length} locked rows`);
      }
      // Placeholders of writes that changed nothing (deletes of absent documents) go again.
      if ([...state.values()].some((r) => r === null)) {
        await c.query(
          `DELETE FROM documents d USING unnest($1::int[], $2::text[]) AS k(i, u)
           WHERE d.index_id = k.i AND d.uid = k.u AND d.version = 0`,
          [ids, uids],
        );
      }
      return outcomes;
    });
  }

  async list(indexId: number, limit: number, afterUid: string | null) {
    const { rows } = await this.pool.query<{ uid: string; fields: string }>(
      `SELECT uid, fields FROM documents WHERE index_id = $1 AND uid > $2 AND fields IS NOT NULL ORDER BY uid LIMIT $3`,
      [indexId, afterUid ?? '', limit],
    );
    return rows.map((r) => ({ uid: r.uid, fields: JSON.parse(r.fields) as DocumentFields }));
  }

  async claimPending(indexId: number, job: string, limit: number): Promise<StoredDocument[]> {
    // SKIP LOCKED: a row another claimer or a writer holds is theirs; a claim never waits, so it
    // cannot deadlock with applyWrites.
    const { rows } = await this.pool.query<{ uid: string; version: number; fields: string | null }>(
      `WITH own AS (
         SELECT id FROM documents WHERE index_id = $1 AND status = 'pending' AND job = $2 FOR UPDATE SKIP LOCKED
       ), free AS (
         SELECT id FROM documents WHERE index_id = $1 AND status = 'pending' AND NOT claimed AND job IS DISTINCT FROM $2
         ORDER BY version LIMIT greatest($3 - (SELECT count(*) FROM own), 0) FOR UPDATE SKIP LOCKED
       )
       UPDATE documents d SET job = $2, claimed = true
       FROM (SELECT id FROM own UNION ALL SELECT id FROM free) c WHERE d.id = c.id
       RETURNING d.uid, d.version, d.fields`,
      [indexId, job, limit],
    );
    return rows.sort((a, b) => a.version - b.version).map((r) => ({ uid: r.uid, version: r.version, fields: parse(r.fields) }));
  }

  async currentRefs(indexId: number, refs: DocumentRef[]): Promise<DocumentRef[]> {
    if (refs.length === 0) return [];
    const { rows } = await this.pool.query<DocumentRef>(
      `SELECT d.uid, d.version FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS r(uid, version, i)
       JOIN documents d ON d.index_id = $1 AND d.uid = r.uid AND d.version = r.version ORDER BY r.i`,
      [indexId, refs.map((r) => r.uid), refs.map((r) => r.version)],
    );
    return rows;
  }

  async markPublished(indexId: number, published: DocumentRef[], removed: DocumentRef[]): Promise<void> {
    if (published.length + removed.length === 0) return;
    await inTransaction(this.pool, async (c) => {
      const now = Date.now();
      if (published.length) {
        await c.query(
          `WITH locked AS (${LOCK_REFS})
           UPDATE documents d SET indexed_version = d.version, status = 'indexed', job = NULL, error = NULL, updated_at = $4
           FROM locked WHERE d.id = locked.id`,
          [indexId, published.map((r) => r.uid), published.map((r) => r.version), now],
        );
      }
      if (removed.length) {
        await c.query(
          `WITH locked AS (${LOCK_REFS}) DELETE FROM documents d USING locked WHERE d.id = locked.id AND d.fields IS NULL`,
          [indexId, removed.map((r) => r.uid), removed.map((r) => r.version)],
        );
      }
    });
  }

  async markFailed(indexId: number, refs: DocumentRef[], message: string): Promise<void> {
    if (refs.length === 0) return;
    await this.pool.query(
      `WITH locked AS (${LOCK_REFS})
       UPDATE documents d SET status = 'failed', error = $4, job = NULL, updated_at = $5 FROM locked WHERE d.id = locked.id`,
      [indexId, refs.map((r) => r.uid), refs.map((r) => r.version), message, Date.now()],
    );
  }

  async progress(indexId: number): Promise<IndexProgress> {
    const p: IndexProgress = { documents: 0, indexed: 0, pending: 0, pending_deletes: 0, failed: 0, last_error: null };
    // Counts by status, then those of deletes (each from its index), then the latest failure.
    const { rows } = await this.pool.query<{ deletes: boolean; status: string; n: number }>(
      `SELECT false AS deletes, status, count(*) AS n FROM documents WHERE index_id = $1 GROUP BY status
       UNION ALL
       SELECT true, status, count(*) FROM documents WHERE index_id = $1 AND fields IS NULL GROUP BY status`,
      [indexId],
    );
    for (const { deletes, status, n } of rows) {
      const sign = deletes ? -1 : 1;
      p.documents += sign * n;
      if (status === 'indexed') p.indexed += sign * n;
      else if (status === 'pending') p.pending += sign * n;
      else p.failed += sign * n;
      if (deletes) p.pending_deletes += n;
    }
    const last = await this.pool.query<{ uid: string; error: string; updated_at: number }>(
      `SELECT uid, error, updated_at FROM documents
       WHERE index_id = $1 AND status = 'failed' AND fields IS NOT NULL ORDER BY updated_at DESC LIMIT 1`,
      [indexId],
    );
    const l = last.rows[0];
    if (l) p.last_error = { uid: l.uid, message: l.error, at: new Date(l.updated_at).toISOString() };
    return p;
  }

  fields(indexId: number, uids: string[]): Promise<Map<string, DocumentFields>> {
    return this.jsonColumn<DocumentFields>('fields', indexId, uids);
  }

  metadata(indexId: number, uids: string[]): Promise<Map<string, DocumentMetadata>> {
    return this.jsonColumn<DocumentMetadata>('metadata', indexId, uids);
  }

  /** A JSON text column of the documents that have it, parsed, by uid. */
  private async jsonColumn<T>(column: 'fields' | 'metadata', indexId: number, uids: string[]): Promise<Map<string, T>> {
    if (uids.length === 0) return new Map();
    const { rows } = await this.pool.query<{ uid: string; value: string }>(
      `SELECT uid, ${column} AS value FROM documents WHERE index_id = $1 AND uid = ANY($2::text[]) AND ${column} IS NOT NULL`,
      [indexId, uids],
    );
    return new Map(rows.map((r) => [r.uid, JSON.parse(r.value) as T]));
  }

  async withMetadata(indexId: number, uids: string[]): Promise<Set<string>> {
    if (uids.length === 0) return new Set();
    const { rows } = await this.pool.query<{ uid: string }>(
      `SELECT uid FROM documents WHERE index_id = $1 AND uid = ANY($2::text[]) AND metadata IS NOT NULL`,
      [indexId, uids],
    );
    return new Set(rows.map((r) => r.uid));
  }

  async get(indexId: number, uid: string) {
    const { rows } = await this.pool.query<Row & { error: string | null }>(
      `SELECT uid, fields, version, status, error FROM documents WHERE index_id = $1 AND uid = $2`,
      [indexId, uid],
    );
    const r = rows[0];
    return r ? { uid: r.uid, version: r.version, fields: parse(r.fields), status: r.status, error: r.error } : null;
  }

  async pendingJobs(olderThan: number, limit: number) {
    const { rows } = await this.pool.query<{ indexId: number; job: string | null }>(
      `SELECT DISTINCT index_id AS "indexId", job FROM documents WHERE status = 'pending' AND updated_at <= $1 LIMIT $2`,
      [olderThan, limit],
    );
    return rows;
  }

  async pendingOfJob(indexId: number, job: string | null, limit: number): Promise<DocumentRef[]> {
    const { rows } = job === null
      ? await this.pool.query<DocumentRef>(
        `SELECT uid, version FROM documents WHERE index_id = $1 AND status = 'pending' AND job IS NULL LIMIT $2`, [indexId, limit])
      : await this.pool.query<DocumentRef>(
        `SELECT uid, version FROM documents WHERE index_id = $1 AND status = 'pending' AND job = $2 LIMIT $3`, [indexId, job, limit]);
    return rows;
  }

  async reassignJob(indexId: number, refs: DocumentRef[], job: string): Promise<void> {
    if (refs.length === 0) return;
    await this.pool.query(
      `WITH locked AS (${LOCK_REFS}) UPDATE documents d SET job = $4, claimed = true FROM locked WHERE d.id = locked.id`,
      [indexId, refs.map((r) => r.uid), refs.map((r) => r.version), job],
    );
  }

  /**
   * Every document gets a new version, as if pushed again: the search side only ever replaces a live
   * version with a newer one, and jobs still carrying the old versions skip themselves.
   */
  async requeueIndex(indexId: number, jobFor: (n: number) => string, batchSize: number) {
    return inTransaction(this.pool, async (c) => {
      const { rows } = await c.query<{ id: number; uid: string }>(
        `SELECT id, uid FROM documents WHERE index_id = $1 ORDER BY uid FOR UPDATE`,
        [indexId],
      );
      const versions = await nextVersions(c, rows.length);
      const batches: { job: string; refs: DocumentRef[] }[] = [];
      const jobs: string[] = [];
      for (let i = 0; i < rows.length; i += batchSize) {
        const job = jobFor(batches.length);
        batches.push({ job, refs: rows.slice(i, i + batchSize).map((r, j) => ({ uid: r.uid, version: versions[i + j] })) });
        for (let j = i; j < Math.min(i + batchSize, rows.length); j++) jobs.push(job);
      }
      const now = Date.now();
      for (let i = 0; i < rows.length; i += REQUEUE_CHUNK) {
        const end = Math.min(i + REQUEUE_CHUNK, rows.length);
        await c.query(
          `UPDATE documents d SET version = u.version, status = 'pending', job = u.job, claimed = false, error = NULL, updated_at = $4
           FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS u(id, version, job) WHERE d.id = u.id`,
          [rows.slice(i, end).map((r) => r.id), versions.slice(i, end), jobs.slice(i, end), now],
        );
      }
      return batches;
    });
  }
}

/**
 * Locks the row of each key, for applyWrites. A new uid has no row to lock: a placeholder (version
 * 0) is inserted first, and a concurrent inserter of the same uid waits on it, then finds the row
 * and locks it like any other. A row the insert found can be gone by the time it is locked: a
 * worker that published a delete removes its row (markPublished), and a document pushed again
 * meanwhile would then update no row, acknowledged yet never stored. Such keys are inserted and
 * locked again (out of uid order: a deadlock that follows is retried like any other).
 */
async function lockRows(c: pg.PoolClient, keys: { indexId: number; uid: string }[], now: number): Promise<Row[]> {
  const locked: Row[] = [];
  for (let missing = keys; missing.length > 0;) {
    const ids = missing.map((k) => k.indexId);
    const uids = missing.map((k) => k.uid);
    await c.query(
      `INSERT INTO documents (index_id, uid, version, status, updated_at)
       SELECT i, u, 0, 'pending', $3 FROM unnest($1::int[], $2::text[]) AS k(i, u) ORDER BY i, u COLLATE "C"
       ON CONFLICT (index_id, uid) DO NOTHING`,
      [ids, uids, now],
    );
    const { rows } = await c.query<Row>(
      `SELECT d.index_id, d.uid, d.fields, d.hash, d.version, d.status FROM documents d
       JOIN unnest($1::int[], $2::text[]) AS k(i, u) ON d.index_id = k.i AND d.uid = k.u
       ORDER BY d.index_id, d.uid FOR UPDATE OF d`,
      [ids, uids],
    );
    locked.push(...rows);
    const held = new Set(rows.map((r) => key(r.index_id, r.uid)));
    missing = missing.filter((k) => !held.has(key(k.indexId, k.uid)));
  }
  return locked;
}

/** `n` fresh versions, ascending. Call only with the rows to be written already locked. */
async function nextVersions(c: pg.PoolClient, n: number): Promise<number[]> {
  if (n === 0) return [];
  const { rows } = await c.query<{ v: number }>(`SELECT nextval('document_version') AS v FROM generate_series(1, $1)`, [n]);
  return rows.map((r) => r.v).sort((a, b) => a - b);
}

function isNoop(existing: Row | null, w: DocumentWrite): boolean {
  if (!existing) return w.fields === null;
  if (w.fields === null) return existing.fields === null;
  // A failed document is retried by pushing it again, even unchanged.
  return existing.fields !== null && existing.hash === w.hash && existing.status !== 'failed';
}
