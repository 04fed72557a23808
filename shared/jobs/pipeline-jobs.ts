import type { DocumentRef } from '../storage/ports/document-store.js';
import type { SectionRow } from '../storage/ports/section-store.js';

/**
 * The ingestion pipeline. An `index` job claims the pending documents of its index there are when
 * it runs (up to the batch size), sections them and, with an embedder that runs in the worker,
 * embeds and publishes them in the same job. A remote (HTTP) embedder gets a queue of its own,
 * `embed`, where one job embeds a batch in few provider calls and publishes it. The job keeps its id
 * from one queue to the next (ids are unique per queue), and the documents it claimed name it, so
 * the reconciler can tell whether a pending document's job is still alive anywhere.
 */
export const PIPELINE_QUEUES = ['index', 'embed'] as const;
export type PipelineQueueName = (typeof PIPELINE_QUEUES)[number];

/** Which index's pending documents to take; the documents are found in the store, not in the job. */
export interface IndexPayload {
  indexId: number;
}

/** A section as it travels before embedding: the stored row without its vector. */
export type PlainSection = Omit<SectionRow, 'vector'>;

export interface SectionedDoc extends DocumentRef {
  /** null: the document was deleted. */
  sections: PlainSection[] | null;
}

export interface EmbedPayload {
  indexId: number;
  docs: SectionedDoc[];
}
