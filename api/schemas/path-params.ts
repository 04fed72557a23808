import type { Router } from 'express';
import { z } from 'zod';
import { validate } from './validate.js';

const bounded = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/**
 * The identifiers routes take from their path, by parameter name, with the longest any real one can be
 * (index uids 64, configuration and source uids 100, document uids 512, key, answer and conversation ids 200),
 * so a 16 KB path segment is a 400 naming it, not a lookup and a 404 echoing it back.
 */
const PATH_PARAMS: Record<string, z.ZodType<string>> = {
  index_uid: bounded(64),
  index: bounded(64),
  uid: bounded(100),
  document_uid: bounded(512),
  doc: bounded(512),
  id: bounded(200),
};

/** Registers the bounds on a router (Express runs param handlers once per request, before its routes). */
export function boundPathParams(r: Router): Router {
  for (const [name, schema] of Object.entries(PATH_PARAMS)) {
    const shape = z.object({ [name]: schema });
    r.param(name, (_req, _res, next, value: string) => {
      try {
        validate(shape, { [name]: value });
        next();
      } catch (err) {
        next(err);
      }
    });
  }
  return r;
}
