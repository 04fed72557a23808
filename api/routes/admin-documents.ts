import { Router } from 'express';
import { AppError } from '../../shared/errors/app-error.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { adminDocumentsQuerySchema } from '../schemas/admin-app-schemas.js';
import { validate } from '../schemas/validate.js';
import { boundPathParams } from '../schemas/path-params.js';

/**
 * Document browsing for operators, push and content indexes alike (the push listing refuses
 * content indexes), and a document's sections as search holds them. Mounted inside the admin router.
 */
export function adminDocumentsRouter(storage: Storage): Router {
  const r = boundPathParams(Router());
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
