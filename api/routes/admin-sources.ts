import { Router } from 'express';
import { requirePermission } from '../middleware/auth.js';
import { createSourceSchema, sourceListQuerySchema, updateSourceSchema } from '../schemas/source-schemas.js';
import { pageOf, storePage, uidCursor } from '../schemas/list-page.js';
import { validate } from '../schemas/validate.js';
import { boundPathParams } from '../schemas/path-params.js';
import type { SourceService } from '../services/source-service.js';

/** Admin API for website sources (API.md "Website sources"). */
export function adminSourcesRouter(service: SourceService): Router {
  const r = boundPathParams(Router());
  r.use('/v1/admin/sources', requirePermission('admin'));

  r.post('/v1/admin/sources', async (req, res) => {
    res.status(201).json(await service.view(await service.create(validate(createSourceSchema, req.body ?? {}))));
  });
  r.get('/v1/admin/sources', async (req, res) => {
    const q = validate(sourceListQuerySchema, req.query);
    const page = pageOf(await service.list(storePage(q)), q.limit, uidCursor, (s) => s.uid);
    res.json({ sources: page.rows, next_cursor: page.next_cursor });
  });
  r.get('/v1/admin/sources/:uid', async (req, res) => {
    res.json(await service.view(await service.get(req.params.uid)));
  });
  r.patch('/v1/admin/sources/:uid', async (req, res) => {
    res.json(await service.view(await service.update(req.params.uid, validate(updateSourceSchema, req.body ?? {}))));
  });
  r.delete('/v1/admin/sources/:uid', async (req, res) => {
    await service.delete(req.params.uid);
    res.status(204).end();
  });
  r.post('/v1/admin/sources/:uid/crawl', async (req, res) => {
    res.status(202).json(await service.view(await service.startCrawl(req.params.uid)));
  });
  return r;
}
