import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord, KeyStore, Permission } from '../storage/ports/key-store.js';

/**
 * Secrets are 256 random bits, so a fast SHA-256 is enough to store them (no dictionary to resist,
 * unlike passwords) and keeps the per-request check to microseconds.
 */
export const hashKey = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  permissions: Permission[];
  indexes: string[] | null;
}

export async function createApiKey(store: KeyStore, input: { name: string; permissions: Permission[]; indexes?: string[] | null }): Promise<CreatedKey> {
  const secret = `qk_${randomBytes(32).toString('base64url')}`;
  const id = `key_${randomBytes(6).toString('hex')}`;
  const permissions = [...new Set(input.permissions)];
  const indexes = input.indexes && input.indexes.length ? [...new Set(input.indexes)] : null;
  await store.insert({ id, name: input.name, prefix: secret.slice(0, 10), permissions, indexes, createdAt: Date.now() }, hashKey(secret));
  return { id, name: input.name, key: secret, permissions, indexes };
}

/**
 * The indexes a key is limited to, null for all. A key with admin may use every index, whatever scope was stored
 * for it before the admin API refused that combination, so that scope is not shown as if it applied.
 */
export const scopeOf = (k: { permissions: readonly string[]; indexes: string[] | null }): string[] | null =>
  (k.permissions.includes('admin') ? null : k.indexes);

export interface Principal {
  keyId: string;
  name: string;
  permissions: ReadonlySet<Permission>;
  indexes: ReadonlySet<string> | null;
}

export const MASTER: Principal = { keyId: 'master', name: 'master key', permissions: new Set<Permission>(['read', 'write', 'admin']), indexes: null };

/**
 * Resolves secrets to principals, remembering answers for a few seconds: every push request is
 * authenticated, keys change rarely. A revocation in this process clears the memory at once;
 * other API processes honour it within CACHE_MS. Each key's last use is written at most once per
 * USE_EVERY_MS and process, in the background: a request never waits for it.
 */
export class Authenticator {
  private static readonly CACHE_MS = 5000;
  private static readonly USE_EVERY_MS = 60_000;
  private readonly cache = new Map<string, { principal: Principal | null; at: number }>();
  private readonly lastNoted = new Map<string, number>();
  private readonly masterHash: Buffer | null;

  constructor(
    private readonly store: KeyStore,
    masterKey: string | null,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.masterHash = masterKey ? Buffer.from(hashKey(masterKey)) : null;
  }

  async authenticate(secret: string | undefined): Promise<Principal | null> {
    if (!secret) return null;
    const hash = hashKey(secret);
    if (this.masterHash && timingSafeEqual(Buffer.from(hash), this.masterHash)) return MASTER;
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && now - hit.at < Authenticator.CACHE_MS) return this.noteUse(hit.principal, now);
    const rec: ApiKeyRecord | null = await this.store.findByHash(hash);
    const principal = rec
      ? { keyId: rec.id, name: rec.name, permissions: new Set(rec.permissions), indexes: rec.indexes ? new Set(rec.indexes) : null }
      : null;
    // Unknown secrets are not remembered, so a flood of random keys cannot grow the map.
    if (principal) this.cache.set(hash, { principal, at: now });
    return this.noteUse(principal, now);
  }

  private noteUse(principal: Principal | null, now: number): Principal | null {
    if (!principal || now - (this.lastNoted.get(principal.keyId) ?? 0) < Authenticator.USE_EVERY_MS) return principal;
    this.lastNoted.set(principal.keyId, now);
    this.store.markUsed(principal.keyId, now).catch(this.onError);
    return principal;
  }

  forget(): void {
    this.cache.clear();
  }
}

export function allows(p: Principal, permission: Permission, indexUid?: string): boolean {
  if (p.permissions.has('admin')) return true;
  if (!p.permissions.has(permission)) return false;
  return indexUid === undefined || p.indexes === null || p.indexes.has(indexUid);
}
