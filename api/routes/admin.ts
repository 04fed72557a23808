import { Router } from 'express';
import { createApiKey, scopeOf, type Authenticator } from '../../shared/auth/api-keys.js';
import { AppError } from '../../shared/errors/app-error.js';
import { indexDefinitionSchema } from '../../shared/indexes/index-schema.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { requirePermission } from '../middleware/auth.js';
import { createKeySchema, createPushIndexSchema, indexListQuerySchema, keyListQuerySchema } from '../schemas/admin-schemas.js';
import { createdCursor, pageOf, storePage, uidCursor } from '../schemas/list-page.js';
import { validate } from '../schemas/validate.js';
import { boundPathParams } from '../schemas/path-params.js';
import { adminDocumentsRouter } from './admin-documents.js';
import type { IndexService } from '../services/index-service.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Admin API: keys and indexes. Needs the master key or a key with the `admin` permission. */
export function adminRouter(storage: Storage, indexes: IndexService, auth: Authenticator): Router {
  const r = boundPathParams(Router());
  r.use('/v1/admin', requirePermission('admin'));

  r.post('/v1/admin/keys', async (req, res) => {
    const body = validate(createKeySchema, req.body ?? {});
    res.status(201).json(await createApiKey(storage.keys, body));
  });

  r.get('/v1/admin/keys', async (req, res) => {
    const q = validate(keyListQuerySchema, req.query);
    const page = pageOf(await storage.keys.list(storePage(q)), q.limit, createdCursor, (k) => k);
    res.json({
      keys: page.rows.map((k) => ({
        id: k.id, name: k.name, prefix: k.prefix, permissions: k.permissions, indexes: scopeOf(k),
        created_at: iso(k.createdAt), revoked_at: iso(k.revokedAt), last_used_at: iso(k.lastUsedAt),
      })),
      next_cursor: page.next_cursor,
    });
  });

  r.delete('/v1/admin/keys/:id', async (req, res) => {
    auth.forget();
    if (!(await storage.keys.revoke(req.params.id))) throw new AppError('not_found', `API key '${req.params.id}' does not exist or is already revoked`);
    // Sessions re-check their key on every request anyway; this drops the rows they no longer need.
    await storage.sessions.deleteOfKey(req.params.id);
    res.status(204).end();
  });

  r.post('/v1/admin/indexes', async (req, res) => {
    const body = validate(createPushIndexSchema, req.body ?? {});
    validate(indexDefinitionSchema.shape.language_code, body.language_code, 'invalid_index');
    const { index, created } = await indexes.createPushIndex(body.uid, body.language_code);
    res.status(created ? 201 : 200).json(await indexes.view(index));
  });

  r.get('/v1/admin/indexes', async (req, res) => {
    const q = validate(indexListQuerySchema, req.query);
    const page = pageOf(await storage.indexes.list(storePage(q)), q.limit, uidCursor, (i) => i.uid);
    res.json({ indexes: await Promise.all(page.rows.map((i) => indexes.view(i))), next_cursor: page.next_cursor });
  });

  r.get('/v1/admin/indexes/:uid', async (req, res) => {
    const index = await storage.indexes.get(req.params.uid);
    if (!index) throw new AppError('index_not_found', `Index '${req.params.uid}' does not exist`);
    res.json(await indexes.view(index));
  });
  r.use(adminDocumentsRouter(storage));

  return r;
}
