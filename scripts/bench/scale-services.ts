import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuTimeMs, type Cleanup } from './processes.js';

/**
 * The shared services of `npm run bench:scale`: a PostgreSQL database of its own for the run (one
 * schema per deployment in it), the machine's Redis under a prefix of its own per deployment, and
 * the CPU those services spend for us.
 */

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates `name` on the server of `adminUrl` and drops it (closing its connections) at cleanup; returns its URL. */
export async function createDatabase(adminUrl: string, name: string, cleanup: Cleanup): Promise<string> {
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  cleanup.add(`drop database ${name}`, () => withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)));
  return withDatabase(adminUrl, name);
}

/** Sections of an index and how many carry a vector, read straight from the store. */
export async function sectionCount(store: { url: string; schema: string } | { dataDir: string }, indexUid: string): Promise<{ sections: number; withVector: number }> {
  const sql = 'SELECT count(*) AS n, count(s.vector) AS v FROM sections s JOIN indexes i ON i.id = s.index_id WHERE i.uid = $1';
  if ('dataDir' in store) {
    // Sections live in search.db, index ids in quarry.db.
    const main = new Database(join(store.dataDir, 'quarry.db'), { readonly: true });
    const search = new Database(join(store.dataDir, 'search.db'), { readonly: true });
    try {
      const id = main.prepare('SELECT id FROM indexes WHERE uid = ?').pluck().get(indexUid) as number;
      const r = search.prepare('SELECT count(*) AS n, count(vector) AS v FROM sections WHERE index_id = ?').get(id) as { n: number; v: number };
      return { sections: r.n, withVector: r.v };
    } finally {
      main.close();
      search.close();
    }
  }
  return withClient(store.url, async (c) => {
    await c.query(`SET search_path = ${pg.escapeIdentifier(store.schema)}`);
    const r = await c.query<{ n: string; v: string }>(sql, [indexUid]);
    return { sections: Number(r.rows[0].n), withVector: Number(r.rows[0].v) };
  });
}

/** Deletes every Redis key under `prefix:` (the BullMQ queues, rate-limit counters, metrics). */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** The Redis server's process id when it runs on this machine (INFO server), else null. */
export async function localRedisPid(url: string): Promise<number | null> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  try {
    await redis.connect();
    const m = /process_id:(\d+)/.exec(await redis.info('server'));
    const pid = m ? Number(m[1]) : null;
    return pid !== null && existsSync(`/proc/${pid}/stat`) ? pid : null;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/**
 * CPU of the PostgreSQL backends serving one database: backends come and go with the pools, so
 * /proc is scanned every `everyMs` for processes titled `postgres: <user> <database> ...` and each
 * one's CPU is counted from when it was first seen (from 0 for one born during the window).
 * A backend living less than one interval is missed.
 */
export class BackendCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private readonly ignored = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private readonly t0 = performance.now();

  constructor(
    private readonly database: string,
    everyMs = 250,
  ) {
    this.scan(true);
    this.timer = setInterval(() => this.scan(false), everyMs);
  }

  private scan(initial: boolean) {
    let pids: string[];
    try {
      pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
    } catch {
      return;
    }
    for (const p of pids) {
      const pid = Number(p);
      if (this.ignored.has(pid)) continue;
      if (!this.last.has(pid)) {
        let cmd: string;
        try {
          cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          continue;
        }
        if (!cmd.startsWith('postgres: ') || !cmd.split(' ').includes(this.database)) {
          this.ignored.add(pid);
          continue;
        }
        const cpu = cpuTimeMs(pid);
        if (!Number.isFinite(cpu)) continue;
        this.first.set(pid, initial ? cpu : 0);
        this.last.set(pid, cpu);
        continue;
      }
      const cpu = cpuTimeMs(pid);
      if (Number.isFinite(cpu)) this.last.set(pid, cpu);
    }
  }

  /** Stops sampling; CPU used since the start, in % of one core. */
  stop(): number {
    this.scan(false);
    clearInterval(this.timer);
    let ms = 0;
    for (const [pid, f] of this.first) ms += this.last.get(pid)! - f;
    return Math.round((ms / (performance.now() - this.t0)) * 100);
  }
}
