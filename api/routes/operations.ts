import { Router } from 'express';
import type { Redis } from 'ioredis';
import { AppError } from '../../shared/errors/app-error.js';
import { PIPELINE_QUEUES } from '../../shared/jobs/pipeline-jobs.js';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import { readQueues, withTimeout } from '../../shared/jobs/queue-status.js';
import { JOB_BUCKETS, type JobMetrics } from '../../shared/metrics/job-metrics.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { isAdmin } from '../middleware/operations-access.js';

/**
 * /healthz, /readyz and /metrics (Prometheus text: HTTP, queues, jobs from every worker). app.ts mounts
 * optionalKey in front of /readyz and /metrics, and requireMetricsAccess in front of /metrics.
 */
export function operationsRouter(deps: { storage: Storage; redis: Redis; queues: PipelineQueues; processMetrics: () => Promise<string>; jobMetrics: JobMetrics }): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  r.get('/readyz', async (req, res) => {
    const checks = await healthChecks(deps);
    const down = Object.entries(checks).filter(([, v]) => v !== 'ok');
    // A disk under its minimum free is not "down": reads and searches go on, only writes get 507.
    const disk = deps.storage.diskSpace?.();
    const diskCheck = disk === undefined ? {} : { disk: disk.writable ? 'ok' : 'low: document writes are refused (507) until space is freed' };
    if (!down.length) return void res.json({ status: 'ready', checks: { ...checks, ...diskCheck } });
    const detail = `Not ready: ${down.map(([k, v]) => `${k} ${v}`).join('; ')}`;
    // Why a check is down names hosts, ports and settings: an admin key sees it, anonymous callers only which is down.
    if (isAdmin(req)) throw new AppError('dependency_unavailable', detail, checks);
    const shown = Object.fromEntries(Object.entries(checks).map(([k, v]) => [k, v === 'ok' ? 'ok' : 'down']));
    const message = `Not ready: ${down.map(([k]) => k).join(', ')} down; the reason is in the API log, or send an admin key`;
    throw new AppError('dependency_unavailable', message, shown).withInternal(detail);
  });

  r.get('/metrics', async (_req, res) => {
    const parts = [await deps.processMetrics()];
    try {
      parts.push(await queueMetrics(deps.queues), renderJobMetrics(await deps.jobMetrics.read()));
    } catch {
      parts.push('# queue metrics unavailable: Redis did not answer\n');
    }
    res.type('text/plain; version=0.0.4').send(parts.join('\n'));
  });
  return r;
}

/** 'ok' or 'down: <why>' for storage and Redis, each within a second. */
export async function healthChecks(deps: { storage: Storage; redis: Redis }): Promise<{ storage: string; redis: string }> {
  const check = (p: () => Promise<unknown>) => withTimeout(p(), 1000).then(() => 'ok', (err: Error) => `down: ${err.message}`);
  const [storage, redis] = await Promise.all([check(() => deps.storage.ping()), check(() => deps.redis.ping())]);
  return { storage, redis };
}

async function queueMetrics(queues: PipelineQueues): Promise<string> {
  const lines = [
    '# HELP quarry_queue_jobs Jobs per pipeline queue and state',
    '# TYPE quarry_queue_jobs gauge',
  ];
  const age = ['# HELP quarry_queue_oldest_waiting_seconds Age of the oldest waiting job', '# TYPE quarry_queue_oldest_waiting_seconds gauge'];
  for (const q of await readQueues(queues, 2000)) {
    for (const state of ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const) {
      lines.push(`quarry_queue_jobs{queue="${q.name}",state="${state}"} ${q[state]}`);
    }
    age.push(`quarry_queue_oldest_waiting_seconds{queue="${q.name}"} ${q.oldestWaitingSeconds}`);
  }
  return [...lines, ...age, ''].join('\n');
}

function renderJobMetrics(m: Record<string, number>): string {
  const out = [
    '# HELP quarry_jobs_total Finished pipeline jobs by outcome, summed over all workers',
    '# TYPE quarry_jobs_total counter',
  ];
  const hist = ['# HELP quarry_job_duration_seconds Pipeline job processing time', '# TYPE quarry_job_duration_seconds histogram'];
  for (const q of PIPELINE_QUEUES) {
    for (const outcome of ['completed', 'failed']) out.push(`quarry_jobs_total{queue="${q}",outcome="${outcome}"} ${m[`${q}|${outcome}`] ?? 0}`);
    for (const b of JOB_BUCKETS) hist.push(`quarry_job_duration_seconds_bucket{queue="${q}",le="${b}"} ${m[`${q}|le|${b}`] ?? 0}`);
    hist.push(`quarry_job_duration_seconds_bucket{queue="${q}",le="+Inf"} ${m[`${q}|completed`] ?? 0}`);
    hist.push(`quarry_job_duration_seconds_sum{queue="${q}"} ${m[`${q}|sum`] ?? 0}`);
    hist.push(`quarry_job_duration_seconds_count{queue="${q}"} ${m[`${q}|completed`] ?? 0}`);
  }
  return [...out, ...hist, ''].join('\n');
}
