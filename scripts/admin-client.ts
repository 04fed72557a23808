// The command-line tools' way to the admin API: the same routes, with the master key, as the web app.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../shared/config/config.js';
import { createStorage, type Storage } from '../shared/storage/create-storage.js';
import { PRIVATE_UMASK } from '../shared/storage/private-folder.mjs';

/** Nothing listens at the address: the tools then work straight on the data folder (bootstrap). */
export class ServerNotRunning extends Error {}

export interface AdminClient {
  base: string;
  call(method: string, path: string, body?: unknown): Promise<any>;
}

/**
 * Address from --url, QUARRY_URL or this machine's PORT; key from --key, QUARRY_MASTER_KEY or the
 * master-key file `npm start` keeps in the data folder.
 */
export function adminClient(config: Config, options: { url?: string; key?: string }): AdminClient {
  const base = (options.url ?? process.env.QUARRY_URL ?? `http://localhost:${config.http.port}`).replace(/\/+$/, '');
  const keyFile = join(config.storage.dataDir, 'master-key');
  const key = options.key ?? config.auth.masterKey ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '');
  return {
    base,
    async call(method, path, body) {
      let res: Response;
      try {
        res = await fetch(base + path, {
          method,
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        const code = ((err as Error).cause as { code?: string } | undefined)?.code;
        if (code === 'ECONNREFUSED') throw new ServerNotRunning(`no Quarry server answers at ${base}`);
        throw new Error(`cannot reach Quarry at ${base} (${code ?? (err as Error).message}); check --url or QUARRY_URL`);
      }
      const text = await res.text();
      let parsed: any = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {}
      if (!res.ok) throw new Error(parsed?.message ?? `${base} answered ${res.status}: ${text.slice(0, 200)}`);
      return parsed;
    },
  };
}

/** Every item of a paged admin listing (`field` of each page), following next_cursor to the last page. */
export async function listAll<T>(client: AdminClient, path: string, field: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page = await client.call('GET', cursor ? `${path}?cursor=${encodeURIComponent(cursor)}` : path);
    items.push(...page[field]);
    cursor = page.next_cursor ?? null;
  } while (cursor);
  return items;
}

/**
 * Runs `remote` through the admin API of the running server or, when none is running, `local` on the
 * storage opened here; says on stderr which one it took.
 */
export async function viaApiOrStorage<T>(client: AdminClient, config: Config, remote: () => Promise<T>, local: (storage: Storage) => Promise<T>): Promise<T> {
  try {
    const out = await remote();
    console.error(`(through the admin API at ${client.base})`);
    return out;
  } catch (err) {
    if (!(err instanceof ServerNotRunning)) throw err;
    const where = config.storage.backend === 'postgres' ? 'the PostgreSQL database' : `the data folder ${config.storage.dataDir}`;
    console.error(`(${err.message}; working straight on ${where})`);
  }
  // The tools write the data folder as the service does: privately (docs/security.md).
  process.umask(PRIVATE_UMASK);
  const storage = await createStorage(config.storage);
  try {
    return await local(storage);
  } finally {
    await storage.close();
  }
}
