import { embeddingText } from '../../shared/ingest/document-sections.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import type { PlainSection, SectionedDoc } from '../../shared/jobs/pipeline-jobs.js';
import type { DocumentFields } from '../../shared/storage/ports/document-store.js';
import type { PublishItem } from '../../shared/storage/ports/section-store.js';
import type { FilterValue, VectorPoint } from '../../shared/storage/ports/vector-index.js';
import type { WorkerContext } from './worker-context.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import { documentUnitTerms } from '../../shared/search/engine/unit-terms.js';
import { keywordKey, type KeywordUnit } from '../../shared/storage/ports/keyword-index.js';
import { keyedByUser, own } from '../../shared/records/own.js';

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
 * records it; versions superseded meanwhile are skipped. With an external vector index, its points
 * are written inside that transaction, after the live rows are locked: the section store stays the
 * judge of order, and a version never goes live before its vectors are searchable.
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
  const { vectors: external, keywords } = ctx.storage;
  const beforeLive = external || keywords ? (accepted: PublishItem[]) => writeExternal(index, accepted, ctx) : undefined;
  const r = await ctx.storage.sections.publish(indexId, items, model, beforeLive);
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

/**
 * What lives outside the section store (Qdrant's vectors and, with QUARRY_KEYWORD_INDEX=qdrant, its
 * keyword leg), written for the accepted versions: new versions' points first (wait=true), then older
 * versions' points go, so search never finds a document empty.
 */
async function writeExternal(index: IndexRecord, accepted: PublishItem[], ctx: WorkerContext) {
  if (accepted.length === 0) return;
  const fields = await ctx.storage.documents.fields(index.id, accepted.filter((a) => a.sections).map((a) => a.uid));
  const refs = accepted.map(({ uid, version }) => ({ uid, version }));
  const { vectors, keywords } = ctx.storage;
  if (vectors) {
    const points: VectorPoint[] = accepted.flatMap((item) =>
      (item.sections ?? []).flatMap((s) =>
        s.vector ? [{ uid: item.uid, version: item.version, ord: s.ord, vector: s.vector, fields: filterable(index, fields.get(item.uid)) }] : [],
      ),
    );
    if (points.length) await vectors.upsert(index.uid, points);
    await vectors.deleteOlder(index.uid, refs);
  }
  if (keywords) {
    const analyzer = createAnalyzer(index.languageCode);
    const units: KeywordUnit[] = accepted.flatMap((item) => {
      const doc = fields.get(item.uid);
      if (!item.sections || !doc) return [];
      const terms = documentUnitTerms(analyzer, index, item.sections, doc);
      return item.sections.map((s, i) => ({ uid: item.uid, version: item.version, ord: s.ord, terms: terms[i], fields: filterable(index, doc) }));
    });
    if (units.length) await keywords.upsert(keywordKey(index), index.fields, units);
    await keywords.deleteOlder(keywordKey(index), refs);
  }
}

const FILTERABLE = new Set(['string', 'int', 'float', 'boolean', 'date']);

/** The document's exact-value fields, so filters can run inside the vector index. */
function filterable(index: IndexRecord, fields: DocumentFields | undefined): Record<string, FilterValue | FilterValue[]> | undefined {
  if (!fields) return undefined;
  const out = keyedByUser<FilterValue | FilterValue[]>();
  for (const [name, spec] of Object.entries(index.fields)) {
    const v = own(fields, name);
    if (!FILTERABLE.has(spec.type) || v === undefined || v === null) continue;
    if (Array.isArray(v)) out[name] = v.filter((x): x is FilterValue => ['string', 'number', 'boolean'].includes(typeof x));
    else if (['string', 'number', 'boolean'].includes(typeof v)) out[name] = v as FilterValue;
  }
  return out;
}
