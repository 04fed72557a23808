/** A signed-in web-app session. The raw session token is never stored: only its keyed hash. */
export interface SessionRecord {
  /** Keyed hash (HMAC with the server secret) of the session token the browser holds in its cookie. */
  hash: string;
  /** Sent back in X-CSRF-Token by every state-changing request of the session. */
  csrfToken: string;
  /** The key that signed in: its id, or 'master'. */
  keyId: string;
  keyName: string;
  /** For 'master': keyed hash of the master key signed in with, so changing QUARRY_MASTER_KEY ends its sessions. */
  masterHash: string | null;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session with this hash, unless it expired by `now`. */
  find(hash: string, now: number): Promise<SessionRecord | null>;
  /** Slides the expiry of a session that is in use. */
  touch(hash: string, lastSeenAt: number, expiresAt: number): Promise<void>;
  delete(hash: string): Promise<boolean>;
  /** Drops sessions expired by `now`; returns how many. */
  deleteExpired(now: number): Promise<number>;
  /** Ends every session a key signed in (the key was revoked); returns how many. */
  deleteOfKey(keyId: string): Promise<number>;
}
