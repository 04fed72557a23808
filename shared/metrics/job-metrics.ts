import type { Redis } from 'ioredis';

/** Bucket bounds (seconds) of the job-duration histogram. */
export const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How often a worker adds what it counted to Redis: one round trip a second, not one per job. */
const FLUSH_MS = 1000;

/**
 * Job outcomes are counted in one Redis hash so that /metrics on any API process shows the sum over
 * every worker process, wherever it runs, without scraping each worker. A worker counts in memory
 * and adds its counts every second (and when it closes).
 */
export class JobMetrics {
  private readonly key: string;
  private counts = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly redis: Redis, prefix: string) {
    this.key = `${prefix}:metrics:jobs`;
  }

  record(queue: string, seconds: number, ok: boolean): void {
    this.add(`${queue}|${ok ? 'completed' : 'failed'}`, 1);
    if (ok) {
      this.add(`${queue}|sum`, seconds);
      for (const b of JOB_BUCKETS) if (seconds <= b) this.add(`${queue}|le|${b}`, 1);
    }
    this.timer ??= setTimeout(() => void this.flush().catch(() => {}), FLUSH_MS).unref();
  }

  /** Adds the counts so far to Redis; counts that fail to go are kept for the next flush. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const counts = this.counts;
    if (counts.size === 0) return;
    this.counts = new Map();
    const m = this.redis.multi();
    for (const [field, n] of counts) {
      if (field.endsWith('|sum')) m.hincrbyfloat(this.key, field, n);
      else m.hincrby(this.key, field, n);
    }
    try {
      await m.exec();
    } catch (err) {
      for (const [field, n] of counts) this.add(field, n);
      throw err;
    }
  }

  async read(): Promise<Record<string, number>> {
    const raw = await this.redis.hgetall(this.key);
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)]));
  }

  private add(field: string, n: number) {
    this.counts.set(field, (this.counts.get(field) ?? 0) + n);
  }
}
