import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../shared/errors/app-error.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { documentUidSchema } from '../schemas/push-schemas.js';
import { validate } from '../schemas/validate.js';

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

/**
 * Document browsing for operators, push and content indexes alike (the push listing refuses
 * content indexes), and a document's sections as search holds them. Mounted inside the admin router.
 */
export function adminDocumentsRouter(storage: Storage): Router {
  const r = Router();
  const indexOf = async (uid: string): Promise<IndexRecord> => {
    const index = await storage.indexes.get(uid);
    if (!index) throw new AppError('index_not_found', `Index '${uid}' does not exist`);
    return index;
  };

  r.get('/v1/admin/indexes/:uid/documents', async (req, res) => {
    const q = validate(adminDocumentsQuerySchema, req.query);
    const index = await indexOf(req.params.uid);
    const page = await storage.documents.list(index.id, q.limit + 1, q.cursor ?? null);
    const shown = page.slice(0, q.limit);
    const docs = await Promise.all(shown.map(async ({ uid, fields }) => {
      const doc = await storage.documents.get(index.id, uid);
      return {
        uid, ...(typeof fields.title === 'string' ? { title: fields.title } : {}), version: doc?.version ?? 0, status: doc?.status ?? 'pending',
      };
    }));
    res.json({ documents: docs, next_cursor: page.length > q.limit ? shown[shown.length - 1].uid : null });
  });

  r.get('/v1/admin/indexes/:uid/documents/:doc/sections', async (req, res) => {
    const index = await indexOf(req.params.uid);
    const uid = req.params.doc;
    const [sections, doc] = await Promise.all([storage.sections.sections(index.id, [uid], { vectors: false }), storage.documents.get(index.id, uid)]);
    if (!doc?.fields && sections.length === 0) throw new AppError('not_found', `Document '${uid}' does not exist in index '${index.uid}'`);
    res.json({
      index_uid: index.uid, document_uid: uid, version: sections[0]?.version ?? null,
      sections: sections.map((s) => ({ ord: s.ord, field: s.field, title: s.title, anchor: s.anchor, text: s.text })),
    });
  });
  return r;
}
