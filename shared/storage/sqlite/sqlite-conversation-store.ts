import type { ConversationPage, ConversationStore, ConversationTurnRecord } from '../ports/conversation-store.js';
import { immediate, type Db } from './open-database.js';

interface ListParams {
  uid: string;
  from: number;
  to: number;
  limit: number;
  afterAt: number | null;
  afterId: string;
}

interface TurnRow {
  seq: number;
  question: string;
  reply: string;
  refs: string;
  at: number;
}

export class SqliteConversationStore implements ConversationStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      turns: db.prepare<[string, string, number], TurnRow>(
        `SELECT seq, question, reply, refs, at FROM conversation_turns WHERE configuration_uid = ? AND conversation_id = ?
         ORDER BY seq DESC LIMIT ?`,
      ),
      exists: db.prepare<[string, string], number>(`SELECT 1 FROM conversations WHERE configuration_uid = ? AND id = ?`).pluck(),
      owner: db.prepare<[string, string], string>(`SELECT session FROM conversations WHERE configuration_uid = ? AND id = ?`).pluck(),
      upsert: db.prepare(
        `INSERT INTO conversations (id, configuration_uid, session, latest_url, created_at, updated_at) VALUES (@id, @uid, @session, @url, @at, @at)
         ON CONFLICT DO UPDATE SET latest_url = coalesce(excluded.latest_url, latest_url), updated_at = excluded.updated_at`,
      ),
      nextSeq: db.prepare<[string, string], number>(
        `SELECT coalesce(max(seq), 0) + 1 FROM conversation_turns WHERE configuration_uid = ? AND conversation_id = ?`,
      ).pluck(),
      insertTurn: db.prepare(
        `INSERT INTO conversation_turns (configuration_uid, conversation_id, seq, question, reply, refs, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      list: db.prepare<[ListParams], { id: string; latest_url: string | null; updated_at: number; turns: number }>(
        `SELECT c.id, c.latest_url, c.updated_at,
           (SELECT count(*) FROM conversation_turns t WHERE t.configuration_uid = c.configuration_uid AND t.conversation_id = c.id) AS turns
         FROM conversations c
         WHERE c.configuration_uid = @uid
           AND (@afterAt IS NULL OR c.updated_at < @afterAt OR (c.updated_at = @afterAt AND c.id > @afterId))
           AND EXISTS (SELECT 1 FROM conversation_turns t WHERE t.configuration_uid = c.configuration_uid
           AND t.conversation_id = c.id AND t.at >= @from AND t.at < @to)
         ORDER BY c.updated_at DESC, c.id LIMIT @limit`,
      ),
    };
  }

  async turns(uid: string, id: string, limit: number): Promise<ConversationTurnRecord[]> {
    return this.q.turns.all(uid, id, limit).reverse().map((r) => ({ seq: r.seq, question: r.question, reply: r.reply, references: JSON.parse(r.refs), at: r.at }));
  }

  async exists(uid: string, id: string) {
    return this.q.exists.get(uid, id) === 1;
  }

  async owner(uid: string, id: string) {
    return this.q.owner.get(uid, id) ?? null;
  }

  async append(uid: string, id: string, session: string, turn: Omit<ConversationTurnRecord, 'seq'>) {
    return immediate(this.db, () => {
      const owner = this.q.owner.get(uid, id);
      if (owner !== undefined && owner !== session) return false;
      this.q.upsert.run({ id, uid, session, url: turn.references[0]?.url ?? null, at: turn.at });
      this.q.insertTurn.run(uid, id, this.q.nextSeq.get(uid, id), turn.question, turn.reply, JSON.stringify(turn.references), turn.at);
      return true;
    });
  }

  async prune(before: number) {
    return immediate(this.db, () => {
      this.db.prepare(
        `DELETE FROM conversation_turns WHERE (configuration_uid, conversation_id) IN
           (SELECT configuration_uid, id FROM conversations WHERE updated_at < ?)`,
      ).run(before);
      return this.db.prepare(`DELETE FROM conversations WHERE updated_at < ?`).run(before).changes;
    });
  }

  async list(uid: string, from: number, to: number, page: ConversationPage = { limit: 10_000 }) {
    const params = { uid, from, to, limit: page.limit, afterAt: page.after?.updatedAt ?? null, afterId: page.after?.id ?? '' };
    return this.q.list.all(params).map((r) => ({ id: r.id, latestUrl: r.latest_url, updatedAt: r.updated_at, turns: r.turns }));
  }
}
