import { Router } from 'express';
import { requirePermission } from '../middleware/auth.js';
import { contentSearchSchema } from '../schemas/content-search-schema.js';
import { validate } from '../schemas/validate.js';
import type { ContentSearch } from '../../shared/search/operations/content-search.js';

/** POST /v1/content/search (API.md section C). */
export function contentSearchRouter(search: ContentSearch): Router {
  const r = Router();
  r.post('/v1/content/search', requirePermission('read', 'index_uid'), async (req, res) => {
    res.json(await search.search(validate(contentSearchSchema, req.body ?? {})));
  });
  return r;
}
