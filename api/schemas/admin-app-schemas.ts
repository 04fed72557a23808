import { z } from 'zod';
import { documentUidSchema } from './push-schemas.js';

/** Admin routes the operators' web app reads: document browsing and inspection, operations. */
export const adminDocumentsQuerySchema = z.strictObject({
  cursor: documentUidSchema.optional().describe('`next_cursor` of the previous page; absent: from the first document'),
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100').default(20),
});

export const adminDocumentsSchema = z.object({
  documents: z.array(z.object({ uid: z.string(), title: z.string().optional(), version: z.number(), status: z.string() })),
  next_cursor: z.string().nullable(),
});

export const adminSectionsSchema = z.object({
  index_uid: z.string(),
  document_uid: z.string(),
  version: z.number().nullable().describe('The live (searched) version; null while the first one is pending'),
  sections: z.array(z.object({ ord: z.number(), field: z.string(), title: z.string(), anchor: z.string().nullable(), text: z.string() })),
});

export const adminOperationsSchema = z.object({
  health: z.object({ redis: z.string().describe("'ok' or 'down: <why>'"), storage: z.string().describe("'ok' or 'down: <why>'") }),
  queues: z.array(z.object({
    name: z.string(), waiting: z.number(), active: z.number(), delayed: z.number(), prioritized: z.number(), failed: z.number(), completed: z.number(),
    oldest_waiting_seconds: z.number(),
  })).describe('Empty when Redis did not answer'),
  failed_jobs: z.array(z.object({
    queue: z.string(), id: z.string(), name: z.string(), reason: z.string(), attempts: z.number(), failed_at: z.string().nullable(),
    index_uid: z.string().optional(),
  })).describe('The latest 50 over every pipeline queue, newest first'),
  dashboard: z.string().nullable().describe('Path of the queue dashboard, null when QUARRY_DASHBOARD=false'),
});
