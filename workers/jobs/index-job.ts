import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import { decodeVector, type IndexPayload } from '../../shared/jobs/pipeline-jobs.js';
import type { DocumentFields } from '../../shared/storage/ports/document-store.js';
import type { PublishItem } from '../../shared/storage/ports/section-store.js';
import type { FilterValue, VectorIndex, VectorPoint } from '../../shared/storage/ports/vector-index.js';
import type { WorkerContext } from './worker-context.js';

/**
 * Makes the batch live: each document's sections swap in one transaction of the section store, then
 * the document store records it. Versions superseded meanwhile are skipped. With an external vector
 * index, its points are written inside that transaction, after the live rows are locked: the section
 * store stays the judge of order, and a version never goes live before its vectors are searchable.
 */
export async function indexJob(p: IndexPayload, ctx: WorkerContext) {
  const index = await ctx.storage.indexes.getById(p.indexId);
  const skipped = { published: 0, removed: 0, stale: p.docs.length };
  if (!index) return skipped;
  if (index.embedder === null) await ctx.storage.indexes.setEmbedder(index.id, p.model);
  // Embedded before the index moved to another model: the documents stay pending and the
  // reconciler sends them through the pipeline again.
  else if (index.embedder !== p.model) return skipped;
  const current = new Set((await ctx.storage.documents.currentRefs(p.indexId, p.docs)).map((r) => r.uid));
  const items: PublishItem[] = p.docs.filter((d) => current.has(d.uid)).map((d) => ({
    uid: d.uid,
    version: d.version,
    sections: d.sections?.map((s) => ({ ...s, vector: s.vector ? decodeVector(s.vector) : null })) ?? null,
  }));
  const vectors = ctx.storage.vectors;
  const beforeLive = vectors ? (accepted: PublishItem[]) => writeVectors(vectors, index, accepted, ctx) : undefined;
  const r = await ctx.storage.sections.publish(p.indexId, items, p.model, beforeLive);
  await ctx.storage.documents.markPublished(p.indexId, r.published, r.removed);
  return { published: r.published.length, removed: r.removed.length, stale: r.stale + p.docs.length - items.length };
}

/** New versions' points first (wait=true), then older versions' points go: search never finds a document empty. */
async function writeVectors(vectors: VectorIndex, index: IndexRecord, accepted: PublishItem[], ctx: WorkerContext) {
  if (accepted.length === 0) return;
  const fields = await ctx.storage.documents.fields(index.id, accepted.filter((a) => a.sections).map((a) => a.uid));
  const points: VectorPoint[] = accepted.flatMap((item) =>
    (item.sections ?? []).flatMap((s) =>
      s.vector ? [{ uid: item.uid, version: item.version, ord: s.ord, vector: s.vector, fields: filterable(index, fields.get(item.uid)) }] : [],
    ),
  );
  if (points.length) await vectors.upsert(index.uid, points);
  await vectors.deleteOlder(index.uid, accepted.map(({ uid, version }) => ({ uid, version })));
}

const FILTERABLE = new Set(['string', 'int', 'float', 'boolean', 'date']);

/** The document's exact-value fields, so filters can run inside the vector index. */
function filterable(index: IndexRecord, fields: DocumentFields | undefined): Record<string, FilterValue | FilterValue[]> | undefined {
  if (!fields) return undefined;
  const out: Record<string, FilterValue | FilterValue[]> = {};
  for (const [name, spec] of Object.entries(index.fields)) {
    const v = fields[name];
    if (!FILTERABLE.has(spec.type) || v === undefined || v === null) continue;
    if (Array.isArray(v)) out[name] = v.filter((x): x is FilterValue => ['string', 'number', 'boolean'].includes(typeof x));
    else if (['string', 'number', 'boolean'].includes(typeof v)) out[name] = v as FilterValue;
  }
  return out;
}
