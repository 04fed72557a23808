import type pg from 'pg';
import type { ConversationPage, ConversationStore, ConversationSummary, ConversationTurnRecord, StoredReference } from '../ports/conversation-store.js';
import { inTransaction, pgText } from './pg-transaction.js';

interface TurnRow {
  seq: number;
  question: string;
  reply: string;
  refs: string;
  at: number;
}

export class PgConversationStore implements ConversationStore {
  constructor(private readonly pool: pg.Pool) {}

  async turns(uid: string, id: string, limit: number): Promise<ConversationTurnRecord[]> {
    const { rows } = await this.pool.query<TurnRow>(
      `SELECT seq, question, reply, refs, at FROM conversation_turns WHERE configuration_uid = $1 AND conversation_id = $2
       ORDER BY seq DESC LIMIT $3`,
      [uid, id, limit],
    );
    return rows.reverse().map((r) => ({
      seq: r.seq, question: r.question, reply: r.reply, references: JSON.parse(r.refs) as StoredReference[], at: r.at,
    }));
  }

  async exists(uid: string, id: string) {
    const { rows } = await this.pool.query(`SELECT 1 FROM conversations WHERE configuration_uid = $1 AND id = $2`, [uid, id]);
    return rows.length > 0;
  }

  async owner(uid: string, id: string) {
    const { rows } = await this.pool.query<{ session: string }>(`SELECT session FROM conversations WHERE configuration_uid = $1 AND id = $2`, [uid, id]);
    return rows[0]?.session ?? null;
  }

  async append(uid: string, id: string, session: string, turn: Omit<ConversationTurnRecord, 'seq'>) {
    return inTransaction(this.pool, async (c) => {
      // The upsert locks the conversation's row, so concurrent appends number their turns one after
      // another; it changes nothing of a conversation another session owns (no row comes back).
      const own = await c.query(
        `INSERT INTO conversations (configuration_uid, id, session, latest_url, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (configuration_uid, id) DO UPDATE
           SET latest_url = coalesce(excluded.latest_url, conversations.latest_url), updated_at = excluded.updated_at
           WHERE conversations.session = excluded.session
         RETURNING 1`,
        [uid, id, session, turn.references[0]?.url ?? null, turn.at],
      );
      if (own.rowCount === 0) return false;
      await c.query(
        `INSERT INTO conversation_turns (configuration_uid, conversation_id, seq, question, reply, refs, at)
         SELECT $1, $2, coalesce(max(seq), 0) + 1, $3::text, $4::text, $5::text, $6::bigint FROM conversation_turns
         WHERE configuration_uid = $1 AND conversation_id = $2`,
        [uid, id, pgText(turn.question), pgText(turn.reply), JSON.stringify(turn.references), turn.at],
      );
      return true;
    });
  }

  async prune(before: number): Promise<number> {
    return inTransaction(this.pool, async (c) => {
      // The conversations' rows first, locked as an append locks them: a turn appended meanwhile either
      // committed before (the conversation is not stale) or recreates the conversation after.
      const gone = await c.query<{ configuration_uid: string; id: string }>(
        `DELETE FROM conversations WHERE updated_at < $1 RETURNING configuration_uid, id`, [before]);
      if (gone.rowCount === 0) return 0;
      await c.query(
        `DELETE FROM conversation_turns t USING unnest($1::text[], $2::text[]) AS g(c, i)
         WHERE t.configuration_uid = g.c AND t.conversation_id = g.i`,
        [gone.rows.map((r) => r.configuration_uid), gone.rows.map((r) => r.id)],
      );
      return gone.rowCount ?? 0;
    });
  }

  async list(uid: string, from: number, to: number, page: ConversationPage = { limit: 10_000 }): Promise<ConversationSummary[]> {
    const { rows } = await this.pool.query<{ id: string; latest_url: string | null; updated_at: number; turns: number }>(
      `SELECT c.id, c.latest_url, c.updated_at,
         (SELECT count(*)::int FROM conversation_turns t WHERE t.configuration_uid = c.configuration_uid AND t.conversation_id = c.id) AS turns
       FROM conversations c
       WHERE c.configuration_uid = $1
         AND ($5::bigint IS NULL OR c.updated_at < $5 OR (c.updated_at = $5 AND c.id COLLATE "C" > $6))
         AND EXISTS (SELECT 1 FROM conversation_turns t WHERE t.configuration_uid = c.configuration_uid
         AND t.conversation_id = c.id AND t.at >= $2 AND t.at < $3)
       ORDER BY c.updated_at DESC, c.id COLLATE "C" LIMIT $4`,
      [uid, from, to, page.limit, page.after?.updatedAt ?? null, page.after?.id ?? ''],
    );
    return rows.map((r) => ({ id: r.id, latestUrl: r.latest_url, updatedAt: r.updated_at, turns: r.turns }));
  }
}
