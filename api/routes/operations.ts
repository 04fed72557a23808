import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { AppError } from '../../shared/errors/app-error.js';
import { PIPELINE_QUEUES } from '../../shared/jobs/pipeline-jobs.js';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import { JOB_BUCKETS, type JobMetrics } from '../../shared/metrics/job-metrics.js';
import type { Storage } from '../../shared/storage/create-storage.js';

/** /healthz, /readyz and /metrics (Prometheus text: HTTP, queues, jobs from every worker). */
export function operationsRouter(deps: { storage: Storage; redis: Redis; queues: PipelineQueues; registry: Registry; jobMetrics: JobMetrics }): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  r.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {};
    try {
      await deps.storage.ping();
      checks.storage = 'ok';
    } catch (err) {
      checks.storage = `down: ${(err as Error).message}`;
    }
    try {
      await withTimeout(deps.redis.ping(), 1000);
      checks.redis = 'ok';
    } catch (err) {
      checks.redis = `down: ${(err as Error).message}`;
    }
    const down = Object.entries(checks).filter(([, v]) => v !== 'ok');
    if (down.length) throw new AppError('dependency_unavailable', `Not ready: ${down.map(([k, v]) => `${k} ${v}`).join('; ')}`, checks);
    res.json({ status: 'ready', checks });
  });

  r.get('/metrics', async (_req, res) => {
    const parts = [await deps.registry.metrics()];
    try {
      parts.push(await queueMetrics(deps.queues), renderJobMetrics(await deps.jobMetrics.read()));
    } catch {
      parts.push('# queue metrics unavailable: Redis did not answer\n');
    }
    res.type('text/plain; version=0.0.4').send(parts.join('\n'));
  });
  return r;
}

async function queueMetrics(queues: PipelineQueues): Promise<string> {
  const lines = [
    '# HELP quarry_queue_jobs Jobs per pipeline queue and state',
    '# TYPE quarry_queue_jobs gauge',
  ];
  const age = ['# HELP quarry_queue_oldest_waiting_seconds Age of the oldest waiting job', '# TYPE quarry_queue_oldest_waiting_seconds gauge'];
  for (const name of PIPELINE_QUEUES) {
    const q = queues[name];
    const counts = await withTimeout(q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'), 2000);
    for (const [state, n] of Object.entries(counts)) lines.push(`quarry_queue_jobs{queue="${name}",state="${state}"} ${n}`);
    const [oldest] = await withTimeout(q.getJobs(['wait'], 0, 0, true), 2000);
    age.push(`quarry_queue_oldest_waiting_seconds{queue="${name}"} ${oldest ? (Date.now() - oldest.timestamp) / 1000 : 0}`);
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

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}
