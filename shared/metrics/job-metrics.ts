import type { Redis } from 'ioredis';

/** Bucket bounds (seconds) of the job-duration histogram. */
export const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Job outcomes are counted in one Redis hash so that /metrics on any API process shows the sum over
 * every worker process, wherever it runs, without scraping each worker.
 */
export class JobMetrics {
  private readonly key: string;

  constructor(private readonly redis: Redis, prefix: string) {
    this.key = `${prefix}:metrics:jobs`;
  }

  async record(queue: string, seconds: number, ok: boolean): Promise<void> {
    const m = this.redis.multi();
    m.hincrby(this.key, `${queue}|${ok ? 'completed' : 'failed'}`, 1);
    if (ok) {
      m.hincrbyfloat(this.key, `${queue}|sum`, seconds);
      for (const b of JOB_BUCKETS) if (seconds <= b) m.hincrby(this.key, `${queue}|le|${b}`, 1);
    }
    await m.exec();
  }

  async read(): Promise<Record<string, number>> {
    const raw = await this.redis.hgetall(this.key);
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)]));
  }
}
