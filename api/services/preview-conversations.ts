import { AppError } from '../../shared/errors/app-error.js';
import type { ConversationTurn } from '../../shared/generation/generation-types.js';

const MAX_CONVERSATIONS = 1000;

/**
 * The answer to a conversation id the session does not own: the same whether it is another session's
 * or was lost to a race, and nothing in it says which.
 */
export function conversationNotFound(conversationId: string): AppError {
  return new AppError('not_found', `No conversation '${conversationId}' exists for this session-id; omit conversation-id to start a new conversation`);
}
const IDLE_MS = 30 * 60_000;

/**
 * Preview chats (the web app's Try it) remembered in this process only, so a follow-up sees the earlier
 * turns while trying leaves no row and no Redis key. Bounded: the least recently used conversation goes
 * first, idle ones after 30 minutes. With several API processes a follow-up on another one starts afresh.
 */
export class PreviewConversations {
  private readonly conversations = new Map<string, { turns: ConversationTurn[]; session: string; at: number }>();

  /** Turns of the conversation; 404 when it is another session's (a preview's id is no key to it either). */
  turns(configurationUid: string, conversationId: string, session: string, limit: number): ConversationTurn[] {
    const key = `${configurationUid}\u0000${conversationId}`;
    const c = this.conversations.get(key);
    if (!c || Date.now() - c.at > IDLE_MS) {
      this.conversations.delete(key);
      return [];
    }
    if (c.session !== session) throw conversationNotFound(conversationId);
    return c.turns.slice(-limit);
  }

  append(configurationUid: string, conversationId: string, session: string, turn: ConversationTurn, keep: number): void {
    const key = `${configurationUid}\u0000${conversationId}`;
    const turns = [...this.turns(configurationUid, conversationId, session, keep), turn].slice(-keep);
    // Re-inserting moves the key to the end of the Map's order, which makes the first key the least recent.
    this.conversations.delete(key);
    this.conversations.set(key, { turns, session, at: Date.now() });
    if (this.conversations.size > MAX_CONVERSATIONS) this.conversations.delete(this.conversations.keys().next().value!);
  }
}
