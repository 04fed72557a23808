import { Redis } from 'ioredis';

/** BullMQ needs maxRetriesPerRequest null: commands wait through a Redis restart instead of failing. */
export function connectRedis(url: string, name: string, onError: (err: Error) => void = () => {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name });
  // Without a listener ioredis prints every failed reconnect; the caller decides what to log.
  redis.on('error', onError);
  return redis;
}
