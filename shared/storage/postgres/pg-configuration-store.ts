import type pg from 'pg';
import type { ConfigurationRecord, ConfigurationStore, InstantAnswerRecord } from '../ports/configuration-store.js';
import type { CreatedKey, ListPage } from '../ports/list-page.js';

// The record is stored whole as JSON text, as in SQLite: configurations are read by uid only, and
// new settings then need no migration.
const bodies = <T>(rows: { body: string }[]): T[] => rows.map((r) => JSON.parse(r.body) as T);
const changed = (r: pg.QueryResult) => (r.rowCount ?? 0) > 0;
/** $n.. of a keyset page over (created_at, <id column>): the limit (null: every row), then the last row's key. */
const pageParams = (page?: ListPage<CreatedKey>) => [page?.limit ?? null, page?.after?.createdAt ?? null, page?.after?.id ?? ''];

export class PgConfigurationStore implements ConfigurationStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(r: ConfigurationRecord) {
    await this.pool.query(
      `INSERT INTO configurations (uid, variant, body, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)`,
      [r.uid, r.variant, JSON.stringify(r), r.createdAt, r.updatedAt],
    );
  }

  async get(uid: string) {
    const { rows } = await this.pool.query<{ body: string }>(`SELECT body FROM configurations WHERE uid = $1`, [uid]);
    return bodies<ConfigurationRecord>(rows)[0] ?? null;
  }

  async list(page?: ListPage<CreatedKey>) {
    const { rows } = await this.pool.query<{ body: string }>(
      `SELECT body FROM configurations WHERE $2::bigint IS NULL OR created_at > $2 OR (created_at = $2 AND uid > $3)
       ORDER BY created_at, uid LIMIT $1`,
      pageParams(page),
    );
    return bodies<ConfigurationRecord>(rows);
  }

  async replace(r: ConfigurationRecord) {
    return changed(await this.pool.query(`UPDATE configurations SET body = $1, updated_at = $2 WHERE uid = $3`, [JSON.stringify(r), r.updatedAt, r.uid]));
  }

  async delete(uid: string) {
    return changed(await this.pool.query(`DELETE FROM configurations WHERE uid = $1`, [uid]));
  }

  async insertInstantAnswer(r: InstantAnswerRecord) {
    await this.pool.query(
      `INSERT INTO instant_answers (id, configuration_uid, body, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)`,
      [r.id, r.configurationUid, JSON.stringify(r), r.createdAt, r.updatedAt],
    );
  }

  async instantAnswers(configurationUid: string, page?: ListPage<CreatedKey>) {
    const { rows } = await this.pool.query<{ body: string }>(
      `SELECT body FROM instant_answers WHERE configuration_uid = $4
         AND ($2::bigint IS NULL OR created_at > $2 OR (created_at = $2 AND id > $3))
       ORDER BY created_at, id LIMIT $1`,
      [...pageParams(page), configurationUid],
    );
    return bodies<InstantAnswerRecord>(rows);
  }

  async replaceInstantAnswer(r: InstantAnswerRecord) {
    return changed(await this.pool.query(
      `UPDATE instant_answers SET body = $1, updated_at = $2 WHERE id = $3 AND configuration_uid = $4`,
      [JSON.stringify(r), r.updatedAt, r.id, r.configurationUid],
    ));
  }

  async deleteInstantAnswer(configurationUid: string, id: string) {
    return changed(await this.pool.query(`DELETE FROM instant_answers WHERE id = $1 AND configuration_uid = $2`, [id, configurationUid]));
  }
}
