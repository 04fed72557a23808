import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { newJobId } from '../shared/jobs/job-id.js';
import { enqueueIndexJobs, isJobAlive, type PipelineQueues } from '../shared/jobs/pipeline-queues.js';
import type { IndexRecord } from '../shared/indexes/index-schema.js';
import type { DocumentRef } from '../shared/storage/ports/document-store.js';
import type { Storage } from '../shared/storage/create-storage.js';
import { liveKeywordUnits } from '../shared/storage/keyword-units.js';
import { keywordKey, type KeywordIndex } from '../shared/storage/ports/keyword-index.js';
import type { VectorIndex } from '../shared/storage/ports/vector-index.js';
import { failedJob, failPendingOfJob, failureMessage } from './jobs/failed-for-good.js';
import { MAX_STALLS } from './registry.js';

const CHANGE_LOG_KEEP = 200_000;

export interface ReconcilerOptions {
  prefix: string;
  batchSize: number;
  /** A pending document younger than this is assumed to be in flight. */
  graceMs: number;
  /** Usage events older than this are dropped (insights cover at most this far back), and statistics learnt from none newer. */
  eventRetentionMs?: number;
  /** Conversations without a turn for this long are dropped. */
  conversationRetentionMs?: number;
  /**
   * How often Qdrant's points are swept for versions the section store does not vouch for (the first
   * pass sweeps): the sweep lists every point, so it runs far less often than the pass (default 10 min).
   */
  straysMs?: number;
  /**
   * How often the keyword leg on Qdrant is checked for average lengths gone stale (recalibrateWhenDue;
   * default 1 min): two requests per index when nothing is due.
   */
  calibrationMs?: number;
}

/**
 * Times in a row the reconciler gives a document's work a new job before it marks the document
 * failed: work that keeps vanishing (its jobs removed, Redis emptied again and again) is not retried forever.
 */
export const MAX_REQUEUES = 5;

/** How many times the reconciler has re-enqueued the work of job `id` (its ids say so: r, r2, r3...). */
export function requeueCount(id: string | null): number {
  const m = id ? /^r(\d*)\./.exec(id) : null;
  return m ? Number(m[1] || 1) : 0;
}

/** Retention runs at most this often: dropping old events is cheap, but not free. */
const RETENTION_EVERY_MS = 3_600_000;

/**
 * The store is the source of truth, Redis only carries work. Documents that are pending but whose
 * job is gone from every queue (Redis restarted empty, an enqueue that failed) get a new job.
 * Only one process reconciles at a time (a Redis lock), so they don't enqueue the same work twice.
 */
export class Reconciler {
  private lastRetention = 0;
  private lastStraySweep = 0;
  private lastCalibrationCheck = 0;
  /** The calibration check in flight in this process (it runs beside the passes, which hold a 60 s lock). */
  private calibrating: Promise<void> | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly queues: PipelineQueues,
    private readonly redis: Redis,
    private readonly log: Logger,
    private readonly o: ReconcilerOptions,
  ) {}

  /** Re-embeds indexes whose vectors came from another model than the one configured now. */
  async reembedChangedIndexes(model: string): Promise<number> {
    let n = 0;
    for (const index of await this.storage.indexes.list()) {
      if (index.embedder === null || index.embedder === model) continue;
      await this.storage.indexes.setEmbedder(index.id, model);
      const batches = await this.storage.documents.requeueIndex(index.id, () => newJobId('m', index.id), this.o.batchSize);
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
      for (const { indexId, job } of await this.storage.documents.pendingJobs(Date.now() - graceMs, 10_000)) {
        if (job && (await isJobAlive(this.queues, job))) continue;
        // A job failed for good whose documents were not marked (stalled out, or its worker died first).
        const failed = job ? await failedJob(this.queues, job) : null;
        if (failed) {
          const n = await failPendingOfJob(this.storage, indexId, job!, failureMessage(failed.queue, failed.reason, MAX_STALLS));
          this.log.warn({ job, documents: n, reason: failed.reason }, 'reconciler marked the documents of a failed job failed');
          continue;
        }
        const count = requeueCount(job);
        if (count >= MAX_REQUEUES) {
          const message = `the reconciler re-enqueued this document's work ${count} times and its job vanished each time (Redis emptied, or the job removed); push it again`;
          const n = await failPendingOfJob(this.storage, indexId, job!, message);
          this.log.warn({ job, documents: n }, 'reconciler gave up on documents whose jobs keep vanishing');
          continue;
        }
        for (;;) {
          const refs = await this.storage.documents.pendingOfJob(indexId, job, this.o.batchSize);
          if (refs.length === 0) break;
          const next = newJobId(`r${count + 1}`, indexId);
          await this.storage.documents.reassignJob(indexId, refs, next);
          await enqueueIndexJobs(this.queues, [{ indexId, jobId: next }]);
          requeued += refs.length;
        }
      }
      if (requeued) this.log.info({ requeued }, 'reconciler re-enqueued pending documents');
      // Search engines tail this feed; one that falls further behind reloads its index instead.
      await this.storage.sections.pruneChanges(CHANGE_LOG_KEEP);
      if (Date.now() - this.lastStraySweep >= (this.o.straysMs ?? 600_000)) {
        this.lastStraySweep = Date.now();
        await this.removeStrayPoints();
      }
      await this.applyRetention();
      if (this.storage.keywords && !this.calibrating && Date.now() - this.lastCalibrationCheck >= (this.o.calibrationMs ?? 60_000)) {
        this.lastCalibrationCheck = Date.now();
        this.calibrating = this.recalibrateDueIndexes()
          .catch((err: unknown) => this.log.warn({ err }, 'checking the keyword leg\'s average lengths failed; the next pass tries again'))
          .finally(() => (this.calibrating = null));
      }
      return requeued;
    } finally {
      await this.redis.del(lockKey);
    }
  }

  /**
   * The keyword leg on Qdrant fixes BM25's average lengths at an index's first write: each index that has
   * doubled since they were measured is sampled, and recalibrated when they are off (recalibrateWhenDue).
   * One process per index at a time (a Redis lock that outlasts a long rewrite).
   */
  async recalibrateDueIndexes(): Promise<void> {
    const keywords = this.storage.keywords;
    if (!keywords) return;
    for (const index of await this.storage.indexes.list()) {
      const lockKey = `${this.o.prefix}:lock:calibration:${index.id}`;
      if (!(await this.redis.set(lockKey, String(process.pid), 'PX', 30 * 60_000, 'NX'))) continue;
      try {
        const check = await keywords.recalibrateWhenDue(keywordKey(index), index.fields, () => liveKeywordUnits(this.storage, index));
        if (check && 'recalibrated' in check) this.log.info({ index: index.uid, ...check.recalibrated }, 'keyword leg recalibrated: average lengths measured again and every point written again');
        else if (check) this.log.info({ index: index.uid, ...check.confirmed }, 'keyword leg\'s average lengths still hold for the grown index');
      } finally {
        await this.redis.del(lockKey);
      }
    }
  }

  private async applyRetention(): Promise<void> {
    if (Date.now() - this.lastRetention < RETENTION_EVERY_MS) return;
    this.lastRetention = Date.now();
    const ended = await this.storage.sessions.deleteExpired(Date.now());
    if (ended) this.log.info({ ended }, 'expired web-app sessions dropped');
    // Anonymous traffic writes these on the disk that holds the documents: without a limit it could fill it.
    if (this.o.conversationRetentionMs) {
      const conversations = await this.storage.conversations.prune(Date.now() - this.o.conversationRetentionMs);
      if (conversations) this.log.info({ conversations }, 'conversations past their retention dropped');
    }
    if (!this.o.eventRetentionMs) return;
    const dropped = await this.storage.events.prune(Date.now() - this.o.eventRetentionMs);
    if (dropped) this.log.info({ dropped }, 'usage events past their retention dropped');
  }

  /**
   * Points in Qdrant (the dense vectors, and the keyword leg with QUARRY_KEYWORD_INDEX=qdrant) that the
   * section store does not vouch for: versions older than the live one (a delete that failed after the
   * commit), and newer ones that no job can still be publishing (a transaction rolled back after writing
   * them, and its document then failed or moved on). A newer version that is still pending may be
   * mid-publish and is left alone.
   */
  async removeStrayPoints(): Promise<number> {
    const copies: { name: string; index: ExternalCopy; key: (index: IndexRecord) => string }[] = [];
    if (this.storage.vectors) copies.push({ name: 'vector', index: this.storage.vectors, key: (i) => i.uid });
    if (this.storage.keywords) copies.push({ name: 'keyword', index: this.storage.keywords, key: keywordKey });
    let removed = 0;
    for (const index of copies.length ? await this.storage.indexes.list() : []) {
      for (const copy of copies) {
        const n = await this.removeStrayOf(index, copy.index, copy.key(index));
        if (n) this.log.info({ index: index.uid, removed: n, copy: copy.name }, 'reconciler removed points of versions that are not live');
        removed += n;
      }
    }
    return removed;
  }

  private async removeStrayOf(index: IndexRecord, copy: ExternalCopy, key: string): Promise<number> {
    let removed = 0;
    let after: string | null = null;
    for (;;) {
      const page: DocumentRef[] = await copy.versions(key, after, STRAY_PAGE);
      if (page.length === 0) break;
      after = page[page.length - 1].uid;
      const uids = [...new Set(page.map((p) => p.uid))];
      const live = await this.storage.sections.liveVersions(index.id, uids);
      // Live versions only grow: anything older is stray for good.
      const stray = page.filter((p) => p.version < (live.get(p.uid) ?? 0));
      const newer = page.filter((p) => p.version > (live.get(p.uid) ?? 0));
      if (newer.length) {
        // The document first, the live version after: a publish that commits in between is then seen
        // either still pending or already live, never as neither (it marks the document after it commits).
        const docs = await Promise.all(newer.map((p) => this.storage.documents.get(index.id, p.uid)));
        const liveNow = await this.storage.sections.liveVersions(index.id, newer.map((p) => p.uid));
        newer.forEach((p, i) => {
          const v = liveNow.get(p.uid) ?? 0;
          const doc = docs[i];
          const publishing = doc !== null && doc.version === p.version && doc.status === 'pending';
          if (p.version < v || (p.version > v && !publishing)) stray.push(p);
        });
      }
      if (stray.length) await copy.deleteVersions(key, stray);
      removed += stray.length;
      if (page.length < STRAY_PAGE) break;
    }
    return removed;
  }
}

/** What the reconciler needs of a copy of the sections kept outside the section store. */
type ExternalCopy = Pick<VectorIndex & KeywordIndex, 'versions' | 'deleteVersions'>;

const STRAY_PAGE = 1000;
