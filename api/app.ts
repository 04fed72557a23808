import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../shared/config/config.js';
import { PIPELINE_QUEUES } from '../shared/jobs/pipeline-jobs.js';
import { enqueueIndexJobs, type PipelineQueues } from '../shared/jobs/pipeline-queues.js';
import { JobMetrics } from '../shared/metrics/job-metrics.js';
import { Authenticator } from '../shared/auth/api-keys.js';
import { WebSessions } from '../shared/auth/web-sessions.js';
import { newJobId } from '../shared/jobs/job-id.js';
import { redisErrorLog, redisReady } from '../shared/redis/connect-redis.js';
import { collectAndReleaseMemory } from '../shared/native/mmap-addon.js';
import type { Storage } from '../shared/storage/create-storage.js';
import { requireKey, requirePermission } from './middleware/auth.js';
import { errorHandler, notFound } from './middleware/error-handler.js';
import { rejectNulInUrl } from './middleware/reject-nul.js';
import { hasBody, jsonBody, refuseUnread } from './middleware/json-body.js';
import { httpLatency, httpMetrics } from './middleware/http-metrics.js';
import { directPush } from './routes/direct-push.js';
import { firstDirect, protocolOf, type DirectDeps } from './routes/direct-route.js';
import { directSearchInterface } from './routes/direct-search-interface.js';
import proxyAddr from 'proxy-addr';
import { requestLog } from './middleware/request-log.js';
import { adminRouter } from './routes/admin.js';
import { adminSessionRouter } from './routes/admin-session.js';
import { webAppRouter } from './routes/web-app.js';
import { widgetRouter } from './routes/widget.js';
import { KeyFailureLimiter } from './middleware/key-failure-limit.js';
import { contentDocumentsRouter } from './routes/content-documents.js';
import { contentIndexesRouter } from './routes/content-indexes.js';
import { contentSearchRouter, directContentSearch } from './routes/content-search.js';
import { operationsRouter } from './routes/operations.js';
import { isMetricsToken, optionalKey, requireMetricsAccess } from './middleware/operations-access.js';
import { DASHBOARD_PATH, dashboardAccess } from './middleware/dashboard-access.js';
import { queueDashboard } from './routes/queue-dashboard.js';
import { securityHeaders } from './middleware/security-headers.js';
import { pushDocumentsRouter } from './routes/push-documents.js';
import { ContentDocumentService } from './services/content-document-service.js';
import type { IndexState } from '../shared/search/engine/index-state.js';
import { ContentSearch } from '../shared/search/operations/content-search.js';
import { ContentEngine } from '../shared/search/engine/content-engine.js';
import { DocumentWriter } from '../shared/documents/document-writer.js';
import { IndexService } from './services/index-service.js';
import { PushService } from './services/push-service.js';
import { serverSecret } from '../shared/auth/keyed-hash.js';
import { FeedbackSigner } from '../shared/feedback/feedback-token.js';
import type { Embedder } from '../shared/llm/ports/embedder.js';
import { adminConfigurationsRouter } from './routes/admin-configurations.js';
import { adminOperationsRouter } from './routes/admin-operations.js';
import { adminSourcesRouter } from './routes/admin-sources.js';
import { SourceService } from './services/source-service.js';
import { CRAWL_QUEUE, createCrawlQueue } from '../shared/jobs/crawl-queue.js';
import { isPreview, paramsOf, searchInterfaceRouter, uidParam } from './routes/search-interface.js';
import { searchRateLimit } from './middleware/rate-limit.js';
import { exposeRefusal, searchCors } from './middleware/search-cors.js';
import { ConfigurationService } from './services/configuration-service.js';
import { EventRecorder } from './services/event-recorder.js';
import { SearchInterfaceService } from './services/search-interface-service.js';
import { SearchInterfaceUsageService } from './services/search-interface-usage-service.js';
import { SearchInterfaceAnswerService } from './services/search-interface-answer-service.js';
import { GenerationClient } from './services/generation-client.js';
import { createGenerationQueue, GENERATION_QUEUE } from '../shared/generation/generation-queue.js';

/** Search-interface and sign-in bodies: a few short fields (feedback_data, the largest, is at most 8 KB). */
const SMALL_BODY = { limit: 32 * 1024, limitName: 'search interface and sign-in requests', deadlineMs: 10_000 };
/** Admin bodies: configurations, instant answers (100,000 characters of HTML), source settings. */
const ADMIN_BODY_BYTES = 2 * 1024 * 1024;

export interface AppDeps {
  config: Config;
  storage: Storage;
  redis: Redis;
  queues: PipelineQueues;
  log: Logger;
  /** Embeds search-interface queries; null serves the keyword ranking alone. */
  embedder?: Embedder | null;
  /** How /metrics reads the process metrics collected in `registry`; by default that registry alone (one API process). */
  metricsReader?: (registry: Registry) => () => Promise<string>;
}

/**
 * Loads the search indexes into memory in the background, so the first visitors after a start are not
 * slowed. With the keyword leg and the vectors in Qdrant nothing is loaded: the process holds no index.
 */
export function warmApp(app: Express, log: Logger): void {
  if (app.locals.holdsNoIndex) {
    log.info({ ms: 0 }, 'search indexes loaded (none held here: the keyword leg and vectors are in Qdrant)');
    return;
  }
  const engine = app.locals.engine as ContentEngine;
  let lastError = 0;
  engine.startFollowing(
    (err) => {
      // A store that is down fails every pass: once a minute in the log is enough.
      if (Date.now() - lastError < 60_000) return;
      lastError = Date.now();
      log.error({ err }, 'keeping search indexes current failed; searches catch up on their own meanwhile');
    },
    undefined,
    (ms) => log.info({ ms: Math.round(ms) }, 'search indexes loaded'),
  );
}

/** Writes what the app still buffers (search events); call before closing storage. */
export async function flushApp(app: Express): Promise<void> {
  await (app.locals.recorder as EventRecorder | undefined)?.flush();
}

/** Flushes buffered events and closes the app's own connections (generation queue and results channel). */
export async function closeApp(app: Express): Promise<void> {
  await flushApp(app);
  await (app.locals.close as (() => Promise<void>) | undefined)?.();
}

/** How long building the app waits for Redis to be ready before serving regardless. */
const REDIS_READY_WAIT_MS = 3000;

/** Builds the Express app without listening, so tests drive the real app over a real socket. */
export async function buildApp(deps: AppDeps): Promise<Express> {
  const { config, storage, queues, log } = deps;
  // Awaited at the end, so the connection is made while the rest is built (see redisReady).
  const redisUp = redisReady(deps.redis, REDIS_READY_WAIT_MS);
  const app = express();
  app.disable('x-powered-by');
  // No ETag on JSON answers: hashing every body (and copying it into a Buffer first) was ~4% of a content
  // search's CPU, and search answers are not revalidated. Static files and the widget bundle set their own.
  app.set('etag', false);
  app.set('trust proxy', config.http.trustProxy);
  app.set('query parser', 'simple');

  const auth = new Authenticator(storage.keys, config.auth.masterKey, (err) => log.warn({ err }, 'recording when a key was last used failed'));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const writer = new DocumentWriter((w) => storage.documents.applyWrites(w), queues, log, { batchSize: config.pipeline.batchSize });
  const push = new PushService(storage, writer);
  const indexes = new IndexService(storage, async (index) => {
    const batches = await storage.documents.requeueIndex(index.id, () => newJobId('l', index.id), config.pipeline.batchSize);
    // The documents are pending in the store now: when Redis does not take the jobs, the reconciler re-creates them.
    await enqueueIndexJobs(queues, batches.map((b) => ({ indexId: index.id, jobId: b.job })))
      .catch((err) => log.warn({ err, index: index.uid }, 'reindex jobs not enqueued; the reconciler will enqueue them'));
  }, config.limits.maxIndexes);

  const secret = await serverSecret(config.auth.secret, storage.keys);
  const signer = new FeedbackSigner(secret);
  const sessions = new WebSessions(storage.sessions, storage.keys, secret, config.auth.masterKey, config.auth.sessionTtlMs);
  const recorder = new EventRecorder(storage.events, log);
  app.locals.recorder = recorder;
  const embedder = deps.embedder ?? null;
  const engine = new ContentEngine(storage, embedder?.id ?? null, config.search.timeoutMs, log, config.search.engineMemoryBytes, {
    // The API processes of a data folder share its snapshot files: the first slot writes them.
    writesSnapshots: config.http.slot === null || config.http.slot === 0,
    // A load from the store leaves the store's caches full of pages it read once (up to 64 MB per SQLite file).
    releaseFreeMemory: () => {
      storage.releaseCache?.();
      collectAndReleaseMemory();
    },
  });
  app.locals.engine = engine;
  app.locals.holdsNoIndex = storage.keywords !== null && storage.vectors !== null;
  const searchInterface = new SearchInterfaceService(storage, engine, embedder, signer, secret, recorder, log, config.learning);
  const searchInterfaceUsage = new SearchInterfaceUsageService(storage, searchInterface, signer, secret, recorder, config.learning);
  // A subscribed Redis connection can do nothing else: generation results arrive on one of their own.
  const generationQueue = createGenerationQueue(deps.redis, config.redis.prefix);
  const subscriber = deps.redis.duplicate();
  const generation = new GenerationClient(generationQueue, deps.redis, subscriber, config.redis.prefix, config.generation.timeoutMs);
  const searchInterfaceAnswers = new SearchInterfaceAnswerService(storage, searchInterface, generation, signer, secret);
  const crawlQueue = createCrawlQueue(deps.redis, config.redis.prefix, config.pipeline.attempts);
  const onRedisError = redisErrorLog(log, 'Redis unavailable: jobs are not queued and answers fail until it answers');
  for (const q of [...PIPELINE_QUEUES.map((n) => queues[n]), generationQueue, crawlQueue] as Queue[]) q.on('error', onRedisError);
  subscriber.on('error', onRedisError);
  app.locals.close = async () => {
    // Not awaited: a pass under way may be loading a large index from the store, and shutting down does not wait for it.
    void engine.stopFollowing();
    await writer.flushJobs();
    await generationQueue.close();
    await crawlQueue.close();
    subscriber.disconnect();
  };

  const latency = httpLatency(registry);
  app.use(securityHeaders);
  app.use(requestLog(log));
  app.use(httpMetrics(latency));
  app.use(rejectNulInUrl);
  // No body is read before its route group's authentication or rate limit (docs/security.md): each group
  // mounts jsonBody after those, with a limit of its own.
  const pushBody = jsonBody({ limit: config.http.maxBodyBytes, limitName: 'QUARRY_MAX_BODY_BYTES' });

  // The push routes come first: they carry the traffic, and every layer before them is tested per request.
  // The web app's session cookie works wherever the app calls; on /v2 only to read (pushing takes a key).
  // Wrong keys count per client wherever they are tried: at sign-in, on every keyed route, for metrics.
  const keyFailures = new KeyFailureLimiter(deps.redis, `${config.redis.prefix}:rl`, undefined,
    redisErrorLog(log, 'wrong-key limits counted per process: Redis unavailable'));
  const keyed = requireKey(auth, keyFailures, { sessions });
  // The single-document PUT and both searches in their plain forms are answered before the app routes
  // (createHttpServer; app.locals.direct, set once the searches exist below), with the client address
  // `req.ip` gives (Express compiled 'trust proxy' when it was set, above).
  const trusted = app.get('trust proxy fn') as (addr: string, i: number) => boolean;
  const direct: DirectDeps = {
    auth, keyFailures, latency, log, maxBodyBytes: config.http.maxBodyBytes,
    addressOf: (req) => proxyAddr(req, trusted),
  };
  const directPushRoute = directPush({ ...direct, push });
  app.use('/v2', requireKey(auth, keyFailures, { sessions, sessionsReadOnly: true }), pushBody);
  app.use(pushDocumentsRouter(push, config.http.maxBatchDocuments));

  // Anonymous callers learn whether the service is ready, not why; metrics need a token or an admin key.
  app.use('/readyz', optionalKey(auth, keyFailures));
  app.use('/metrics', optionalKey(auth, keyFailures, (s) => isMetricsToken(config.http.metricsToken, s)), requireMetricsAccess(config.http.metricsToken));
  const processMetrics = deps.metricsReader?.(registry) ?? (() => registry.metrics());
  app.use(operationsRouter({ storage, redis: deps.redis, queues, processMetrics, jobMetrics: new JobMetrics(deps.redis, config.redis.prefix) }));
  // Imported on the first request: the document's JSON Schemas took ~0.1 s of every API process's start.
  app.get('/openapi.json', (_req, res, next) => {
    import('./openapi/openapi-document.js').then(({ openApiDocument }) => res.json(openApiDocument()), next);
  });
  app.use(webAppRouter(config.http.webDir));
  app.use(widgetRouter(config.http.widgetDir));

  if (config.http.dashboard) {
    const dashboard = queueDashboard([...PIPELINE_QUEUES.map((n) => queues[n]), crawlQueue]);
    app.use(DASHBOARD_PATH, ...dashboardAccess(auth, keyFailures, sessions, secret), dashboard);
  }

  const safety = searchSafety(deps);
  app.use(['/v1/tool', '/v1/ui'], ...safety.middleware);
  app.use(searchInterfaceRouter(searchInterface, searchInterfaceUsage, searchInterfaceAnswers, [keyed, requirePermission('read')]));

  app.post('/v1/admin/session', keyFailures.gate(), jsonBody({ ...SMALL_BODY, deadlineMs: Math.min(SMALL_BODY.deadlineMs, config.http.requestTimeoutMs) }));
  app.use(adminSessionRouter(auth, sessions, keyFailures));
  app.use('/v1/content', keyed, pushBody);
  app.use('/v1/admin', keyed, jsonBody({ limit: Math.min(ADMIN_BODY_BYTES, config.http.maxBodyBytes), limitName: 'admin requests' }));
  app.use(contentIndexesRouter(indexes));
  app.use(contentDocumentsRouter(new ContentDocumentService(storage, writer)));
  const contentSearch = new ContentSearch(engine, storage.keywords ? { keywords: storage.keywords, storage } : null);
  const warmUp = async (state: IndexState, pause: () => Promise<void> = async () => {}) => {
    await searchInterface.warm(state, pause);
    await contentSearch.warm(state, pause);
  };
  app.locals.warmUp = warmUp;
  engine.onGrown(async (state, pause) => {
    try {
      await warmUp(state, pause);
    } catch (err) {
      // Only a warm-up: the visitor's own search reports whatever this was.
      log.warn({ err, index: state.index.uid }, 'search warm-up failed');
    }
  });
  app.use(contentSearchRouter(contentSearch));
  app.locals.direct = firstDirect(
    directPushRoute,
    directContentSearch({ ...direct, search: contentSearch }),
    directSearchInterface({ ...direct, search: searchInterface, allowedOriginsOf: safety.allowedOriginsOf, limits: safety.limits, protocolOf: (req) => protocolOf(req, trusted) }),
  );
  app.use(adminRouter(storage, indexes, auth));
  app.use(adminConfigurationsRouter(new ConfigurationService(storage), storage));
  app.use(adminSourcesRouter(new SourceService(storage, indexes, push, crawlQueue, { allowPrivate: config.crawl.allowPrivate })));
  // Generations are jobs too: a stuck or failing generator shows on the operations page beside the pipeline.
  app.use(adminOperationsRouter({ storage, redis: deps.redis, queues: { ...queues, [GENERATION_QUEUE]: generationQueue, [CRAWL_QUEUE]: crawlQueue }, dashboard: config.http.dashboard }));
  app.use(notFound);
  app.use(errorHandler);
  if (!(await redisUp)) log.warn({ waitedMs: REDIS_READY_WAIT_MS }, 'Redis is not ready: serving anyway (rate limits let requests through, queue writes wait, readiness says so)');
  return app;
}

/**
 * CORS from each configuration's allowed origins, then rate limits per client address and per uid
 * (docs/public-safety.md). Previews are limited in this process's memory: they must leave no trace,
 * not even a counter in Redis.
 */
function searchSafety({ config, storage, redis, log }: AppDeps) {
  const uidOf = (req: Request) => uidParam(paramsOf(req));
  // Searches and suggestions are counted beside their work (their routes wait for the count before answering).
  const overlaps = (req: Request) => req.path === '/search' || req.path === '/autocomplete';
  const limits = { prefix: `${config.redis.prefix}:rl`, perClient: config.rateLimit.client, perUid: config.rateLimit.uid, uidOf, overlaps };
  let lastWarning = 0;
  const onError = (err: unknown) => {
    // Once a minute is enough to tell an operator that limits are off while Redis is away.
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    log.warn({ err }, 'rate limits skipped: Redis unavailable');
  };
  const shared = searchRateLimit({ ...limits, redis, onError });
  const local = searchRateLimit({ ...limits, redis: null });
  const limitOf = (req: Request) => (isPreview(paramsOf(req)) ? local : shared);
  // Before the body is read, only the query string can say "preview" (paramsOf must not run yet: it caches).
  const previewByQuery = (req: Request) => ['true', '1'].includes(req.query.preview as string);
  /** A client address this process already saw over its limit gets its 429 before its body is read. */
  const refuseKnownBlocked = (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    const refused = (previewByQuery(req) ? local : shared).knownBlocked(req);
    if (!refused) return next();
    exposeRefusal(req, res);
    refuseUnread(req, res, next, refused);
  };
  const body = jsonBody({ ...SMALL_BODY, deadlineMs: Math.min(SMALL_BODY.deadlineMs, config.http.requestTimeoutMs) });
  const allowedOriginsOf = async (uid: string) => (await storage.configurations.get(uid))?.allowedOrigins ?? null;
  return {
    middleware: [
      refuseKnownBlocked,
      body,
      searchCors(allowedOriginsOf, uidOf),
      (req: Request, res: Response, next: NextFunction) => limitOf(req)(req, res, next),
    ],
    // The same decisions for the search route answered before Express (direct-search-interface.ts).
    allowedOriginsOf,
    limits: { shared, local },
  };
}
