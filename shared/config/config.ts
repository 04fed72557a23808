import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { projectRoot } from './project-root.js';
import { weakKeyReason } from '../auth/key-strength.js';
import { trustProxySchema } from './trust-proxy.js';

/**
 * The only reader of process.env. Every variable is listed here once, parsed once at start,
 * and every bad variable is reported together so an operator fixes them in one go.
 */
const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');
const int = (min: number, max: number) =>
  z.coerce
    .number({ error: `must be a whole number from ${min} to ${max}` })
    .int(`must be a whole number from ${min} to ${max}`)
    .min(min, `must be a whole number from ${min} to ${max}`)
    .max(max, `must be a whole number from ${min} to ${max}`);

/** `points/seconds`, e.g. `120/10`: at most 120 requests in any 10-second window. */
const budget = z
  .string()
  .regex(/^\d{1,9}\/\d{1,6}$/, 'use points/seconds, e.g. 120/10')
  .transform((v) => {
    const [points, seconds] = v.split('/').map(Number);
    return { points, seconds };
  })
  .refine((b) => b.points >= 1 && b.seconds >= 1, 'points and seconds must both be at least 1');

/**
 * API processes on one host: one per core, up to 4. Each holds every index in memory (docs/scale-out.md),
 * so a big machine with big indexes sets the number it can afford rather than one per core.
 */
const DEFAULT_API_PROCESSES = Math.min(4, availableParallelism());

const QUEUE_NAMES = ['index', 'embed', 'crawl'] as const;
export type PipelineQueue = (typeof QUEUE_NAMES)[number];

const envSchema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  QUARRY_API_PROCESSES: int(1, 256).default(DEFAULT_API_PROCESSES),
  // Set by the API's primary for each process it starts (api-cluster.ts), not by operators.
  QUARRY_API_SLOT: int(0, 255).optional(),
  QUARRY_DATA_DIR: z.string().min(1).default('./data'),
  REDIS_URL: z.string().url().optional(),
  QUARRY_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'use 1-64 letters, digits, or _ . : -')
    .default('quarry'),
  // Guessing it is limited per client (api/middleware/key-failure-limit.ts); a weak one falls to a botnet anyway.
  QUARRY_MASTER_KEY: z
    .string()
    .superRefine((key, ctx) => {
      const reason = weakKeyReason(key);
      if (reason) ctx.addIssue({ code: 'custom', message: reason });
    })
    .optional(),
  QUARRY_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  QUARRY_SESSION_TTL_HOURS: int(1, 8760).default(12),
  QUARRY_WEB_DIR: z.string().min(1).optional(),
  QUARRY_WIDGET_DIR: z.string().min(1).optional(),
  QUARRY_MAX_BODY_BYTES: int(1024, 1024 * 1024 * 1024).default(20 * 1024 * 1024),
  QUARRY_MAX_BATCH_DOCUMENTS: int(1, 10000).default(1000),
  QUARRY_MAX_INDEXES: int(1, 1_000_000).default(1000),
  QUARRY_SEARCH_TIMEOUT_MS: int(10, 600_000).default(5000),
  QUARRY_ENGINE_MEMORY_MB: int(1, 10_000_000).optional(),
  QUARRY_REQUEST_TIMEOUT_SECONDS: int(1, 3600).default(120),
  QUARRY_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  QUARRY_LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  QUARRY_WORKER_QUEUES: z
    .string()
    .default(QUEUE_NAMES.join(','))
    .transform((s) => s.split(',').map((q) => q.trim()).filter(Boolean))
    .pipe(z.array(z.enum(QUEUE_NAMES, { error: `name queues from ${QUEUE_NAMES.join(', ')}` })).min(1, 'name at least one queue')),
  QUARRY_WORKER_CONCURRENCY: int(1, 256).default(4),
  QUARRY_PIPELINE_BATCH: int(1, 1000).default(64),
  QUARRY_JOB_ATTEMPTS: int(1, 100).default(8),
  QUARRY_JOB_LOCK_SECONDS: int(1, 3600).default(30),
  QUARRY_WORKER_NICE: int(0, 19).default(19),
  QUARRY_SQLITE_SYNCHRONOUS: z.enum(['full', 'normal']).default('full'),
  QUARRY_COMMIT_THREAD_HEAP_MB: int(16, 65536).optional(),
  QUARRY_MIN_FREE_DISK_MB: int(0, 100_000_000).default(256),
  QUARRY_STORAGE: z.enum(['sqlite', 'postgres']).default('sqlite'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'use a postgres:// connection string').optional(),
  QUARRY_DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'use a lower-case SQL identifier').default('public'),
  QUARRY_DATABASE_POOL: int(1, 1000).default(10),
  QUARRY_DATABASE_TIMEOUT_SECONDS: int(1, 3600).default(30),
  QDRANT_URL: z.string().url().optional(),
  QDRANT_API_KEY: z.string().optional(),
  QUARRY_QDRANT_COLLECTION: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'use letters, digits, _ or -').default('quarry_sections'),
  QUARRY_KEYWORD_INDEX: z.enum(['embedded', 'qdrant']).default('embedded'),
  QUARRY_QDRANT_KEYWORD_PREFIX: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'use letters, digits, _ or -').default('quarry_kw_'),
  QUARRY_EVENT_RETENTION_DAYS: int(1, 36500).default(400),
  QUARRY_CONVERSATION_RETENTION_DAYS: int(1, 36500).default(90),
  QUARRY_RECONCILE_SECONDS: int(1, 86400).default(15),
  QUARRY_RECONCILE_GRACE_SECONDS: int(0, 86400).default(60),
  QUARRY_RECONCILE_STRAYS_SECONDS: int(1, 86400).default(600),
  QUARRY_EMBEDDER: z.enum(['glove', 'openai', 'onnx']).default('glove'),
  QUARRY_EMBEDDINGS_URL: z.string().url().optional(),
  QUARRY_EMBEDDINGS_API_KEY: z.string().optional(),
  QUARRY_EMBEDDINGS_MODEL: z.string().optional(),
  QUARRY_EMBEDDINGS_DIMENSIONS: int(1, 65536).optional(),
  QUARRY_EMBEDDINGS_MODEL_PATH: z.string().optional(),
  QUARRY_DASHBOARD: bool.default(true),
  QUARRY_ENGINE_SNAPSHOTS: bool.default(true),
  QUARRY_CRAWL_ALLOW_PRIVATE: bool.default(false),
  QUARRY_CRAWL_CONTACT_URL: z.string().url().default('http://localhost:8080'),
  QUARRY_CRAWL_HOST_DELAY_MS: int(0, 60_000).default(250),
  QUARRY_RATE_LIMIT_CLIENT: budget.prefault('120/10'),
  QUARRY_RATE_LIMIT_UID: budget.prefault('2000/10'),
  QUARRY_LEARNING_MIN_ADDRESSES: int(1, 1000).default(3),
  QUARRY_TRUST_PROXY: trustProxySchema.default(false),
  QUARRY_GENERATION_CONCURRENCY: int(1, 1024).default(4),
  QUARRY_GENERATION_TIMEOUT_SECONDS: int(1, 3600).default(30),
  QUARRY_LLM_PROVIDER: z.enum(['extractive', 'openai']).default('extractive'),
  QUARRY_LLM_URL: z.string().url().optional(),
  QUARRY_LLM_API_KEY: z.string().optional(),
  QUARRY_LLM_MODEL: z.string().optional(),
  QUARRY_LLM_TIMEOUT_SECONDS: int(1, 3600).default(60),
  QUARRY_LLM_RETRIES: int(0, 10).default(2),
});

function buildConfig(e: z.output<typeof envSchema>) {
  const dataDir = resolve(e.QUARRY_DATA_DIR);
  return {
    http: {
      port: e.PORT,
      host: e.HOST,
      maxBodyBytes: e.QUARRY_MAX_BODY_BYTES,
      maxBatchDocuments: e.QUARRY_MAX_BATCH_DOCUMENTS,
      /** A request's headers and body must have arrived within this, or it is answered 408 and its connection closed. */
      requestTimeoutMs: e.QUARRY_REQUEST_TIMEOUT_SECONDS * 1000,
      /** Bearer token that may read /metrics besides admin keys; unset: admin keys only. */
      metricsToken: e.QUARRY_METRICS_TOKEN,
      dashboard: e.QUARRY_DASHBOARD,
      /** Proxies (addresses, ranges, loopback/linklocal/uniquelocal) whose X-Forwarded-For names the client; false: none. */
      trustProxy: e.QUARRY_TRUST_PROXY,
      /** The built web app served at /app/. */
      webDir: e.QUARRY_WEB_DIR ? resolve(e.QUARRY_WEB_DIR) : resolve(projectRoot(), 'web/dist'),
      /** The built widget served at /widget.js (npm run build:widget). */
      widgetDir: e.QUARRY_WIDGET_DIR ? resolve(e.QUARRY_WIDGET_DIR) : resolve(projectRoot(), 'widget/dist'),
      /** API processes sharing the port (node:cluster); 1 runs the API in the started process itself. */
      processes: e.QUARRY_API_PROCESSES,
      /** This process's slot among QUARRY_API_PROCESSES (null: the API runs in one process); slot 0 writes the engine's snapshots. */
      slot: e.QUARRY_API_SLOT ?? null,
    },
    /** Indexes the deployment may hold; creating one more is a 409 (keys with write create indexes). */
    limits: { maxIndexes: e.QUARRY_MAX_INDEXES },
    /** A content or widget search that takes longer is cut off with 504; it yields the event loop meanwhile. */
    search: {
      timeoutMs: e.QUARRY_SEARCH_TIMEOUT_MS,
      /** Memory the loaded indexes of an API process may take; past it the least used are dropped (null: no limit, all loaded at start). */
      engineMemoryBytes: e.QUARRY_ENGINE_MEMORY_MB === undefined ? null : e.QUARRY_ENGINE_MEMORY_MB * 2 ** 20,
    },
    rateLimit: { client: e.QUARRY_RATE_LIMIT_CLIENT, uid: e.QUARRY_RATE_LIMIT_UID },
    /** Distinct client addresses (networks) behind a query before it is suggested, behind clicks before they lift a result. */
    learning: { minClients: e.QUARRY_LEARNING_MIN_ADDRESSES },
    generation: {
      concurrency: e.QUARRY_GENERATION_CONCURRENCY,
      timeoutMs: e.QUARRY_GENERATION_TIMEOUT_SECONDS * 1000,
      llm: {
        provider: e.QUARRY_LLM_PROVIDER,
        baseUrl: e.QUARRY_LLM_URL,
        apiKey: e.QUARRY_LLM_API_KEY,
        model: e.QUARRY_LLM_MODEL,
        timeoutMs: e.QUARRY_LLM_TIMEOUT_SECONDS * 1000,
        retries: e.QUARRY_LLM_RETRIES,
      },
    },
    redis: { url: e.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: e.QUARRY_REDIS_PREFIX },
    storage: {
      backend: e.QUARRY_STORAGE,
      dataDir,
      /** Search engines keep a snapshot of each index in `<dataDir>/snapshots` and start from it. */
      snapshots: e.QUARRY_ENGINE_SNAPSHOTS,
      synchronous: e.QUARRY_SQLITE_SYNCHRONOUS,
      /** Heap limit of the SQLite commit thread; unset: Node's default. Past it the thread dies and is restarted. */
      commitThreadHeapMb: e.QUARRY_COMMIT_THREAD_HEAP_MB ?? null,
      /** Below this much free space in the data folder's file system, writes are refused with 507 (SQLite). */
      minFreeDiskBytes: e.QUARRY_MIN_FREE_DISK_MB * 2 ** 20,
      databaseUrl: e.DATABASE_URL ?? null,
      schema: e.QUARRY_DATABASE_SCHEMA,
      poolSize: e.QUARRY_DATABASE_POOL,
      /** PostgreSQL: a statement, or the wait for a pooled connection, past this fails (504/503) instead of holding its request. */
      databaseTimeoutMs: e.QUARRY_DATABASE_TIMEOUT_SECONDS * 1000,
      qdrant: e.QDRANT_URL ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY, collection: e.QUARRY_QDRANT_COLLECTION } : null,
      /** The keyword leg in Qdrant too (sparse vectors, a collection per index named `<prefix><uid>-<created, base 36>`); null: each API process holds it (the embedded engine). */
      qdrantKeywords: e.QUARRY_KEYWORD_INDEX === 'qdrant' && e.QDRANT_URL
        ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY, collectionPrefix: e.QUARRY_QDRANT_KEYWORD_PREFIX }
        : null,
      eventRetentionMs: e.QUARRY_EVENT_RETENTION_DAYS * 86_400_000,
      /** Conversations without a turn for this long are dropped, with their turns. */
      conversationRetentionMs: e.QUARRY_CONVERSATION_RETENTION_DAYS * 86_400_000,
    },
    auth: { masterKey: e.QUARRY_MASTER_KEY ?? null, secret: e.QUARRY_SECRET ?? null, sessionTtlMs: e.QUARRY_SESSION_TTL_HOURS * 3_600_000 },
    log: { level: e.QUARRY_LOG_LEVEL },
    pipeline: {
      queues: e.QUARRY_WORKER_QUEUES as PipelineQueue[],
      concurrency: e.QUARRY_WORKER_CONCURRENCY,
      batchSize: e.QUARRY_PIPELINE_BATCH,
      attempts: e.QUARRY_JOB_ATTEMPTS,
      lockMs: e.QUARRY_JOB_LOCK_SECONDS * 1000,
      nice: e.QUARRY_WORKER_NICE,
      reconcileMs: e.QUARRY_RECONCILE_SECONDS * 1000,
      reconcileGraceMs: e.QUARRY_RECONCILE_GRACE_SECONDS * 1000,
      straysMs: e.QUARRY_RECONCILE_STRAYS_SECONDS * 1000,
    },
    crawl: {
      /** Let website sources reach private and loopback addresses (tests, intranets). */
      allowPrivate: e.QUARRY_CRAWL_ALLOW_PRIVATE,
      /** In the crawler's user agent, so site owners can see who crawls them. */
      contactUrl: e.QUARRY_CRAWL_CONTACT_URL,
      /** Between the starts of two requests to one host (a robots.txt Crawl-delay may ask for more). */
      hostDelayMs: e.QUARRY_CRAWL_HOST_DELAY_MS,
    },
    embeddings: embeddingsConfig(e),
  };
}

function embeddingsConfig(e: z.output<typeof envSchema>) {
  switch (e.QUARRY_EMBEDDER) {
    case 'openai':
      return {
        provider: 'openai' as const,
        baseUrl: e.QUARRY_EMBEDDINGS_URL!,
        apiKey: e.QUARRY_EMBEDDINGS_API_KEY,
        model: e.QUARRY_EMBEDDINGS_MODEL!,
        dimensions: e.QUARRY_EMBEDDINGS_DIMENSIONS,
      };
    case 'onnx':
      return {
        provider: 'onnx' as const,
        modelPath: e.QUARRY_EMBEDDINGS_MODEL_PATH!,
        dimensions: e.QUARRY_EMBEDDINGS_DIMENSIONS,
      };
    default:
      return { provider: 'glove' as const };
  }
}

export type Config = Readonly<ReturnType<typeof buildConfig>>;

export class ConfigError extends Error {}

/** Rules between variables, checked on the raw values so they are reported beside type errors. */
function crossChecks(e: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  const need = (name: string, why: string) => {
    if (!e[name]) problems.push(`  ${name}: is required ${why}`);
  };
  if (e.QUARRY_EMBEDDER === 'openai') {
    need('QUARRY_EMBEDDINGS_URL', 'when QUARRY_EMBEDDER=openai (e.g. http://127.0.0.1:11434/v1)');
    need('QUARRY_EMBEDDINGS_MODEL', 'when QUARRY_EMBEDDER=openai');
  }
  if (e.QUARRY_EMBEDDER === 'onnx') need('QUARRY_EMBEDDINGS_MODEL_PATH', 'when QUARRY_EMBEDDER=onnx');
  if (e.QUARRY_STORAGE === 'postgres') need('DATABASE_URL', 'when QUARRY_STORAGE=postgres (e.g. postgres://quarry@db:5432/quarry)');
  // Qdrant is written inside the PostgreSQL transaction that makes a version live (the row locks
  // order the writes); SQLite's synchronous transactions cannot wait on the network.
  if (e.QDRANT_URL && e.QUARRY_STORAGE !== 'postgres') problems.push('  QDRANT_URL: needs QUARRY_STORAGE=postgres (without Qdrant, vectors are held in memory)');
  if (e.QUARRY_KEYWORD_INDEX === 'qdrant' && !e.QDRANT_URL) problems.push('  QUARRY_KEYWORD_INDEX: qdrant needs QDRANT_URL (and QUARRY_STORAGE=postgres); the default, embedded, holds the keyword index in each API process');
  if (e.QUARRY_LLM_PROVIDER === 'openai') {
    need('QUARRY_LLM_URL', 'when QUARRY_LLM_PROVIDER=openai (e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1)');
    need('QUARRY_LLM_MODEL', 'when QUARRY_LLM_PROVIDER=openai');
  }
  return problems;
}

/** Parses the environment; throws a ConfigError listing every invalid variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`);
  lines.push(...crossChecks(cleaned));
  if (!parsed.success || lines.length) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  return Object.freeze(buildConfig(parsed.data));
}
