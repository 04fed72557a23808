import { Router } from 'express';
import { indexDefinitionSchema } from '../../shared/indexes/index-schema.js';
import { requirePermission } from '../middleware/auth.js';
import { validate } from '../schemas/validate.js';
import type { IndexService } from '../services/index-service.js';

/** Content interface: create or update an index (API.md section C). */
export function contentIndexesRouter(indexes: IndexService): Router {
  const r = Router();
  r.post('/v1/content/indexes', requirePermission('write', 'uid'), async (req, res) => {
    const def = validate(indexDefinitionSchema, req.body ?? {}, 'invalid_index');
    await indexes.upsert(def.uid, def.language_code, def.schema.fields);
    res.status(200).json({});
  });
  return r;
}
