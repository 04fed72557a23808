import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import Database from 'better-sqlite3';
import pg from 'pg';
import { inject } from 'vitest';
import type { Logger } from 'pino';
import { DB_FILES } from '../../shared/storage/sqlite/open-database.js';
import { freshSchema } from './postgres.js';
import { startQdrantStandIn } from './qdrant-stand-in.js';
import { buildApp, closeApp, flushApp } from '../../api/app.js';
import { createHttpServer } from '../../api/http-server.js';
import { loadConfig, type Config } from '../../shared/config/config.js';
import { closeQueues, createPipelineQueues, type PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import { createEmbedder } from '../../shared/llm/create-embedder.js';
import type { Embedder } from '../../shared/llm/ports/embedder.js';
import { createLogger } from '../../shared/logging/create-logger.js';
import { connectRedis } from '../../shared/redis/connect-redis.js';
import { createStorage, type Storage } from '../../shared/storage/create-storage.js';
import { ContentEngine } from '../../shared/search/engine/content-engine.js';
import { startWorkers, type RunningWorkers } from '../../workers/registry.js';
import type { ChatModel } from '../../shared/llm/ports/chat-model.js';

export const MASTER_KEY = 'test-master-key-0123456789';

export interface TestService {
  url: string;
  config: Config;
  storage: Storage;
  queues: PipelineQueues;
  redis: Redis;
  prefix: string;
  dataDir: string;
  embedder: Embedder;
  /** Authenticated JSON request against the running app. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  /** Runs the background warm-up of an index (ContentEngine.onGrown) now; rejects when it fails. */
  warmUp(indexUid: string): Promise<void>;
  /** Writes buffered search events now, instead of within the next 200 ms. */
  flushEvents(): Promise<void>;
  /** Row count of every table the storage keeps, whichever backend: what "left no trace" compares. */
  tableCounts(): Promise<Record<string, number>>;
  /** Document uids a content search over these text fields finds (the keyword index search reads). */
  keywordUids(indexUid: string, query: string, fields: string[], limit?: number): Promise<string[]>;
  /** The nearest sections in the vector index search reads (of `model`'s vectors), best first. */
  vectorHits(indexUid: string, vector: Float32Array, limit: number, model?: string): Promise<{ uid: string; title: string }[]>;
  close(): Promise<void>;
}

/** A fresh data folder and Redis key prefix per test file, so runs never see each other's data. */
export function testEnv(extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'quarry-test-'));
  const prefix = `qtest-${randomUUID().slice(0, 8)}`;
  return {
    dataDir,
    prefix,
    env: {
      QUARRY_DATA_DIR: dataDir, QUARRY_REDIS_PREFIX: prefix, REDIS_URL: inject('redisUrl'),
      QUARRY_MASTER_KEY: MASTER_KEY, QUARRY_LOG_LEVEL: 'silent', PORT: '0', ...extra,
    } as Record<string, string>,
  };
}

export async function deleteKeys(redis: Redis, prefix: string) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

/**
 * The storage a test service runs on: SQLite in its data folder, or (QUARRY_TEST_STORAGE=postgres, to run
 * any suite against it) a schema of its own in the run's PostgreSQL database, or (QUARRY_TEST_STORAGE=qdrant)
 * that with vectors and the keyword leg in a Qdrant stand-in of its own.
 */
async function storageEnv(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const mode = process.env.QUARRY_TEST_STORAGE;
  if (mode !== 'postgres' && mode !== 'qdrant') return { env: {}, drop: async () => {} };
  const url = inject('databaseUrl');
  const { schema, drop } = await freshSchema(url);
  const env = { QUARRY_STORAGE: 'postgres', DATABASE_URL: url, QUARRY_DATABASE_SCHEMA: schema };
  if (mode === 'postgres') return { env, drop };
  // Vectors and the keyword leg in (a stand-in for) Qdrant: every request the service sends is checked
  // against Qdrant's API description, and a refused one fails the suite when the service stops.
  const qdrant = await startQdrantStandIn();
  return {
    env: { ...env, QDRANT_URL: qdrant.url, QUARRY_KEYWORD_INDEX: 'qdrant' },
    async drop() {
      await qdrant.close();
      await drop();
      if (qdrant.violations.length) throw new Error(`requests Qdrant's API description refuses: ${JSON.stringify(qdrant.violations.slice(0, 3))}`);
    },
  };
}

export async function startTestService(options: {
  workers?: boolean; env?: Record<string, string>; embedder?: Embedder; chatModel?: ChatModel | null;
  /** The app's logger (default: silent), e.g. one writing to a stream the test reads. */
  log?: Logger;
} = {}): Promise<TestService> {
  const backend = await storageEnv();
  const { dataDir, prefix, env } = testEnv({ ...backend.env, ...options.env });
  const config = loadConfig(env);
  const log = options.log ?? createLogger('silent', 'test');
  const storage = await createStorage(config.storage, { commitThread: true });
  const redis = connectRedis(config.redis.url, 'quarry-test');
  const queues = createPipelineQueues({ connection: redis, prefix, attempts: config.pipeline.attempts });
  const embedder = options.embedder ?? (await createEmbedder(config.embeddings));
  const app = await buildApp({ config, storage, redis, queues, log, embedder });
  // The server the API process runs (request timeouts, error bodies for broken requests).
  const server = createHttpServer(app, config).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let workers: RunningWorkers | null = null;
  const subscriber = redis.duplicate();
  if (options.workers !== false) {
    // Crawls run only where a test starts their worker (test/helpers/crawl-worker.ts).
    const running = [...config.pipeline.queues.filter((q) => q !== 'crawl'), 'generate' as const];
    workers = await startWorkers(running, {
      log,
      pipeline: { storage, embedder, queues, log, batchSize: config.pipeline.batchSize },
      generation: { connection: redis, subscriber, prefix, concurrency: config.generation.concurrency, model: options.chatModel ?? null, log },
    }, { connection: redis, prefix, concurrency: 2, lockMs: config.pipeline.lockMs });
  }

  const service: TestService = {
    url, config, storage, queues, redis, prefix, dataDir, embedder,
    call: (method, path, body, headers) => callJson(url, method, path, body, headers),
    async warmUp(indexUid) {
      const state = await (app.locals.engine as ContentEngine).state(indexUid);
      if (!state) throw new Error(`no index '${indexUid}' to warm up`);
      await (app.locals.warmUp as (s: typeof state) => Promise<void>)(state);
    },
    flushEvents: () => flushApp(app),
    tableCounts: () => tableCounts(config),
    async keywordUids(indexUid, query, fields, limit = 10) {
      const r = await service.call('POST', '/v1/content/search', { index_uid: indexUid, query, boosting: fields.join(' '), filter: '', fields: [], limit });
      if (r.status !== 200) throw new Error(`content search answered ${r.status}: ${JSON.stringify(r.body)}`);
      return (r.body.results as { uid: string }[]).map((h) => h.uid);
    },
    async vectorHits(indexUid, vector, limit, model = embedder.id) {
      const engine = new ContentEngine(storage, model);
      const state = await engine.state(indexUid);
      if (!state) return [];
      const hits = await engine.vectorTop(state, vector, limit);
      const sections = await engine.sections(state, hits.map((h) => h.unit));
      return hits.map((h, i) => ({ uid: state.uidOf(h.unit), title: sections[i]?.title ?? '' }));
    },
    async close() {
      await workers?.close();
      // Closing waits for every connection; a streamed answer or a kept-alive socket would hold it open.
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closed;
      await closeApp(app);
      subscriber.disconnect();
      await closeQueues(queues);
      await deleteKeys(redis, prefix);
      redis.disconnect();
      await storage.close();
      await backend.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}

async function tableCounts(config: Config): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  if (config.storage.backend === 'postgres') {
    const client = new pg.Client({ connectionString: config.storage.databaseUrl! });
    await client.connect();
    try {
      const tables = await client.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`, [config.storage.schema]);
      for (const { name } of tables.rows) {
        const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(config.storage.schema)}.${pg.escapeIdentifier(name)}`);
        counts[name] = Number(r.rows[0].n);
      }
    } finally {
      await client.end();
    }
    return counts;
  }
  for (const file of Object.values(DB_FILES)) {
    const db = new Database(join(config.storage.dataDir, file), { readonly: true });
    try {
      for (const { name } of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]) {
        counts[`${file}:${name}`] = (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n;
      }
    } finally {
      db.close();
    }
  }
  return counts;
}

/** A JSON request with the master key (a header given as '' or another value replaces it); the body parsed when it is JSON. */
export async function callJson(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const h = new Headers({ 'content-type': 'application/json', 'x-api-key': MASTER_KEY });
  for (const [k, v] of Object.entries(headers)) h.set(k, v);
  const res = await fetch(base + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Polls until fn returns a truthy value or the time is up; returns the last value. */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 30_000, stepMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await fn();
  while (!last && Date.now() < end) {
    await new Promise((r) => setTimeout(r, stepMs));
    last = await fn();
  }
  return last;
}
