import { randomBytes } from 'node:crypto';
import type { KeyStore } from '../storage/ports/key-store.js';
import type { SessionRecord, SessionStore } from '../storage/ports/session-store.js';
import { MASTER, type Principal } from './api-keys.js';
import { keyedHash } from './keyed-hash.js';

export interface SignedIn {
  /** The raw token for the browser's cookie; only its keyed hash is stored. */
  token: string;
  session: SessionRecord;
}

/** 256 random bits in base64url: what a session token looks like, so anything else is refused unhashed. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const newToken = () => randomBytes(32).toString('base64url');

/**
 * Web-app sessions: a key with the admin permission signs in once, and the browser then holds a
 * random token instead of the key. Every use re-checks that the key still exists, is not revoked
 * and still has admin (the master key: is still the configured one), so revoking a key ends its
 * sessions on every API process at once. The expiry slides with use, written at most once per TOUCH_EVERY_MS.
 */
export class WebSessions {
  static readonly TOUCH_EVERY_MS = 60_000;
  private readonly masterHash: string | null;

  constructor(
    private readonly store: SessionStore,
    private readonly keys: KeyStore,
    private readonly secret: string,
    masterKey: string | null,
    readonly ttlMs: number,
  ) {
    this.masterHash = masterKey ? keyedHash(secret, 'master-key', masterKey) : null;
  }

  async create(principal: Principal): Promise<SignedIn> {
    const token = newToken();
    const now = Date.now();
    const session: SessionRecord = {
      hash: this.hashOf(token),
      csrfToken: newToken(),
      keyId: principal.keyId,
      keyName: principal.name,
      masterHash: principal.keyId === MASTER.keyId ? this.masterHash : null,
      createdAt: now,
      expiresAt: now + this.ttlMs,
      lastSeenAt: now,
    };
    await this.store.create(session);
    return { token, session };
  }

  /** The live session of a cookie's token, or null; `slid`: its expiry moved forward just now. */
  async resolve(token: string): Promise<{ session: SessionRecord; slid: boolean } | null> {
    if (!TOKEN.test(token)) return null;
    const now = Date.now();
    const session = await this.store.find(this.hashOf(token), now);
    if (!session || !(await this.keyStillAdmin(session))) return null;
    if (now - session.lastSeenAt < WebSessions.TOUCH_EVERY_MS) return { session, slid: false };
    const touched = { ...session, lastSeenAt: now, expiresAt: now + this.ttlMs };
    await this.store.touch(session.hash, touched.lastSeenAt, touched.expiresAt);
    return { session: touched, slid: true };
  }

  async end(token: string): Promise<void> {
    if (TOKEN.test(token)) await this.store.delete(this.hashOf(token));
  }

  async endOfKey(keyId: string): Promise<number> {
    return this.store.deleteOfKey(keyId);
  }

  /** A session acts with the admin permission of the key that signed in, on every index. */
  principalOf(session: SessionRecord): Principal {
    return { ...MASTER, keyId: session.keyId, name: session.keyName };
  }

  private hashOf(token: string): string {
    return keyedHash(this.secret, 'web-session', token);
  }

  private async keyStillAdmin(s: SessionRecord): Promise<boolean> {
    if (s.keyId === MASTER.keyId) return this.masterHash !== null && s.masterHash === this.masterHash;
    const key = await this.keys.get(s.keyId);
    return key !== null && key.revokedAt === null && key.permissions.includes('admin');
  }
}
