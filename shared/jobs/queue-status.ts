import type { Queue } from 'bullmq';

/** Queues by name: the pipeline's, and the generation queue where the caller has it. */
export type NamedQueues = Record<string, Queue>;

export interface QueueStatus {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  prioritized: number;
  failed: number;
  completed: number;
  /** Age of the oldest job waiting; 0 when none waits. */
  oldestWaitingSeconds: number;
}

export interface FailedJob {
  queue: string;
  id: string;
  name: string;
  reason: string;
  attempts: number;
  failedAt: number | null;
  /** The index the job's documents belong to (pipeline jobs carry its id). */
  indexId: number | null;
}

/** Rejects when `p` has not settled within `ms`: Redis commands wait for a lost connection otherwise. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error(`no answer within ${ms} ms`)), ms)))])
    .finally(() => clearTimeout(t));
}

/** Job counts and the oldest waiting job of every queue, read side by side. */
export async function readQueues(queues: NamedQueues, timeoutMs: number): Promise<QueueStatus[]> {
  return withTimeout(Promise.all(Object.entries(queues).map(async ([name, q]) => {
    const [counts, [oldest]] = await Promise.all([
      q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'),
      q.getJobs(['wait'], 0, 0, true),
    ]);
    return {
      name, waiting: counts.waiting ?? 0, active: counts.active ?? 0, delayed: counts.delayed ?? 0, prioritized: counts.prioritized ?? 0,
      failed: counts.failed ?? 0, completed: counts.completed ?? 0, oldestWaitingSeconds: oldest ? (Date.now() - oldest.timestamp) / 1000 : 0,
    };
  })), timeoutMs);
}

/** The latest `limit` failed jobs over every queue, newest first. */
export async function latestFailedJobs(queues: NamedQueues, limit: number, timeoutMs: number): Promise<FailedJob[]> {
  const perQueue = await withTimeout(Promise.all(Object.entries(queues).map(async ([name, q]) =>
    (await q.getFailed(0, limit - 1)).filter((j) => j).map((j): FailedJob => ({
      queue: name, id: String(j.id), name: j.name, reason: j.failedReason ?? '', attempts: j.attemptsMade,
      failedAt: j.finishedOn ?? null, indexId: typeof j.data?.indexId === 'number' ? j.data.indexId : null,
    })))), timeoutMs);
  return perQueue.flat().sort((a, b) => (b.failedAt ?? 0) - (a.failedAt ?? 0)).slice(0, limit);
}
