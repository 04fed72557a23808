import { Redis } from 'ioredis';

/** BullMQ needs maxRetriesPerRequest null: commands wait through a Redis restart instead of failing. */
export function connectRedis(url: string, name: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name });
}
