import { createHmac, randomBytes } from 'node:crypto';
import type { KeyStore } from '../storage/ports/key-store.js';

/**
 * HMAC of a value with the server secret, separated by purpose so a value hashed for one use never
 * matches one hashed for another. Without the secret a stored hash cannot even be confirmed by guessing.
 */
export function keyedHash(secret: string, purpose: string, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}\u0000`).update(value).digest('base64url');
}

/**
 * A session id is personal data: only this keyed hash of it is stored, so the raw id cannot be
 * recovered from the data.
 */
export function sessionHash(secret: string, sessionId: string): string {
  return keyedHash(secret, 'session', sessionId).slice(0, 22);
}

/**
 * The server secret: the configured one, or one generated once and kept in the store, so every
 * API process on every host, and every restart, signs and hashes alike.
 */
export async function serverSecret(configured: string | null, keys: KeyStore): Promise<string> {
  if (configured) return configured;
  return keys.sharedSecret(randomBytes(32).toString('base64url'));
}
