import type pg from 'pg';
import type {
  ChangeEntry, MirrorWrite, PublishItem, PublishResult, SectionMirror, SectionPosition, SectionStore, SectionView,
} from '../ports/section-store.js';
import { inTransaction, pgText } from './pg-transaction.js';
import { fromBytes, toBytes } from './pg-vectors.js';
import { chunkBySections } from '../chunk-by-sections.js';

/** Sections per transaction: big enough to amortise the round trips, small enough to hold locks briefly. */
const MAX_SECTIONS_PER_TRANSACTION = 500;

interface SectionRowView {
  id: number;
  uid: string;
  version: number;
  ord: number;
  field: string;
  title: string;
  anchor: string | null;
  text: string;
  vectorModel: string | null;
  vector?: Buffer | null;
}

const COLUMNS = `s.id, s.doc_uid AS uid, s.version, s.ord, s.field, s.title, s.anchor, s.text, s.vector_model AS "vectorModel"`;

/**
 * Live sections and the per-index change feed in PostgreSQL.
 *
 * Order of a publish: each document's `live` row is locked (in uid order), so publishers of the
 * same document queue and the newer version always wins; the mirror's write (Qdrant's copies in the
 * scale-out mode) runs while those locks are held. Change feed: a sequence would hand out numbers in
 * the order transactions *ask*, not the order they commit, and a reader could skip an entry that
 * commits late with a lower number. So each index has a counter row (`index_feed`) that the transaction bumps in its very
 * last statement: the row lock serialises appends of one index for just the commit, and a later
 * transaction only gets its numbers once the earlier one is visible. Entries are gapless per index.
 */
export class PgSectionStore implements SectionStore {
  private readonly feeds = new Set<number>();

  constructor(private readonly pool: pg.Pool, private readonly mirror: SectionMirror | null = null) {}

  async publish(indexId: number, items: PublishItem[], model: string): Promise<PublishResult> {
    const result: PublishResult = { published: [], removed: [], stale: 0 };
    if (items.length === 0) return result;
    await this.ensureFeed(indexId);
    for (const chunk of chunkBySections(items, MAX_SECTIONS_PER_TRANSACTION)) {
      // Read before the transaction: a pooled connection is never held while waiting for another.
      const mirrored = this.mirror ? await this.mirror.prepare(indexId, chunk) : null;
      const r = await inTransaction(this.pool, (c) => this.publishChunk(c, indexId, chunk, model, mirrored));
      result.published.push(...r.published);
      result.removed.push(...r.removed);
      result.stale += r.stale;
    }
    return result;
  }

  private async publishChunk(
    c: pg.PoolClient, indexId: number, chunk: PublishItem[], model: string, mirrored: MirrorWrite | null,
  ): Promise<PublishResult> {
    const uids = [...new Set(chunk.map((i) => i.uid))];
    // A document never published has no live row to lock: insert a placeholder (version -1) first.
    // Every placeholder's document is accepted below, so none outlives this transaction.
    await c.query(
      `INSERT INTO live (index_id, uid, version) SELECT $1, u, -1 FROM unnest($2::text[]) AS u ORDER BY u COLLATE "C"
       ON CONFLICT (index_id, uid) DO NOTHING`,
      [indexId, uids],
    );
    const locked = await c.query<{ uid: string; version: number }>(
      `SELECT uid, version FROM live WHERE index_id = $1 AND uid = ANY($2::text[]) ORDER BY uid FOR UPDATE`,
      [indexId, uids],
    );
    const live = new Map<string, number | null>(locked.rows.map((r) => [r.uid, r.version === -1 ? null : r.version]));
    const result: PublishResult = { published: [], removed: [], stale: 0 };
    const accepted: PublishItem[] = [];
    const finals = new Map<string, PublishItem>();
    for (const item of chunk) {
      const current = live.get(item.uid) ?? null;
      if (current !== null && current > item.version) {
        result.stale++;
        continue;
      }
      if (current === null || current < item.version) {
        accepted.push(item);
        finals.set(item.uid, item);
        live.set(item.uid, item.version);
      }
      (item.sections === null ? result.removed : result.published).push({ uid: item.uid, version: item.version });
    }
    if (accepted.length > 0) {
      await this.replaceSections(c, indexId, [...finals.values()], model);
      if (mirrored) await mirrored(accepted);
      const f = [...finals.values()];
      await c.query(
        `UPDATE live l SET version = u.version, deleted = u.deleted
         FROM unnest($2::text[], $3::bigint[], $4::boolean[]) AS u(uid, version, deleted)
         WHERE l.index_id = $1 AND l.uid = u.uid`,
        [indexId, f.map((i) => i.uid), f.map((i) => i.version), f.map((i) => i.sections === null)],
      );
      // Last statement before COMMIT: the counter row stays locked only for the commit itself.
      await c.query(
        `WITH f AS (UPDATE index_feed SET seq = seq + $3 WHERE index_id = $1 RETURNING seq)
         INSERT INTO changes (index_id, seq, uid)
         SELECT $1, f.seq - $3 + u.i, u.uid FROM f, unnest($2::text[]) WITH ORDINALITY AS u(uid, i)`,
        [indexId, accepted.map((i) => i.uid), accepted.length],
      );
    }
    return result;
  }

  private async replaceSections(c: pg.PoolClient, indexId: number, items: PublishItem[], model: string) {
    await c.query(`DELETE FROM sections WHERE index_id = $1 AND doc_uid = ANY($2::text[])`, [indexId, items.map((i) => i.uid)]);
    const rows = items.flatMap((i) => (i.sections ?? []).map((s) => ({ uid: i.uid, version: i.version, s })));
    if (rows.length === 0) return;
    await c.query(
      `INSERT INTO sections (index_id, doc_uid, version, ord, field, title, anchor, text, hash, vector, vector_model)
       SELECT $1::int, * FROM unnest($2::text[], $3::bigint[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::text[], $10::bytea[], $11::text[])`,
      [
        indexId,
        rows.map((r) => r.uid),
        rows.map((r) => r.version),
        rows.map((r) => r.s.ord),
        rows.map((r) => r.s.field),
        rows.map((r) => pgText(r.s.title)),
        rows.map((r) => (r.s.anchor === null ? null : pgText(r.s.anchor))),
        rows.map((r) => pgText(r.s.text)),
        rows.map((r) => r.s.hash),
        rows.map((r) => (r.s.vector ? toBytes(r.s.vector) : null)),
        rows.map((r) => (r.s.vector ? model : null)),
      ],
    );
  }

  /** The counter row of the index's feed; created outside any publish so no transaction holds it long. */
  private async ensureFeed(indexId: number): Promise<void> {
    if (this.feeds.has(indexId)) return;
    await this.pool.query(`INSERT INTO index_feed (index_id, seq) VALUES ($1, 0) ON CONFLICT DO NOTHING`, [indexId]);
    this.feeds.add(indexId);
  }

  async sections(indexId: number, uids?: string[], options: { vectors?: boolean } = {}): Promise<SectionView[]> {
    const columns = options.vectors === false ? COLUMNS : `${COLUMNS}, s.vector`;
    const { rows } = uids
      ? await this.pool.query<SectionRowView>(
        `SELECT ${columns} FROM unnest($2::text[]) WITH ORDINALITY AS u(uid, i)
         JOIN sections s ON s.index_id = $1 AND s.doc_uid = u.uid ORDER BY u.i, s.ord`,
        [indexId, uids],
      )
      : await this.pool.query<SectionRowView>(`SELECT ${columns} FROM sections s WHERE s.index_id = $1 ORDER BY s.doc_uid, s.ord`, [indexId]);
    return rows.map((r) => ({ ...r, vector: r.vector ? fromBytes(r.vector) : null }));
  }

  async sectionsPage(indexId: number, afterUid: string | null, documents: number, options: { vectors?: boolean } = {}): Promise<SectionView[]> {
    const columns = options.vectors === false ? COLUMNS : `${COLUMNS}, s.vector`;
    const { rows } = await this.pool.query<SectionRowView>(
      `SELECT ${columns} FROM sections s WHERE s.index_id = $1 AND s.doc_uid IN
         (SELECT DISTINCT doc_uid FROM sections WHERE index_id = $1 AND ($2::text IS NULL OR doc_uid > $2) ORDER BY doc_uid LIMIT $3)
       ORDER BY s.doc_uid, s.ord`,
      [indexId, afterUid, documents],
    );
    return rows.map((r) => ({ ...r, vector: r.vector ? fromBytes(r.vector) : null }));
  }

  async sectionsAt(indexId: number, at: readonly SectionPosition[]): Promise<SectionView[]> {
    if (at.length === 0) return [];
    const { rows } = await this.pool.query<SectionRowView>(
      `SELECT ${COLUMNS} FROM unnest($2::text[], $3::int[]) AS p(uid, ord)
       JOIN sections s ON s.index_id = $1 AND s.doc_uid = p.uid AND s.ord = p.ord`,
      [indexId, at.map((p) => p.uid), at.map((p) => p.ord)],
    );
    return rows.map((r) => ({ ...r, vector: null }));
  }

  async sectionsById(indexId: number, ids: readonly number[]): Promise<SectionView[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<SectionRowView>(
      // `+ 0` keeps the planner on the primary key (not the document index's index_id prefix, which covers
      // all of an index's sections) whatever its statistics say.
      `SELECT ${COLUMNS} FROM sections s WHERE s.id = ANY($2::bigint[]) AND s.index_id + 0 = $1`,
      [indexId, ids],
    );
    return rows.map((r) => ({ ...r, vector: null }));
  }

  async liveVersions(indexId: number, uids: string[]): Promise<Map<string, number>> {
    if (uids.length === 0) return new Map();
    const { rows } = await this.pool.query<{ uid: string; version: number }>(
      `SELECT uid, version FROM live WHERE index_id = $1 AND uid = ANY($2::text[])`,
      [indexId, uids],
    );
    return new Map(rows.map((r) => [r.uid, r.version]));
  }

  async changesSince(indexId: number, seq: number, limit: number): Promise<ChangeEntry[]> {
    const { rows } = await this.pool.query<ChangeEntry>(
      `SELECT seq, uid FROM changes WHERE index_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [indexId, seq, limit],
    );
    return rows;
  }

  async lastChange(indexId: number): Promise<number> {
    const { rows } = await this.pool.query<{ s: number }>(`SELECT coalesce(max(seq), 0) AS s FROM changes WHERE index_id = $1`, [indexId]);
    return rows[0].s;
  }

  async firstChange(indexId: number): Promise<number> {
    const { rows } = await this.pool.query<{ s: number }>(`SELECT coalesce(min(seq), 0) AS s FROM changes WHERE index_id = $1`, [indexId]);
    return rows[0].s;
  }

  async pruneChanges(keep: number): Promise<number> {
    // Entries are gapless per index, so this keeps exactly the newest `keep` (and always the newest).
    const r = await this.pool.query(
      `DELETE FROM changes c USING index_feed f WHERE c.index_id = f.index_id AND c.seq < f.seq AND c.seq <= f.seq - $1`,
      [keep],
    );
    return r.rowCount ?? 0;
  }

  async reusableVectors(hashes: string[], model: string): Promise<Map<string, Float32Array>> {
    if (hashes.length === 0) return new Map();
    const { rows } = await this.pool.query<{ hash: string; vector: Buffer }>(
      `SELECT DISTINCT ON (hash) hash, vector FROM sections WHERE hash = ANY($1::text[]) AND vector_model = $2 AND vector IS NOT NULL`,
      [[...new Set(hashes)], model],
    );
    return new Map(rows.map((r) => [r.hash, fromBytes(r.vector)]));
  }
}
