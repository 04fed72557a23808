import { Router } from 'express';
import { AppError } from '../../shared/errors/app-error.js';
import { requirePermission } from '../middleware/auth.js';
import {
  batchRequestSchema, documentUidSchema, listQuerySchema, pushDocumentSchema, type PushDocument,
} from '../schemas/push-schemas.js';
import { validate } from '../schemas/validate.js';
import type { PushService } from '../services/push-service.js';
import { sendAccepted } from './send-accepted.js';

const docUid = (raw: unknown) => validate(documentUidSchema, raw, 'invalid_request');

/** The single-document PUT, as its metric names it. */
export const PUT_DOCUMENT_ROUTE = '/v2/indexes/:index_uid/documents/:document_uid';

/** Document push, API.md section B, plus batch upsert, single-document read and index progress. */
export function pushDocumentsRouter(push: PushService, maxBatch: number): Router {
  const r = Router();
  const base = '/v2/indexes/:index_uid';

  r.get(`${base}/documents`, requirePermission('read', 'index_uid'), async (req, res) => {
    const index = await push.pushIndex(String(req.params.index_uid));
    const q = validate(listQuerySchema, req.query);
    res.json({ documents: await push.list(index, q.limit, q['after-uid'] ?? null) });
  });

  r.put(PUT_DOCUMENT_ROUTE, requirePermission('write', 'index_uid'), async (req, res) => {
    const uid = checkUid(String(req.params.document_uid));
    const index = await push.pushIndex(String(req.params.index_uid));
    const outcome = await push.upsert(index, uid, validate(pushDocumentSchema, req.body ?? {}, 'invalid_document'));
    sendAccepted(res, outcome.version);
  });

  r.delete(`${base}/documents/:document_uid`, requirePermission('write', 'index_uid'), async (req, res) => {
    const uid = checkUid(String(req.params.document_uid));
    const outcome = await push.delete(await push.pushIndex(String(req.params.index_uid)), uid);
    sendAccepted(res, outcome.version);
  });

  r.get(`${base}/documents/:document_uid`, requirePermission('read', 'index_uid'), async (req, res) => {
    const index = await push.pushIndex(String(req.params.index_uid));
    res.json(await push.get(index, checkUid(String(req.params.document_uid))));
  });

  r.post(`${base}/documents`, requirePermission('write', 'index_uid'), async (req, res) => {
    const index = await push.pushIndex(String(req.params.index_uid));
    const body = validate(batchRequestSchema, req.body ?? {});
    const total = body.documents.length + body.delete.length;
    if (total === 0) throw new AppError('invalid_request', 'Invalid request: send `documents` (upserts) and/or `delete` (uids)');
    if (total > maxBatch) {
      throw new AppError('payload_too_large', `A batch holds at most ${maxBatch} documents and deletes; this one has ${total}`);
    }
    type Result = { uid: string; operation: 'upsert' | 'delete'; status: 'accepted' | 'unchanged' | 'rejected'; code?: number; message?: string };
    const results: Result[] = [];
    const upserts: { uid: string; doc: PushDocument; slot: number }[] = [];
    for (const raw of body.documents) {
      const { uid, ...rest } = raw;
      try {
        const id = docUid(uid);
        upserts.push({ uid: id, doc: validate(pushDocumentSchema, rest, 'invalid_document'), slot: results.length });
        results.push({ uid: id, operation: 'upsert', status: 'accepted' });
      } catch (err) {
        const e = err as AppError;
        results.push({ uid: typeof uid === 'string' ? uid : String(uid), operation: 'upsert', status: 'rejected', code: e.status, message: e.message.replace('Invalid request: ', '') });
      }
    }
    const outcomes = await push.upsertMany(index, upserts);
    outcomes.forEach((o, i) => {
      if (o.version === null) results[upserts[i].slot].status = 'unchanged';
    });
    const deletes = await Promise.all(body.delete.map((uid) => push.delete(index, uid)));
    deletes.forEach((o) => results.push({ uid: o.uid, operation: 'delete', status: o.version === null ? 'unchanged' : 'accepted' }));
    const count = (s: Result['status']) => results.filter((x) => x.status === s).length;
    res.json({ accepted: count('accepted'), unchanged: count('unchanged'), rejected: count('rejected'), results });
  });

  r.get(`${base}/status`, requirePermission('read', 'index_uid'), async (req, res) => {
    res.json(await push.progress(await push.pushIndex(String(req.params.index_uid))));
  });

  return r;
}

export function checkUid(raw: string): string {
  try {
    return docUid(raw);
  } catch {
    throw new AppError('invalid_request', `Invalid request: document_uid: must be 1-512 characters (got ${raw.length})`);
  }
}
