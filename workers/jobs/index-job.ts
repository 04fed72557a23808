import { decodeVector, type IndexPayload } from '../../shared/jobs/pipeline-jobs.js';
import type { WorkerContext } from './worker-context.js';

/**
 * Makes the batch live: each document's keyword and vector entries swap in one transaction of the
 * search store, then the document store records it. Versions superseded meanwhile are skipped.
 */
export async function indexJob(p: IndexPayload, ctx: WorkerContext) {
  const index = ctx.storage.indexes.getById(p.indexId);
  const skipped = { published: 0, removed: 0, stale: p.docs.length };
  if (!index) return skipped;
  if (index.embedder === null) ctx.storage.indexes.setEmbedder(index.id, p.model);
  // Embedded before the index moved to another model: the documents stay pending and the
  // reconciler sends them through the pipeline again.
  else if (index.embedder !== p.model) return skipped;
  const current = new Set(ctx.storage.documents.currentRefs(p.indexId, p.docs).map((r) => r.uid));
  const items = p.docs.filter((d) => current.has(d.uid)).map((d) => ({
    uid: d.uid,
    version: d.version,
    sections: d.sections?.map((s) => ({ ...s, vector: s.vector ? decodeVector(s.vector) : null })) ?? null,
  }));
  const r = ctx.storage.search.publish(p.indexId, items, p.model);
  ctx.storage.documents.markPublished(p.indexId, r.published, r.removed);
  return { published: r.published.length, removed: r.removed.length, stale: r.stale + p.docs.length - items.length };
}
