export interface StoredReference {
  index: number;
  title: string;
  url?: string;
  content: string;
}

export interface ConversationTurnRecord {
  seq: number;
  question: string;
  reply: string;
  references: StoredReference[];
  at: number;
}

export interface ConversationSummary {
  id: string;
  /** The url of the top reference of the latest reply (the latest topic), if it had one. */
  latestUrl: string | null;
  updatedAt: number;
  /** Turns of the whole conversation. */
  turns: number;
}

/** A page of a conversation listing: at most `limit`, after the conversation `after` (the last of the previous page). */
export interface ConversationPage {
  limit: number;
  after?: { updatedAt: number; id: string };
}

/** Chat conversations of a configuration, turn by turn. */
export interface ConversationStore {
  /** Turns oldest first, at most the `limit` latest. */
  turns(configurationUid: string, conversationId: string, limit: number): Promise<ConversationTurnRecord[]>;
  exists(configurationUid: string, conversationId: string): Promise<boolean>;
  /** The keyed session hash the conversation was started with; null when it does not exist. */
  owner(configurationUid: string, conversationId: string): Promise<string | null>;
  /**
   * Appends a turn, creating the conversation for `session` when it is new. False, appending nothing,
   * when the conversation belongs to another session (one that won a race to create the same id).
   */
  append(configurationUid: string, conversationId: string, session: string, turn: Omit<ConversationTurnRecord, 'seq'>): Promise<boolean>;
  /** Conversations with a turn in [from, to), latest first: a page of `page.limit` (default 10,000) after `page.after`. */
  list(configurationUid: string, from: number, to: number, page?: ConversationPage): Promise<ConversationSummary[]>;
  /** Retention: drops conversations whose latest turn is before `before` (ms epoch), turns and all; returns how many. */
  prune(before: number): Promise<number>;
}
