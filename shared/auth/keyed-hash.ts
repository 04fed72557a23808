import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A session id is personal data: only this keyed hash of it is stored, so the raw id cannot be
 * recovered from the data, and without the server secret it cannot even be confirmed by guessing.
 */
export function sessionHash(secret: string, sessionId: string): string {
  return createHmac('sha256', secret).update('session\u0000').update(sessionId).digest('base64url').slice(0, 22);
}

/**
 * The server secret: the configured one, or one generated once and kept in the data folder so
 * every process on the machine, and every restart, signs and hashes alike.
 */
export function serverSecret(configured: string | null, dataDir: string): string {
  if (configured) return configured;
  const file = join(dataDir, 'secret');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // 'wx' makes a second process starting at the same moment lose the race and read the winner's secret.
    try {
      writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(file, 'utf8').trim();
}
