import { Router, type Request, type RequestHandler, type Response } from 'express';
import { allows } from '../../shared/auth/api-keys.js';
import { FeedbackSigner } from '../../shared/feedback/feedback-token.js';
import { clientOf } from '../middleware/client.js';
import { admission } from '../middleware/rate-limit.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { Variant } from '../../shared/storage/ports/configuration-store.js';
import {
  autocompleteSchema, chatSchema, conversationsSchema, feedbackSchema, summarySchema, supportForwardSchema, topQuestionsSchema,
  searchInterfaceSchema,
} from '../schemas/search-interface-schemas.js';
import type { RunOptions } from '../services/generation-client.js';
import type { SearchInterfaceAnswerService } from '../services/search-interface-answer-service.js';
import { parseDateRange } from '../schemas/date-param.js';
import { validate } from '../schemas/validate.js';
import type { SearchInterfaceService } from '../services/search-interface-service.js';
import type { SearchInterfaceUsageService } from '../services/search-interface-usage-service.js';

export const VARIANTS: Variant[] = ['tool', 'ui'];

/**
 * Parameters as API.md says: the query string, overlaid by a JSON body on POST (the body wins);
 * `session-id` may also come as the X-Session-Id header.
 */
export function paramsOf(req: Request): Record<string, unknown> {
  // CORS, both rate limiters and the route all read them: merge once per request.
  let params = merged.get(req);
  if (params) return params;
  params = searchParams(req.query as Record<string, unknown>, req.body, req.get('x-session-id'));
  merged.set(req, params);
  return params;
}
const merged = new WeakMap<Request, Record<string, unknown>>();

/** paramsOf's merge, for a request answered before Express too (direct-search-interface.ts). */
export function searchParams(query: Record<string, unknown>, body: unknown, sessionHeader: string | undefined): Record<string, unknown> {
  const fields = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const params = { ...query, ...fields };
  if (params['session-id'] === undefined && sessionHeader) params['session-id'] = sessionHeader;
  return params;
}

/** The configuration uid CORS and the rate limits key on: none when longer than any uid (the route's 400 says so). */
export function uidParam(params: Record<string, unknown>): string | undefined {
  const uid = params.uid;
  return typeof uid === 'string' && uid.length <= 100 ? uid : undefined;
}

/** A preview (the web app's Try it, or feedback on one): counted in this process only, recorded nowhere. */
export function isPreview(params: Record<string, unknown>): boolean {
  return ['true', '1', true].includes(params.preview as string | boolean) || FeedbackSigner.claimsPreview(params.feedback_data);
}

/** The search route's work, counted beside its rate-limit count (`refusal`, see settle). */
export function searchInterfaceSearch(
  search: SearchInterfaceService, variant: Variant, params: Record<string, unknown>, client: string, refusal: Promise<AppError | null>,
): Promise<{ results: unknown[] }> {
  return settle(refusal, (counted) => {
    const p = validate(searchInterfaceSchema, params);
    return search.search(variant, { uid: p.uid, sessionId: p['session-id'], client, query: p.query, preview: p.preview, device: p.device, retrieval: p.retrieval }, counted);
  });
}

/** The search interface, both variants (API.md section A): addressed by configuration uid, no API key. */
export function searchInterfaceRouter(search: SearchInterfaceService, usage: SearchInterfaceUsageService, answers: SearchInterfaceAnswerService, readKey: RequestHandler[]): Router {
  const r = Router();
  for (const variant of VARIANTS) {
    const base = `/v1/${variant}`;
    const runSearch = (req: Request) => searchInterfaceSearch(search, variant, paramsOf(req), clientOf(req), admission(req));
    r.get(`${base}/search`, async (req, res) => {
      res.json(await runSearch(req));
    });
    r.post(`${base}/search`, async (req, res) => {
      res.json(await runSearch(req));
    });
    r.get(`${base}/autocomplete`, async (req, res) => {
      res.json(await settle(admission(req), () => {
        const p = validate(autocompleteSchema, paramsOf(req));
        return usage.autocomplete(variant, p.uid, p.query, p.limit);
      }));
    });
    r.post(`${base}/feedback`, async (req, res) => {
      const p = validate(feedbackSchema, paramsOf(req));
      await usage.click(variant, p.feedback_data, clientOf(req));
      res.status(204).end();
    });
    r.post(`${base}/support-forward`, async (req, res) => {
      const p = validate(supportForwardSchema, paramsOf(req));
      await usage.supportForward(variant, { uid: p.uid, url: p.url, sessionId: p['session-id'], device: p.device });
      res.status(204).end();
    });
    r.get(`${base}/top-questions`, async (req, res) => {
      const p = validate(topQuestionsSchema, paramsOf(req));
      res.json(await usage.topQuestions(variant, p.uid));
    });
    const summary = (req: Request, res: Response) =>
      answer(req, res, (run) => {
        const p = validate(summarySchema, paramsOf(req));
        return answers.summary(variant, {
          uid: p.uid, query: p.query, referenceFormat: p.reference_format, sessionId: p['session-id'], preview: p.preview, device: p.device,
        }, run);
      });
    r.get(`${base}/summary`, summary);
    r.post(`${base}/summary`, summary);
    r.post(`${base}/chat`, (req, res) =>
      answer(req, res, (run) => {
        const p = validate(chatSchema, paramsOf(req));
        return answers.chat(variant, {
          uid: p.uid, query: p.query, conversationId: p['conversation-id'], sessionId: p['session-id'], preview: p.preview, device: p.device,
        }, run);
      }));
    r.get(`${base}/conversations`, ...readKey, async (req, res) => {
      const p = validate(conversationsSchema, paramsOf(req));
      const { from, to } = parseDateRange(p.from, p.to);
      res.json(await answers.conversations(variant, p.uid, from, to, (index) => allows(req.principal!, 'read', index), p));
    });
  }
  return r;
}

/**
 * Runs a route's work beside its rate-limit count (rate-limit.ts, `overlaps`) and answers once the count is
 * in: whatever the work ends in, a refusal answers instead. `work` gets the count to wait for before it
 * records anything.
 */
async function settle<T>(refusal: Promise<AppError | null>, work: (refusal: Promise<AppError | null>) => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work(refusal);
  } catch (err) {
    throw (await refusal) ?? err;
  }
  const refused = await refusal;
  if (refused) throw refused;
  return result;
}

/**
 * Runs a summary or chat answer: as JSON, or, for `Accept: text/event-stream`, as server-sent
 * events (`delta` with text as it is generated, then `references`, then `done` with the whole JSON
 * response; `error` with {code, message} if it fails). A client that disconnects cancels the work.
 */
async function answer(req: Request, res: Response, produce: (run: RunOptions) => Promise<{ references: unknown[] }>): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  if (!(req.get('accept') ?? '').includes('text/event-stream')) {
    const t0 = performance.now();
    let modelMs: number | null = null;
    const body = await produce({ signal: gone.signal, onResult: (r) => (modelMs = r.modelMs) });
    // Where the time went, for dashboards and the generation benchmark (time outside the model).
    const timing = [`total;dur=${(performance.now() - t0).toFixed(1)}`];
    if (modelMs !== null) timing.push(`model;dur=${(modelMs as number).toFixed(1)}`);
    res.set('Server-Timing', timing.join(', ')).json(body);
    return;
  }
  let started = false;
  const send = (event: string, data: unknown) => {
    if (!started) {
      res.status(200).set({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      res.flushHeaders();
      started = true;
    }
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  try {
    const result = await produce({ signal: gone.signal, onDelta: (text) => send('delta', { text }) });
    send('references', result.references);
    send('done', result);
    res.end();
  } catch (err) {
    // Before the first event the error is an ordinary JSON error response; after it, an event.
    if (!started) throw err;
    // The error handler never sees this one: log it (with its internal reason) here.
    req.log?.error({ reqId: req.id, err, ...(err instanceof AppError && err.internal ? { internal: err.internal } : {}) }, 'answer failed after streaming began');
    const body = err instanceof AppError ? { code: err.status, message: err.message } : { code: 500, message: 'Generating the answer failed' };
    send('error', body);
    res.end();
  }
}
