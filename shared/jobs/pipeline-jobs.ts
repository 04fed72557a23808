import type { DocumentRef } from '../storage/ports/document-store.js';
import type { SectionRow } from '../storage/ports/section-store.js';

/**
 * The ingestion pipeline: section -> embed -> index. One job carries a batch of documents of one
 * index through every stage under the same job id (ids are unique per queue), so the reconciler
 * can tell whether a pending document still has a live job anywhere in the pipeline.
 */
export const PIPELINE_QUEUES = ['section', 'embed', 'index'] as const;
export type PipelineQueueName = (typeof PIPELINE_QUEUES)[number];

export interface SectionPayload {
  indexId: number;
  docs: DocumentRef[];
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

export interface EmbeddedDoc extends DocumentRef {
  sections: (PlainSection & { vector: string | null })[] | null;
}

export interface IndexPayload {
  indexId: number;
  model: string;
  docs: EmbeddedDoc[];
}

export interface PayloadOf {
  section: SectionPayload;
  embed: EmbedPayload;
  index: IndexPayload;
}

/** Vectors travel through Redis as base64 of their float32 bytes: compact and exact. */
export const encodeVector = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
export function decodeVector(s: string): Float32Array {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
