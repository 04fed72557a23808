import { embeddingText } from '../../shared/ingest/document-sections.js';
import { encodeVector, type EmbedPayload, type EmbeddedDoc, type PlainSection } from '../../shared/jobs/pipeline-jobs.js';
import type { WorkerContext } from './worker-context.js';

/**
 * Vectors for every section of the batch in one provider call. Text embedded before by the same
 * model is reused from the index, so an unchanged section is never embedded twice.
 */
export async function embedJob(jobId: string, p: EmbedPayload, ctx: WorkerContext): Promise<{ embedded: number; reused: number }> {
  const model = ctx.embedder.id;
  const index = await ctx.storage.indexes.getById(p.indexId);
  if (index?.embedder && index.embedder !== model) {
    // Mixing two models' vectors in one index would make its vector ranking meaningless.
    throw new Error(`index '${index.uid}' holds vectors of ${index.embedder} but this worker embeds with ${model}; run every worker with the same embedder settings`);
  }
  const all: PlainSection[] = p.docs.flatMap((d) => d.sections ?? []);
  const known = await ctx.storage.sections.reusableVectors(all.map((s) => s.hash), model);
  const todo = new Map<string, PlainSection>();
  for (const s of all) if (!known.has(s.hash)) todo.set(s.hash, s);

  const missing = [...todo.values()];
  const vectors = missing.length ? await ctx.embedder.embed(missing.map(embeddingText)) : [];
  const encoded = new Map<string, string>();
  for (const [h, v] of known) encoded.set(h, encodeVector(v));
  missing.forEach((s, i) => encoded.set(s.hash, encodeVector(vectors[i])));

  const docs: EmbeddedDoc[] = p.docs.map((d) => ({
    uid: d.uid,
    version: d.version,
    sections: d.sections?.map((s) => ({ ...s, vector: encoded.get(s.hash) ?? null })) ?? null,
  }));
  await ctx.queues.index.add('index', { indexId: p.indexId, model, docs }, { jobId });
  return { embedded: missing.length, reused: all.length - missing.length };
}
