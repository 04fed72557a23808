import { setPriority } from 'node:os';
import { ConfigError, loadConfig } from '../shared/config/config.js';
import { createPipelineQueues, closeQueues } from '../shared/jobs/pipeline-queues.js';
import { createBatchingEmbedder, createEmbedder } from '../shared/llm/create-embedder.js';
import { createLogger } from '../shared/logging/create-logger.js';
import { envWithFlags, onShutdown, runMain } from '../shared/process/process-lifecycle.js';
import { connectRedis } from '../shared/redis/connect-redis.js';
import { createStorage } from '../shared/storage/create-storage.js';
import { PRIVATE_UMASK } from '../shared/storage/private-folder.mjs';
import { Reconciler } from './reconciler.js';
import { startWorkers } from './registry.js';

/** A worker process: `npm run start:worker -- --queues index,embed --concurrency 8`. */
async function main() {
  // What this process writes to the data folder (SQLite's files) is its user's alone (docs/security.md).
  process.umask(PRIVATE_UMASK);
  const config = loadConfig(envWithFlags(process.argv.slice(2), {
    queues: 'QUARRY_WORKER_QUEUES',
    concurrency: 'QUARRY_WORKER_CONCURRENCY',
  }));
  const log = createLogger(config.log.level, 'worker');
  // Indexing can wait a little; accepting writes should not: under contention the API gets the CPU first.
  setPriority(config.pipeline.nice);
  const storage = await createStorage(config.storage, { log });
  const redis = connectRedis(config.redis.url, 'quarry-worker', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const queues = createPipelineQueues({ connection: redis, prefix: config.redis.prefix, attempts: config.pipeline.attempts });
  // Concurrent jobs of this process share provider calls: fewer, fuller requests to an HTTP provider.
  const embedder = createBatchingEmbedder(await createEmbedder(config.embeddings, { bulk: true }), { maxBatch: 256 });
  const ctx = { storage, embedder, queues, log, batchSize: config.pipeline.batchSize };

  const reconciler = new Reconciler(storage, queues, redis, log, {
    prefix: config.redis.prefix,
    batchSize: config.pipeline.batchSize,
    graceMs: config.pipeline.reconcileGraceMs,
    straysMs: config.pipeline.straysMs,
    eventRetentionMs: config.storage.eventRetentionMs,
    conversationRetentionMs: config.storage.conversationRetentionMs,
  });
  await reconciler.reembedChangedIndexes(embedder.id);
  // At start nothing is in flight from this process: anything pending without a live job is re-enqueued.
  await reconciler.runOnce(0);
  const timer = setInterval(() => {
    reconciler.runOnce().catch((err) => log.warn({ err }, 'reconcile failed'));
  }, config.pipeline.reconcileMs);

  const workers = await startWorkers(config.pipeline.queues, {
    log,
    pipeline: ctx,
    crawl: {
      storage, queues, log,
      batchSize: config.pipeline.batchSize,
      allowPrivate: config.crawl.allowPrivate,
      contactUrl: config.crawl.contactUrl,
      scheduleMs: 60_000,
      runner: { hostLimits: { minDelayMs: config.crawl.hostDelayMs } },
    },
  }, {
    connection: redis,
    prefix: config.redis.prefix,
    concurrency: config.pipeline.concurrency,
    lockMs: config.pipeline.lockMs,
  });
  log.info({ queues: config.pipeline.queues, concurrency: config.pipeline.concurrency, embedder: embedder.id }, 'workers started');

  onShutdown(async () => {
    clearInterval(timer);
    await workers.close(); // waits for active jobs to finish; a crawl pauses
    await closeQueues(queues);
    await embedder.close?.();
    redis.disconnect();
    await storage.close();
  }, log);
}

runMain(main, (e) => e instanceof ConfigError);
