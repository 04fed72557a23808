import { buildApp, closeApp, warmApp } from './app.js';
import { createHttpServer } from './http-server.js';
import { createEmbedder } from '../shared/llm/create-embedder.js';
import { ConfigError, loadConfig } from '../shared/config/config.js';
import { closeQueues, createPipelineQueues } from '../shared/jobs/pipeline-queues.js';
import { createLogger } from '../shared/logging/create-logger.js';
import { onShutdown, runMain } from '../shared/process/process-lifecycle.js';
import { connectRedis, REQUEST_PATH_COMMAND_TIMEOUT_MS } from '../shared/redis/connect-redis.js';
import { createStorage } from '../shared/storage/create-storage.js';

/** The API process: `npm run start:api`. */
async function main() {
  const config = loadConfig();
  const log = createLogger(config.log.level, 'api');
  const storage = await createStorage(config.storage, { commitThread: true });
  const redis = connectRedis(config.redis.url, 'quarry-api', (err) => log.warn({ err: err.message }, 'redis connection error'), {
    commandTimeoutMs: REQUEST_PATH_COMMAND_TIMEOUT_MS,
  });
  const queues = createPipelineQueues({ connection: redis, prefix: config.redis.prefix, attempts: config.pipeline.attempts });
  const embedder = await createEmbedder(config.embeddings);
  const app = await buildApp({ config, storage, redis, queues, log, embedder });
  const server = createHttpServer(app, config).listen(config.http.port, config.http.host, () => {
    log.info({ port: config.http.port }, `Quarry API listening on http://localhost:${config.http.port}`);
    warmApp(app, log);
  });
  onShutdown(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeApp(app);
    await closeQueues(queues);
    redis.disconnect();
    await storage.close();
  }, log);
}

runMain(main, (e) => e instanceof ConfigError);
