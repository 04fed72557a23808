import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureServer } from '../build-server.mjs';
// @ts-expect-error plain-JS launcher shared with `npm start`
import { REDIS_HELP, findRedisServer, freePort as freePortJs, startRedis as startRedisJs } from '../redis-launcher.mjs';
import { mountSmallDisk, type SmallDisk } from './disk.js';
import { startModelStub, STUB_DIMENSIONS } from './model-stub.js';
import { startProxyProcess, type ProxyControl } from './pg-proxy-process.js';
import { readyOnHttp, readyOnLine, spawnNode, Supervised, type ProcessKind } from './supervisor.js';

const freePort = freePortJs as () => Promise<number>;
const startRedis = startRedisJs as (o: { binary: string; dir: string; port: number }) => Promise<ChildProcess>;

/**
 * Settings of the run, beside the defaults: short job locks and reconciler periods so a killed
 * worker's job or a job Redis lost comes back within seconds (the defaults take about a minute),
 * rate limits out of the way of the steady load, and generation timing out at 10 s.
 */
export const GENERATION_TIMEOUT_S = 10;
/** PostgreSQL mode: a statement, or the wait for a connection, that takes longer fails (QUARRY_DATABASE_TIMEOUT_SECONDS). */
export const DATABASE_TIMEOUT_S = 3;
const RUN_ENV = {
  QUARRY_JOB_LOCK_SECONDS: '5', QUARRY_RECONCILE_SECONDS: '2', QUARRY_RECONCILE_GRACE_SECONDS: '5',
  QUARRY_RATE_LIMIT_CLIENT: '1000000/10', QUARRY_RATE_LIMIT_UID: '1000000/10',
  QUARRY_GENERATION_TIMEOUT_SECONDS: String(GENERATION_TIMEOUT_S), QUARRY_LLM_TIMEOUT_SECONDS: '8', QUARRY_LLM_RETRIES: '1',
  QUARRY_LOG_LEVEL: 'warn', QUARRY_WORKER_CONCURRENCY: '4', QUARRY_REDIS_PREFIX: 'chaos',
  // PostgreSQL mode: a statement or connection that takes longer fails (503/504) instead of holding its request.
  QUARRY_DATABASE_TIMEOUT_SECONDS: String(DATABASE_TIMEOUT_S),
};

export type ModelStub = Awaited<ReturnType<typeof startModelStub>>;

export interface Cluster {
  baseUrl: string;
  masterKey: string;
  /** The data folder of the API and the workers (SQLite mode: the one holding the database). */
  dataDir: string;
  /** The small file system the data folder is on, when the machine let us mount one. */
  disk: SmallDisk | null;
  /** Why no small file system could be mounted (the disk-full scenario says so). */
  diskUnavailable: string | null;
  stub: ModelStub;
  /** PostgreSQL mode: the run's database, reached by the service only through a proxy the runner can break. */
  pg: RunDatabase | null;
  processes: Supervised[];
  byKind(kind: ProcessKind): Supervised;
  /** Redis comes back empty at its next restart. */
  emptyRedisOnRestart(): void;
  close(): Promise<void>;
}

/**
 * The service as an operator runs it on one machine, each part its own process: a private
 * redis-server, the API, one worker per pipeline queue, the generation worker, and a local model
 * server for embeddings and chat. Every part is supervised (restarted a second after any exit).
 */
export async function startCluster(root: string, o: { storage: 'sqlite' | 'postgres'; short: boolean; say: (m: string) => void }): Promise<Cluster> {
  // The processes run compiled, as npm start runs them (a restart's time is part of what is measured).
  await ensureServer();
  const undo: (() => Promise<void> | void)[] = [];
  let closing: Promise<void> | null = null;
  const close = () => (closing ??= (async () => {
    for (const fn of undo.reverse()) await Promise.resolve().then(fn).catch((e: Error) => o.say(`cleanup: ${e.message}`));
  })());
  try {
    const binary = findRedisServer() as string | null;
    if (!binary) throw new Error(REDIS_HELP as string);
    const tmp = mkdtempSync(join(tmpdir(), 'quarry-chaos-'));
    undo.push(() => rmSync(tmp, { recursive: true, force: true }));
    const mounted = mountSmallDisk(join(tmp, 'disk'), o.short ? 256 : 2048);
    const disk = 'path' in mounted ? mounted : null;
    if (disk) undo.push(() => disk.unmount());
    const dataDir = disk ? join(disk.path, 'data') : join(tmp, 'data');
    mkdirSync(dataDir, { recursive: true });

    const stub = await startModelStub();
    undo.push(() => stub.close());
    const masterKey = `qc_${randomBytes(24).toString('base64url')}`;
    const apiPort = await freePort();
    const redisPort = await freePort();
    const pgRun = o.storage === 'postgres' ? await freshDatabase(root, undo) : null;
    const storageEnv = pgRun ? { QUARRY_STORAGE: 'postgres', DATABASE_URL: pgRun.serviceUrl, QUARRY_DATABASE_POOL: '4' } : {};
    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUARRY_')));
    Object.assign(env, RUN_ENV, storageEnv, {
      QUARRY_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(apiPort), REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      QUARRY_MASTER_KEY: masterKey, QUARRY_SECRET: `qs_${randomBytes(24).toString('base64url')}`,
      QUARRY_EMBEDDER: 'openai', QUARRY_EMBEDDINGS_URL: stub.url, QUARRY_EMBEDDINGS_MODEL: 'chaos-embed',
      QUARRY_EMBEDDINGS_DIMENSIONS: String(STUB_DIMENSIONS),
      QUARRY_LLM_PROVIDER: 'openai', QUARRY_LLM_URL: stub.url, QUARRY_LLM_MODEL: 'chaos-chat',
      // The default 256 MB kept free would refuse every push on the small tmpfs from the start.
      QUARRY_MIN_FREE_DISK_MB: o.short ? '32' : '128',
    });
    // Scale-out mode: nothing shared on disk, each process a folder of its own.
    const ownDir = () => (o.storage === 'postgres' ? mkdtempSync(join(tmp, 'proc-')) : dataDir);

    // Redis keeps its files in the data folder, as `npm start` does: a full disk reaches it too.
    let redisGeneration = 0;
    let emptyNext = false;
    const redis = new Supervised('redis', {
      kind: 'redis',
      spawn: () => startRedis({ binary, dir: join(dataDir, `redis-${redisGeneration}`), port: redisPort }),
      ready: async (child) => child.exitCode === null,
    });
    redis.beforeRestart = () => {
      if (emptyNext) redisGeneration++;
      emptyNext = false;
    };
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const api = new Supervised('api', {
      kind: 'api',
      spawn: () => spawnNode(root, 'api/main.ts', [], { ...env, QUARRY_DATA_DIR: ownDir() }),
      ready: (child) => readyOnHttp(child, `${baseUrl}/healthz`),
    });
    const worker = (queue: 'index' | 'embed') => new Supervised(`worker-${queue}`, {
      kind: queue,
      spawn: () => spawnNode(root, 'workers/main.ts', ['--queues', queue], { ...env, QUARRY_DATA_DIR: ownDir(), QUARRY_LOG_LEVEL: 'info' }),
      ready: (child, lines) => readyOnLine(child, lines, 'workers started'),
    });
    const generator = new Supervised('generator', {
      kind: 'generator',
      spawn: () => spawnNode(root, 'workers/generator-main.ts', [], { ...env, QUARRY_DATA_DIR: ownDir(), QUARRY_LOG_LEVEL: 'info' }),
      ready: (child, lines) => readyOnLine(child, lines, 'generation worker started'),
    });
    const processes = [redis, api, worker('index'), worker('embed'), generator];
    undo.push(async () => {
      await Promise.all(processes.slice(1).map((p) => p.stop()));
      await redis.stop(5000);
    });
    await redis.start();
    // The API first: it creates (migrates) the database the workers then open.
    await api.start();
    if (!api.up) throw new Error(`the API did not start:\n${api.lastLines().join('\n')}`);
    await Promise.all(processes.slice(2).map((p) => p.start()));
    const down = processes.filter((p) => !p.up);
    if (down.length) throw new Error(`did not start: ${down.map((p) => `${p.name}\n${p.lastLines().join('\n')}`).join('\n')}`);
    o.say(`cluster up: ${processes.map((p) => `${p.name} ${p.child?.pid}`).join(', ')}; data folder ${dataDir}${disk ? ` (tmpfs of ${disk.sizeMb} MB)` : ''}`);
    return {
      baseUrl, masterKey, dataDir, disk, diskUnavailable: 'reason' in mounted ? mounted.reason : null, stub, pg: pgRun, processes,
      byKind: (kind) => processes.find((p) => p.kind === kind)!,
      emptyRedisOnRestart: () => (emptyNext = true),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export interface RunDatabase {
  /** The run's own database. */
  database: string;
  /** What the service connects to: the proxy, as the run's own role (not a superuser, so connection limits hold). */
  serviceUrl: string;
  proxy: ProxyControl;
  /** A statement as the server's superuser, straight to the server (not through the proxy). */
  admin(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
}

/**
 * A fresh database on the machine's PostgreSQL (as the tests find it), owned by a role of the run's
 * own, both dropped at the end. The service reaches it through a proxy (`pg-proxy.ts`), so faults
 * never touch the server itself, which other users share.
 */
async function freshDatabase(root: string, undo: (() => Promise<void> | void)[]): Promise<RunDatabase> {
  const adminUrl = process.env.QUARRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `quarry_chaos_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string, params?: unknown[]) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      return await c.query(sql, params);
    } finally {
      await c.end();
    }
  };
  const id = pg.escapeIdentifier(name);
  await admin(`CREATE ROLE ${id} LOGIN`);
  undo.push(async () => void (await admin(`DROP ROLE IF EXISTS ${id}`)));
  await admin(`CREATE DATABASE ${id} OWNER ${id}`);
  undo.push(async () => void (await admin(`DROP DATABASE IF EXISTS ${id} WITH (FORCE)`)));
  const server = new URL(adminUrl);
  const proxy = await startProxyProcess(root, { host: server.hostname, port: Number(server.port || 5432) });
  undo.push(() => proxy.close());
  const url = new URL(adminUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  url.username = name;
  url.password = '';
  url.pathname = `/${name}`;
  return { database: name, serviceUrl: url.toString(), proxy, admin };
}
