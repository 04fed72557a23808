import type { ConfigurationRecord, ConfigurationStore, InstantAnswerRecord } from '../ports/configuration-store.js';
import type { CreatedKey, ListPage } from '../ports/list-page.js';
import type { Db } from './open-database.js';
import { createdPageParams, type CreatedPageParams } from './list-page-params.js';

interface Row {
  body: string;
}

// The record is stored whole as JSON: configurations are read by uid only, and new settings
// then need no migration.
const fromRow = <T>(r: Row | undefined): T | null => (r ? (JSON.parse(r.body) as T) : null);

export class SqliteConfigurationStore implements ConfigurationStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare(`INSERT INTO configurations (uid, variant, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`),
      get: db.prepare<[string], Row>(`SELECT body FROM configurations WHERE uid = ?`),
      list: db.prepare<[CreatedPageParams], Row>(
        `SELECT body FROM configurations WHERE @afterAt IS NULL OR created_at > @afterAt OR (created_at = @afterAt AND uid > @afterId)
         ORDER BY created_at, uid LIMIT @limit`,
      ),
      replace: db.prepare(`UPDATE configurations SET body = ?, updated_at = ? WHERE uid = ?`),
      delete: db.prepare(`DELETE FROM configurations WHERE uid = ?`),
      insertAnswer: db.prepare(`INSERT INTO instant_answers (id, configuration_uid, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`),
      answers: db.prepare<[CreatedPageParams & { uid: string }], Row>(
        `SELECT body FROM instant_answers WHERE configuration_uid = @uid
           AND (@afterAt IS NULL OR created_at > @afterAt OR (created_at = @afterAt AND id > @afterId))
         ORDER BY created_at, id LIMIT @limit`,
      ),
      replaceAnswer: db.prepare(`UPDATE instant_answers SET body = ?, updated_at = ? WHERE id = ? AND configuration_uid = ?`),
      deleteAnswer: db.prepare(`DELETE FROM instant_answers WHERE id = ? AND configuration_uid = ?`),
    };
  }

  async insert(r: ConfigurationRecord) {
    this.q.insert.run(r.uid, r.variant, JSON.stringify(r), r.createdAt, r.updatedAt);
  }

  async get(uid: string) {
    return fromRow<ConfigurationRecord>(this.q.get.get(uid));
  }

  async list(page?: ListPage<CreatedKey>) {
    return this.q.list.all(createdPageParams(page)).map((r) => fromRow<ConfigurationRecord>(r)!);
  }

  async replace(r: ConfigurationRecord) {
    return this.q.replace.run(JSON.stringify(r), r.updatedAt, r.uid).changes > 0;
  }

  async delete(uid: string) {
    return this.q.delete.run(uid).changes > 0;
  }

  async insertInstantAnswer(r: InstantAnswerRecord) {
    this.q.insertAnswer.run(r.id, r.configurationUid, JSON.stringify(r), r.createdAt, r.updatedAt);
  }

  async instantAnswers(configurationUid: string, page?: ListPage<CreatedKey>) {
    return this.q.answers.all({ uid: configurationUid, ...createdPageParams(page) }).map((r) => fromRow<InstantAnswerRecord>(r)!);
  }

  async replaceInstantAnswer(r: InstantAnswerRecord) {
    return this.q.replaceAnswer.run(JSON.stringify(r), r.updatedAt, r.id, r.configurationUid).changes > 0;
  }

  async deleteInstantAnswer(configurationUid: string, id: string) {
    return this.q.deleteAnswer.run(id, configurationUid).changes > 0;
  }
}
