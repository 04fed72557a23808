import { embeddingText } from '../../shared/ingest/document-sections.js';
import type { PlainSection, SectionedDoc } from '../../shared/jobs/pipeline-jobs.js';
import type { PublishItem } from '../../shared/storage/ports/section-store.js';
import type { WorkerContext } from './worker-context.js';

export interface PublishCounts {
  embedded: number;
  reused: number;
  published: number;
  removed: number;
  stale: number;
}

/**
 * Vectors for every section of the batch, then the batch goes live. Text embedded before by the
 * same model is reused from the index, so an unchanged section is never embedded twice. Each
 * document's sections swap in one transaction of the section store, then the document store
 * records it; versions superseded meanwhile are skipped. In the scale-out mode the section store also
 * writes Qdrant's copies in that transaction (see SectionMirror): a version never goes live before
 * its vectors and keyword terms are searchable there.
 */
export async function publishBatch(indexId: number, docs: SectionedDoc[], ctx: WorkerContext): Promise<PublishCounts> {
  const model = ctx.embedder.id;
  const counts: PublishCounts = { embedded: 0, reused: 0, published: 0, removed: 0, stale: docs.length };
  const before = await ctx.storage.indexes.getById(indexId);
  if (!before) return counts;
  if (before.embedder && before.embedder !== model) {
    // Mixing two models' vectors in one index would make its vector ranking meaningless.
    throw new Error(`index '${before.uid}' holds vectors of ${before.embedder} but this worker embeds with ${model}; run every worker with the same embedder settings`);
  }
  const vectors = await embedSections(docs.flatMap((d) => d.sections ?? []), ctx);
  counts.embedded = vectors.embedded;
  counts.reused = vectors.reused;

  const index = await ctx.storage.indexes.getById(indexId);
  if (!index) return counts;
  if (index.embedder === null) await ctx.storage.indexes.setEmbedder(index.id, model);
  // The index moved to another model while this batch was embedded: the documents stay pending and
  // the reconciler sends them through the pipeline again.
  else if (index.embedder !== model) return counts;
  const current = new Set((await ctx.storage.documents.currentRefs(indexId, docs)).map((r) => r.uid));
  const items: PublishItem[] = docs.filter((d) => current.has(d.uid)).map((d) => ({
    uid: d.uid,
    version: d.version,
    sections: d.sections?.map((s) => ({ ...s, vector: vectors.byHash.get(s.hash) ?? null })) ?? null,
  }));
  const r = await ctx.storage.sections.publish(indexId, items, model);
  await ctx.storage.documents.markPublished(indexId, r.published, r.removed);
  return { ...counts, published: r.published.length, removed: r.removed.length, stale: r.stale + docs.length - items.length };
}

/** One provider call (per batcher chunk) for the sections whose text this model has not embedded yet. */
async function embedSections(all: PlainSection[], ctx: WorkerContext) {
  const byHash = await ctx.storage.sections.reusableVectors(all.map((s) => s.hash), ctx.embedder.id);
  const reused = all.filter((s) => byHash.has(s.hash)).length;
  const todo = new Map<string, PlainSection>();
  for (const s of all) if (!byHash.has(s.hash)) todo.set(s.hash, s);
  const missing = [...todo.values()];
  const fresh = missing.length ? await ctx.embedder.embed(missing.map(embeddingText)) : [];
  missing.forEach((s, i) => byHash.set(s.hash, fresh[i]));
  return { byHash, embedded: missing.length, reused };
}
