import { documentSections } from '../../shared/ingest/document-sections.js';
import type { IndexPayload, SectionedDoc } from '../../shared/jobs/pipeline-jobs.js';
import { publishBatch, type PublishCounts } from './publish-batch.js';
import type { WorkerContext } from './worker-context.js';

export interface IndexJobResult extends Partial<PublishCounts> {
  claimed: number;
}

/**
 * The pipeline's entry: takes the pending documents of the index there are now (its own first, up
 * to the batch size), so single pushes that queued many small jobs are indexed in few large
 * batches, and the jobs that find their documents taken end at once. HTML and text fields become
 * sections here; an embedder that runs in this process embeds them and the batch is published in
 * the same job, while a remote one gets the sections through the embed queue.
 */
export async function indexJob(jobId: string, p: IndexPayload, ctx: WorkerContext): Promise<IndexJobResult> {
  const index = await ctx.storage.indexes.getById(p.indexId);
  if (!index) return { claimed: 0 }; // the index was deleted: nothing left to do
  const claimed = await ctx.storage.documents.claimPending(p.indexId, jobId, ctx.batchSize);
  if (claimed.length === 0) return { claimed: 0 };
  const docs: SectionedDoc[] = claimed.map((d) => ({
    uid: d.uid,
    version: d.version,
    sections: d.fields ? documentSections(index.fields, d.fields) : null,
  }));
  if (ctx.embedder.remote) {
    await ctx.queues.embed.add('embed', { indexId: p.indexId, docs }, { jobId });
    return { claimed: docs.length };
  }
  return { claimed: docs.length, ...(await publishBatch(p.indexId, docs, ctx)) };
}
