import { ConfigError, loadConfig } from '../shared/config/config.js';
import { createChatModel } from '../shared/llm/create-chat-model.js';
import { createLogger } from '../shared/logging/create-logger.js';
import { envWithFlags, onShutdown, runMain } from '../shared/process/process-lifecycle.js';
import { connectRedis } from '../shared/redis/connect-redis.js';
import { startWorkers } from './registry.js';

/** A generation worker process: `npm run start:generator -- --concurrency 8`. Scale these apart from indexing. */
async function main() {
  const config = loadConfig(envWithFlags(process.argv.slice(2), { concurrency: 'QUARRY_GENERATION_CONCURRENCY' }));
  const log = createLogger(config.log.level, 'generator');
  const redis = connectRedis(config.redis.url, 'quarry-generator', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const subscriber = connectRedis(config.redis.url, 'quarry-generator-cancel', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const model = createChatModel(config.generation.llm);
  const concurrency = config.generation.concurrency;
  const workers = await startWorkers(['generate'], {
    log, generation: { connection: redis, subscriber, prefix: config.redis.prefix, concurrency, model, log },
  }, { connection: redis, prefix: config.redis.prefix, concurrency, lockMs: config.pipeline.lockMs });
  log.info({ concurrency: config.generation.concurrency, generator: model?.id ?? 'extractive (offline, no model)' }, 'generation worker started');
  onShutdown(async () => {
    await workers.close(); // lets running generations finish
    subscriber.disconnect();
    redis.disconnect();
  }, log);
}

runMain(main, (e) => e instanceof ConfigError);
