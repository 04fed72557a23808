import { documentSections } from '../../shared/ingest/document-sections.js';
import type { SectionedDoc, SectionPayload } from '../../shared/jobs/pipeline-jobs.js';
import type { WorkerContext } from './worker-context.js';

/** HTML and text fields -> plain-text sections. Documents superseded by a newer write are skipped. */
export async function sectionJob(jobId: string, p: SectionPayload, ctx: WorkerContext): Promise<number> {
  const index = await ctx.storage.indexes.getById(p.indexId);
  if (!index) return 0; // the index was deleted: nothing left to do
  const docs: SectionedDoc[] = (await ctx.storage.documents.loadCurrent(p.indexId, p.docs)).map((d) => ({
    uid: d.uid,
    version: d.version,
    sections: d.fields ? documentSections(index.fields, d.fields) : null,
  }));
  if (docs.length > 0) await ctx.queues.embed.add('embed', { indexId: p.indexId, docs }, { jobId });
  return docs.length;
}
