import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { buildApp, closeApp, warmApp } from './app.js';
import { createHttpServer } from './http-server.js';
import { SHUTDOWN_MESSAGE } from './api-cluster.js';
import { createEmbedder } from '../shared/llm/create-embedder.js';
import type { Config } from '../shared/config/config.js';
import { closeQueues, createPipelineQueues } from '../shared/jobs/pipeline-queues.js';
import { clusterMetricsText } from '../shared/metrics/cluster-metrics.js';
import { drainOnce, onShutdown } from '../shared/process/process-lifecycle.js';
import { connectRedis, REQUEST_PATH_COMMAND_TIMEOUT_MS } from '../shared/redis/connect-redis.js';
import { createStorage } from '../shared/storage/create-storage.js';

/**
 * One API process: storage, Redis, the app with its own in-memory search indexes, listening on the
 * port. Alone, or as one of several sharing the port under api-cluster.ts.
 */
export async function runApiProcess(config: Config, log: Logger): Promise<void> {
  const inCluster = cluster.isWorker;
  const storage = await createStorage(config.storage, { commitThread: true, log });
  const redis = connectRedis(config.redis.url, 'quarry-api', (err) => log.warn({ err: err.message }, 'redis connection error'), {
    commandTimeoutMs: REQUEST_PATH_COMMAND_TIMEOUT_MS,
  });
  const queues = createPipelineQueues({ connection: redis, prefix: config.redis.prefix, attempts: config.pipeline.attempts });
  const embedder = await createEmbedder(config.embeddings);
  const app = await buildApp({ config, storage, redis, queues, log, embedder, metricsReader: inCluster ? clusterMetricsText : undefined });
  const server = createHttpServer(app, config).listen(config.http.port, config.http.host, () => {
    log.info({ port: config.http.port }, `Quarry API listening on http://localhost:${config.http.port}`);
    warmApp(app, log);
  });
  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // close() ends the connections idle at that moment; those answering go idle afterwards, where a
    // keep-alive client (a load balancer's pool) would hold them past the deadline: end each then.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    await closed;
    clearInterval(sweep);
    await closeApp(app);
    await closeQueues(queues);
    redis.disconnect();
    await storage.close();
  };
  if (!inCluster) return onShutdown(stop, log);
  // The primary tells every process when to stop. A terminal's Ctrl-C reaches the whole process group:
  // the primary relays it, so a process acting on it too would see a second signal and skip draining.
  const drain = drainOnce(stop, log);
  process.on('message', (m) => m === SHUTDOWN_MESSAGE && drain('primary'));
  process.on('SIGTERM', () => drain('SIGTERM'));
  process.on('SIGINT', () => {});
}
