import { z } from 'zod';
import { indexUidSchema } from '../../shared/indexes/index-schema.js';
import { createdCursor, pageQuerySchema, uidCursor } from './list-page.js';

export const createKeySchema = z.strictObject({
  name: z.string().min(1, 'must not be empty').max(200),
  permissions: z.array(z.enum(['read', 'write', 'admin'])).min(1, 'give at least one of read, write, admin'),
  indexes: z.array(indexUidSchema).max(1000).nullish()
    .describe('Limits read and write to these indexes; absent or null: all. A key with admin may use every index, so it takes none.'),
}).superRefine((k, ctx) => {
  // admin passes every permission check on every index (allows()): a scope on it would be stored and ignored.
  if (k.permissions.includes('admin') && k.indexes?.length) {
    ctx.addIssue({ code: 'custom', path: ['indexes'], message: 'must be absent for a key with admin, which applies to every index; leave admin out to limit read and write to these indexes' });
  }
});

export const keyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  permissions: z.array(z.string()),
  indexes: z.array(z.string()).nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable().describe('When the key last authenticated a request (to the minute); null: never'),
});

export const createdKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string().describe('The secret. Shown only in this response; store it now.'),
  permissions: z.array(z.string()),
  indexes: z.array(z.string()).nullable(),
});

export const createPushIndexSchema = z.strictObject({
  uid: indexUidSchema,
  language_code: z.string().default('en'),
});

/** Keys oldest first; indexes by uid. */
export const keyListQuerySchema = pageQuerySchema('Keys', createdCursor);
export const indexListQuerySchema = pageQuerySchema('Indexes', uidCursor);
