import { decodeVector, type IndexPayload } from '../../shared/jobs/pipeline-jobs.js';
import type { WorkerContext } from './worker-context.js';

/** Makes the batch live: keyword and vector entries of each document swap in one transaction. */
export async function indexJob(p: IndexPayload, ctx: WorkerContext) {
  const index = ctx.storage.indexes.getById(p.indexId);
  if (!index) return { published: 0, removed: 0, stale: p.docs.length };
  if (index.embedder === null) ctx.storage.indexes.setEmbedder(index.id, p.model);
  // Embedded before the index moved to another model: the documents stay pending and the
  // reconciler sends them through the pipeline again.
  else if (index.embedder !== p.model) return { published: 0, removed: 0, stale: p.docs.length };
  const items = p.docs.map((d) => ({
    uid: d.uid,
    version: d.version,
    sections: d.sections?.map((s) => ({ ...s, vector: s.vector ? decodeVector(s.vector) : null })) ?? null,
  }));
  return ctx.storage.search.publish(p.indexId, items, p.model);
}
