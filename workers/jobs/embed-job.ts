import type { EmbedPayload } from '../../shared/jobs/pipeline-jobs.js';
import { publishBatch, type PublishCounts } from './publish-batch.js';
import type { WorkerContext } from './worker-context.js';

/**
 * A remote embedder's stage: the batch an index job sectioned is embedded in few provider calls
 * (the process's batcher joins concurrent jobs' texts) and published in the same job.
 */
export function embedJob(p: EmbedPayload, ctx: WorkerContext): Promise<PublishCounts> {
  return publishBatch(p.indexId, p.docs, ctx);
}
