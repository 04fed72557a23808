import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * How long a command of a request-serving process (the API) may wait for Redis. A stalled Redis
 * (not down: the connection stays open and nothing answers) would otherwise hold every command,
 * and the request behind it, until Redis resumes. Paths with a tighter budget race their own timer
 * (rate limits 250 ms, answers and enqueues 2 s); this bounds every other one.
 */
export const REQUEST_PATH_COMMAND_TIMEOUT_MS = 5000;

export interface RedisConnectOptions {
  /**
   * Rejects a command that has no reply within this many ms ("Command timed out"); the command stays
   * in flight, so the replies that follow still match. Not for workers: their blocking commands wait
   * on purpose, and their connections inherit this option.
   */
  commandTimeoutMs?: number;
}

/** BullMQ needs maxRetriesPerRequest null: commands wait through a Redis restart instead of failing. */
export function connectRedis(url: string, name: string, onError: (err: Error) => void = () => {}, options: RedisConnectOptions = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name, commandTimeout: options.commandTimeoutMs,
  });
  // Without a listener ioredis prints every failed reconnect; the caller decides what to log.
  redis.on('error', onError);
  return redis;
}

/**
 * An 'error' listener for queues and extra connections that logs at most once a minute: while Redis
 * is stalled every command times out, and without a listener each one is printed to stderr.
 */
export function redisErrorLog(log: Logger, message: string, everyMs = 60_000): (err: unknown) => void {
  let last = 0;
  return (err) => {
    if (Date.now() - last < everyMs) return;
    last = Date.now();
    log.warn({ err: err instanceof Error ? err.message : err }, message);
  };
}

/**
 * Resolves once `redis` is ready, or after `withinMs` whatever its state (false then). An API process
 * waits for it before it answers: the rate limits refuse to wait on a connection that is not ready and let
 * requests through instead, so a process answering while it still connects would serve its first
 * requests unlimited. A Redis that is down does not keep the API from starting.
 */
export function redisReady(redis: Redis, withinMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), withinMs);
    redis.on('ready', onReady);
  });
}
