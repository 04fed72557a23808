import { createHmac, randomBytes } from 'node:crypto';
import type { KeyStore } from '../storage/ports/key-store.js';

/**
 * A session id is personal data: only this keyed hash of it is stored, so the raw id cannot be
 * recovered from the data, and without the server secret it cannot even be confirmed by guessing.
 */
export function sessionHash(secret: string, sessionId: string): string {
  return createHmac('sha256', secret).update('session\u0000').update(sessionId).digest('base64url').slice(0, 22);
}

/**
 * The server secret: the configured one, or one generated once and kept in the store, so every
 * API process on every host, and every restart, signs and hashes alike.
 */
export async function serverSecret(configured: string | null, keys: KeyStore): Promise<string> {
  if (configured) return configured;
  return keys.sharedSecret(randomBytes(32).toString('base64url'));
}
