import { Router, type Request } from 'express';
import type { Variant } from '../../shared/storage/ports/configuration-store.js';
import {
  autocompleteSchema, feedbackSchema, supportForwardSchema, topQuestionsSchema, widgetSearchSchema,
} from '../schemas/search-interface-schemas.js';
import { validate } from '../schemas/validate.js';
import type { WidgetSearchService } from '../services/widget-search-service.js';
import type { WidgetUsageService } from '../services/widget-usage-service.js';

export const VARIANTS: Variant[] = ['tool', 'ui'];

/**
 * Parameters as API.md says: the query string, overlaid by a JSON body on POST (the body wins);
 * `session-id` may also come as the X-Session-Id header.
 */
export function paramsOf(req: Request): Record<string, unknown> {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  const params: Record<string, unknown> = { ...(req.query as Record<string, unknown>), ...body };
  const header = req.get('x-session-id');
  if (params['session-id'] === undefined && header) params['session-id'] = header;
  return params;
}

/** The search interface, both variants (API.md section A): addressed by configuration uid, no API key. */
export function searchInterfaceRouter(search: WidgetSearchService, usage: WidgetUsageService): Router {
  const r = Router();
  for (const variant of VARIANTS) {
    const base = `/v1/${variant}`;
    const runSearch = async (req: Request) => {
      const p = validate(widgetSearchSchema, paramsOf(req));
      return search.search(variant, { uid: p.uid, sessionId: p['session-id'], query: p.query, preview: p.preview, device: p.device, retrieval: p.retrieval });
    };
    r.get(`${base}/search`, async (req, res) => {
      res.json(await runSearch(req));
    });
    r.post(`${base}/search`, async (req, res) => {
      res.json(await runSearch(req));
    });
    r.get(`${base}/autocomplete`, (req, res) => {
      const p = validate(autocompleteSchema, paramsOf(req));
      res.json(usage.autocomplete(variant, p.uid, p.query, p.limit));
    });
    r.post(`${base}/feedback`, (req, res) => {
      const p = validate(feedbackSchema, paramsOf(req));
      usage.click(variant, p.feedback_data);
      res.status(204).end();
    });
    r.post(`${base}/support-forward`, (req, res) => {
      const p = validate(supportForwardSchema, paramsOf(req));
      usage.supportForward(variant, { uid: p.uid, url: p.url, sessionId: p['session-id'], device: p.device });
      res.status(204).end();
    });
    r.get(`${base}/top-questions`, (req, res) => {
      const p = validate(topQuestionsSchema, paramsOf(req));
      res.json(usage.topQuestions(variant, p.uid));
    });
  }
  return r;
}
