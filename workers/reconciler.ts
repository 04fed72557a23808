import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { newJobId } from '../shared/jobs/job-id.js';
import { isJobAlive, type PipelineQueues } from '../shared/jobs/pipeline-queues.js';
import type { Storage } from '../shared/storage/create-storage.js';

const CHANGE_LOG_KEEP = 200_000;

export interface ReconcilerOptions {
  prefix: string;
  batchSize: number;
  /** A pending document younger than this is assumed to be in flight. */
  graceMs: number;
}

/**
 * The store is the source of truth, Redis only carries work. Documents that are pending but whose
 * job is gone from every queue (Redis restarted empty, an enqueue that failed) get a new job.
 * Only one process reconciles at a time (a Redis lock), so they don't enqueue the same work twice.
 */
export class Reconciler {
  constructor(
    private readonly storage: Storage,
    private readonly queues: PipelineQueues,
    private readonly redis: Redis,
    private readonly log: Logger,
    private readonly o: ReconcilerOptions,
  ) {}

  /** Re-embeds indexes whose vectors came from another model than the one configured now. */
  reembedChangedIndexes(model: string): number {
    let n = 0;
    for (const index of this.storage.indexes.list()) {
      if (index.embedder === null || index.embedder === model) continue;
      this.storage.indexes.setEmbedder(index.id, model);
      const batches = this.storage.documents.requeueIndex(index.id, () => newJobId('m', index.id), this.o.batchSize);
      n += batches.reduce((s, b) => s + b.refs.length, 0);
      this.log.info({ index: index.uid, from: index.embedder, to: model }, 'embedding model changed: re-embedding');
    }
    return n;
  }

  async runOnce(graceMs = this.o.graceMs): Promise<number> {
    const lockKey = `${this.o.prefix}:lock:reconciler`;
    const got = await this.redis.set(lockKey, String(process.pid), 'PX', 60_000, 'NX');
    if (!got) return 0;
    try {
      let requeued = 0;
      for (const { indexId, job } of this.storage.documents.pendingJobs(Date.now() - graceMs, 10_000)) {
        if (job && (await isJobAlive(this.queues, job))) continue;
        for (;;) {
          const refs = this.storage.documents.pendingOfJob(indexId, job, this.o.batchSize);
          if (refs.length === 0) break;
          const next = newJobId('r', indexId);
          this.storage.documents.reassignJob(indexId, refs, next);
          await this.queues.section.add('section', { indexId, docs: refs }, { jobId: next });
          requeued += refs.length;
        }
      }
      if (requeued) this.log.info({ requeued }, 'reconciler re-enqueued pending documents');
      // Search engines tail this log; one that falls further behind reloads its index instead.
      this.storage.search.pruneChanges(CHANGE_LOG_KEEP);
      return requeued;
    } finally {
      await this.redis.del(lockKey);
    }
  }
}
