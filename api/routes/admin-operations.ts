import { Router } from 'express';
import type { Redis } from 'ioredis';
import { latestFailedJobs, readQueues, type NamedQueues } from '../../shared/jobs/queue-status.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { requirePermission } from '../middleware/auth.js';
import { healthChecks } from './operations.js';

const FAILED_JOBS = 50;
/** Queue reads give up after this, so the page answers within ~2 s when Redis is away. */
const QUEUE_TIMEOUT_MS = 1500;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What the operators' page shows: health, queue depths, the latest failed jobs, the dashboard link. */
export function adminOperationsRouter(deps: { storage: Storage; redis: Redis; queues: NamedQueues; dashboard: boolean }): Router {
  const r = Router();
  r.get('/v1/admin/operations', requirePermission('admin'), async (_req, res) => {
    const health = await healthChecks(deps);
    const [queues, failed] = health.redis === 'ok'
      ? await Promise.all([readQueues(deps.queues, QUEUE_TIMEOUT_MS), latestFailedJobs(deps.queues, FAILED_JOBS, QUEUE_TIMEOUT_MS)])
        .catch((err: Error) => {
          health.redis = `down: ${err.message}`;
          return [[], []] as const;
        })
      : [[], []] as const;
    const uids = new Map((health.storage === 'ok' && failed.length ? await deps.storage.indexes.list() : []).map((i) => [i.id, i.uid]));
    res.json({
      health,
      queues: queues.map((q) => ({
        name: q.name, waiting: q.waiting, active: q.active, delayed: q.delayed, prioritized: q.prioritized, failed: q.failed,
        completed: q.completed, oldest_waiting_seconds: q.oldestWaitingSeconds,
      })),
      failed_jobs: failed.map((j) => ({
        queue: j.queue, id: j.id, name: j.name, reason: j.reason, attempts: j.attempts, failed_at: iso(j.failedAt),
        ...(j.indexId !== null && uids.has(j.indexId) ? { index_uid: uids.get(j.indexId) } : {}),
      })),
      dashboard: deps.dashboard ? '/admin/queues' : null,
    });
  });
  return r;
}
