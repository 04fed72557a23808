import { clientNetwork } from './client-network.js';
import { keyedHash } from './keyed-hash.js';

/**
 * What learning stores of a client: a keyed hash of its network (shared/auth/client-network.ts), never the
 * address (personal data, like a session id), yet equal for every request from the same network.
 */
export function clientHash(secret: string, address: string): string {
  return keyedHash(secret, 'client', clientNetwork(address)).slice(0, 22);
}
