import { Router } from 'express';
import { requirePermission } from '../middleware/auth.js';
import { contentDocumentBody } from '../schemas/content-schemas.js';
import { documentUidSchema } from '../schemas/push-schemas.js';
import { validate } from '../schemas/validate.js';
import type { ContentDocumentService } from '../services/content-document-service.js';
import { sendAccepted } from './send-accepted.js';

/** Content interface documents (API.md section C): create or update, delete. */
export function contentDocumentsRouter(docs: ContentDocumentService): Router {
  const r = Router();
  r.post('/v1/content/indexes/:index/documents', requirePermission('write', 'index'), async (req, res) => {
    const index = await docs.index(String(req.params.index));
    const body = validate(contentDocumentBody(index.fields), req.body ?? {}, 'invalid_document');
    sendAccepted(res, (await docs.upsert(index, body.uid, body.fields ?? {})).version);
  });

  r.delete('/v1/content/indexes/:index/documents/:uid', requirePermission('write', 'index'), async (req, res) => {
    const index = await docs.index(String(req.params.index));
    const uid = validate(documentUidSchema, String(req.params.uid), 'invalid_request');
    sendAccepted(res, (await docs.delete(index, uid)).version);
  });
  return r;
}
