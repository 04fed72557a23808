import { z } from 'zod';
import { isoDate } from '../../shared/indexes/document-schema.js';
import { ownRecord } from '../../shared/records/own-record-schema.js';

export const documentUidSchema = z
  .string()
  .min(1, 'must be 1-512 characters')
  .max(512, 'must be 1-512 characters');

const httpUrl = z
  .string()
  .max(8192)
  .refine((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

/** Body of PUT /v2/indexes/{index_uid}/documents/{document_uid}. Unknown fields are refused so typos surface. */
export const pushDocumentSchema = z.strictObject({
  title: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'),
  content: z.string(),
  source_url: httpUrl.nullish(),
  last_modified: isoDate.nullish(),
});
export type PushDocument = z.infer<typeof pushDocumentSchema>;

export const listQuerySchema = z.object({
  limit: z.coerce.number().int('must be an integer').min(1, 'must be between 1 and 1000').max(1000, 'must be between 1 and 1000').default(20),
  'after-uid': documentUidSchema.optional(),
});

export const listResponseSchema = z.object({
  documents: z.array(z.object({ uid: z.string(), title: z.string(), content: z.string() })),
});

/** Batch upsert/delete: POST /v2/indexes/{index_uid}/documents. */
export const batchRequestSchema = z.strictObject({
  // Each document is checked on its own below; ownRecord keeps a `__proto__` key so that check refuses it by name.
  documents: z.array(ownRecord(z.string(), z.unknown()).describe('A document: its `uid` and the fields of the single-document PUT')).max(10000).default([]),
  delete: z.array(documentUidSchema).max(10000).default([]),
});

export const batchResultSchema = z.object({
  uid: z.string(),
  operation: z.enum(['upsert', 'delete']),
  status: z.enum(['accepted', 'unchanged', 'rejected']),
  code: z.number().int().optional(),
  message: z.string().optional(),
});
export const batchResponseSchema = z.object({
  accepted: z.number().int(),
  unchanged: z.number().int(),
  rejected: z.number().int(),
  results: z.array(batchResultSchema),
});

export const progressSchema = z.object({
  index_uid: z.string(),
  documents: z.number().int(),
  indexed: z.number().int(),
  pending: z.number().int(),
  pending_deletes: z.number().int(),
  failed: z.number().int(),
  last_error: z.object({ uid: z.string(), message: z.string(), at: z.string() }).nullable(),
  embedder: z.string().nullable(),
});
