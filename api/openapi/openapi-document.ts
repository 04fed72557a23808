import { z } from 'zod';
import { indexDefinitionSchema } from '../../shared/indexes/index-schema.js';
import { contentDocumentSchema } from '../schemas/content-schemas.js';
import { contentSearchResponseSchema, contentSearchSchema } from '../schemas/content-search-schema.js';
import {
  adminConversationsSchema, adminTranscriptSchema, configurationViewSchema, createConfigurationSchema, createInstantAnswerSchema,
  conversationListQuerySchema, dateRangeQuerySchema, insightsQuerySchema, insightsSchema, instantAnswerViewSchema, updateConfigurationSchema, updateInstantAnswerSchema,
  configurationListQuerySchema, instantAnswerListQuerySchema,
} from '../schemas/configuration-schemas.js';
import { adminDocumentsQuerySchema, adminDocumentsSchema, adminOperationsSchema, adminSectionsSchema } from '../schemas/admin-app-schemas.js';
import {
  autocompleteSchema, chatResponseSchema, chatSchema, conversationsResponseSchema, conversationsSchema, feedbackSchema, summaryResponseSchema,
  summarySchema, supportForwardSchema, toolSuggestionsSchema, topQuestionsResponseSchema, topQuestionsSchema, uiSuggestionsSchema,
  searchInterfaceResponseSchema, searchInterfaceSchema,
} from '../schemas/search-interface-schemas.js';
import { createdKeySchema, createKeySchema, createPushIndexSchema, indexListQuerySchema, keyListQuerySchema, keyViewSchema } from '../schemas/admin-schemas.js';
import { nextCursorSchema } from '../schemas/list-page.js';
import { blockedSuggestionListQuerySchema, blockedSuggestionSchema, blockedSuggestionsViewSchema } from '../schemas/blocked-suggestion-schemas.js';
import { sessionViewSchema, signInSchema } from '../schemas/session-schemas.js';
import { createSourceSchema, sourceListQuerySchema, sourceListSchema, sourceViewSchema, updateSourceSchema } from '../schemas/source-schemas.js';
import {
  batchRequestSchema, batchResponseSchema, listResponseSchema, progressSchema, pushDocumentSchema,
} from '../schemas/push-schemas.js';

/** Built from the same zod schemas the routes validate with, so the document cannot drift from the code. */
const json = (s: z.ZodType) => ({ 'application/json': { schema: z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) } });
const errorBody = z.object({ code: z.number().int(), message: z.string(), error: z.string(), details: z.unknown().optional() });
const err = (description: string) => ({ description, content: json(errorBody) });
const ok = (description: string, schema?: z.ZodType) => (schema ? { description, content: json(schema) } : { description });
const param = (name: string, where: 'path' | 'query', description: string, schema: object = { type: 'string' }, required = where === 'path') => ({ name, in: where, required, description, schema });

const indexParam = param('index_uid', 'path', 'Unique id of the index');
const docParam = param('document_uid', 'path', 'Caller-chosen document id, 1-512 characters, URL-encoded');
const auth = [{ apiKey: [] }];
/** Wrong keys count per client on every keyed route and at sign-in together (api/middleware/key-failure-limit.ts). */
const keyGuessing = err('10 wrong keys from this client (its address; an IPv6 /64) within 15 minutes, on any keyed route or at sign-in: every key it sends is refused until the window ends; see Retry-After');
const common = { '401': err('Missing or invalid API key'), '403': err('The key lacks the permission or index'), '429': keyGuessing };
/** Every document write: the store refusing it (docs/security.md, failing dependencies). */
const storeWrite = {
  '503': err('The document store cannot take writes now (SQLite: its commit thread is restarting; PostgreSQL: the database is unreachable or has no connection free); retry in a few seconds, repeating a write is safe'),
  '504': err('PostgreSQL did not answer within QUARRY_DATABASE_TIMEOUT_SECONDS; the write may have been saved, repeating it is safe'),
  '507': err('The data folder\'s disk has less free than QUARRY_MIN_FREE_DISK_MB, or is full; nothing stored, retry once space is freed'),
};

/** Query-string parameters straight from an object schema's fields. */
const queryParams = (schema: z.ZodObject) => {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, object>; required?: string[] };
  return Object.entries(json.properties).map(([name, prop]) => ({ name, in: 'query', required: json.required?.includes(name) ?? false, schema: prop }));
};
const widgetErrors = {
  '400': err('A parameter is missing or invalid (named in the message)'), '403': err('Browser origin not in the configuration\'s allowed_origins'),
  '404': err('No configuration of this variant has that uid'), '429': err('Rate limit per client address or per uid; see Retry-After'),
};

const STREAM_NOTE = 'With `Accept: text/event-stream` the answer streams as server-sent events: `delta` {text} as it is generated, then `references`, then `done` with the whole JSON response (`error` {code, message} on failure). A client that disconnects cancels the generation.';
const generationErrors = {
  ...widgetErrors, '502': err('The language model answered with an error'), '503': err('The language model is unreachable or overloaded'),
  '504': err('No answer within QUARRY_GENERATION_TIMEOUT_SECONDS; the generation was cancelled'),
};
const summaryOperation = (name: string, variant: string) => ({
  summary: `Summarize the results of an ${name} for a query, citing them as [n]`,
  description: `${variant === 'ui' ? '`reference_format` html (default) returns references[].content as HTML, markdown as Markdown text. ' : ''}${STREAM_NOTE}`,
  parameters: queryParams(summarySchema),
  responses: { '200': ok('Summary (JSON, or server-sent events)', summaryResponseSchema), ...generationErrors },
});

/** The search interface, per variant (API.md section A): no API key, CORS and rate limits instead. */
function searchInterfacePaths(variant: 'tool' | 'ui') {
  const name = variant === 'tool' ? 'API Tool' : 'API UI';
  const search = {
    summary: `Search an ${name}: hybrid keyword + vector ranking, instant answers first, one paragraph per document`,
    description: 'Parameters in the query string, or for POST in a JSON body (the body wins). `session-id` may come as the X-Session-Id header. With `preview=true` nothing is stored or counted.',
    parameters: queryParams(searchInterfaceSchema),
    responses: { '200': ok('Results', searchInterfaceResponseSchema), ...widgetErrors, '504': err('The search took longer than QUARRY_SEARCH_TIMEOUT_MS and was stopped') },
  };
  return {
    [`/v1/${variant}/search`]: { get: search, post: { ...search, requestBody: { content: json(searchInterfaceSchema) } } },
    [`/v1/${variant}/autocomplete`]: {
      get: {
        summary: variant === 'tool'
          ? 'Suggestions from earlier queries; `null` when none match; 409 before enough earlier queries exist'
          : 'Suggestions from earlier queries as `{suggestion}` objects; `[]` when none match or too few queries exist',
        description: 'A query is suggested only after at least `autocomplete_min_sessions` distinct sessions asked it (privacy), from at least QUARRY_LEARNING_MIN_ADDRESSES distinct client addresses (default 3; sessions are the client\'s to invent), and never when an operator blocked it (`/v1/admin/configurations/{uid}/blocked-suggestions`). Asked from the most addresses first.',
        parameters: queryParams(autocompleteSchema),
        responses: {
          '200': ok('Suggestions', variant === 'tool' ? toolSuggestionsSchema : uiSuggestionsSchema), ...widgetErrors,
          ...(variant === 'tool' ? { '409': err('Fewer earlier queries than the configured minimum (the message says how many exist and are needed)') } : {}),
        },
      },
    },
    [`/v1/${variant}/feedback`]: {
      post: {
        summary: 'Record a click on a result or reference', requestBody: { required: true, content: json(feedbackSchema) },
        responses: { '204': ok('Recorded (a preview\'s click is accepted and dropped)'), '400': err('feedback_data garbled, altered or forged, or type is not click'), '429': widgetErrors['429'] },
      },
    },
    [`/v1/${variant}/support-forward`]: {
      post: {
        summary: 'Record that a user was forwarded to support', requestBody: { required: true, content: json(supportForwardSchema) },
        responses: { '204': ok('Recorded'), ...widgetErrors },
      },
    },
    [`/v1/${variant}/summary`]: {
      get: summaryOperation(name, variant),
      post: { ...summaryOperation(name, variant), requestBody: { content: json(summarySchema) } },
    },
    [`/v1/${variant}/chat`]: {
      post: {
        summary: `Chat with an ${name}: a cited reply, follow-up questions; continues a known conversation-id`,
        description: 'A known conversation-id continues from its latest reply; an unknown one starts a new conversation under that id; none starts one with a new id (returned). A conversation belongs to the session-id that started it: another session-id sending its id gets 404. ' + STREAM_NOTE,
        requestBody: { required: true, content: json(chatSchema) },
        responses: {
          '200': ok('Reply (JSON, or server-sent events)', chatResponseSchema), ...generationErrors,
          '404': err('No configuration of this variant has that uid, or conversation-id names a conversation of another session-id'),
        },
      },
    },
    [`/v1/${variant}/conversations`]: {
      get: {
        summary: 'Conversation ids with the url of each one\'s latest topic, for a date range (needs an API key with read on every index the configuration searches)', security: auth,
        parameters: queryParams(conversationsSchema),
        responses: { '200': ok('Conversations', conversationsResponseSchema), '400': widgetErrors['400'], '401': err('Missing or invalid API key'), '403': err('The key lacks read, or is limited to indexes that leave out one the configuration searches'), '404': widgetErrors['404'], '429': err('Rate limit per client address or per uid, or too many wrong keys from this client; see Retry-After') },
      },
    },
    [`/v1/${variant}/top-questions`]: {
      get: { summary: 'The configuration\'s top questions', parameters: queryParams(topQuestionsSchema), responses: { '200': ok('Questions', topQuestionsResponseSchema), ...widgetErrors } },
    },
  };
}

const configParam = param('uid', 'path', 'Configuration uid');
/** A paged admin listing: `field` holds a page, `next_cursor` continues it. */
const page = (field: string, item: z.ZodType) => z.object({ [field]: z.array(item), next_cursor: nextCursorSchema });
const pageErrors = { '400': err('limit outside 1-1000, or a cursor this API did not give') };
const tooManyIndexes = err('The deployment holds QUARRY_MAX_INDEXES indexes already (default 1000); this one would be one more');
const sourceParam = param('uid', 'path', 'Source uid');

const paths = {
  ...searchInterfacePaths('tool'),
  ...searchInterfacePaths('ui'),
  '/v1/admin/sources': {
    post: { summary: 'Create a website source and its own push index (index_uid: source-<uid>)', security: auth, requestBody: { required: true, content: json(createSourceSchema) }, responses: { '201': ok('Created', sourceViewSchema), '400': err('Invalid settings (named in the message): a bad url, pattern or CSS selector, no start url or sitemap, or a private address'), '409': err('A source with this uid exists, or its index would be one more than QUARRY_MAX_INDEXES'), ...common } },
    get: { summary: 'List website sources by uid, a page at a time, with the progress of their latest crawls', security: auth, parameters: queryParams(sourceListQuerySchema), responses: { '200': ok('Sources', sourceListSchema), ...pageErrors, ...common } },
  },
  '/v1/admin/sources/{uid}': {
    get: { summary: 'One source with the progress of its latest crawl', security: auth, parameters: [sourceParam], responses: { '200': ok('Source', sourceViewSchema), '404': err('Unknown source'), ...common } },
    patch: { summary: 'Change some settings (the next crawl uses them)', security: auth, parameters: [sourceParam], requestBody: { required: true, content: json(updateSourceSchema) }, responses: { '200': ok('Updated', sourceViewSchema), '400': err('Invalid settings'), '404': err('Unknown source'), ...common } },
    delete: { summary: 'Delete a source, its page records and its pages in its index', security: auth, parameters: [sourceParam], responses: { '204': ok('Deleted'), '404': err('Unknown source'), ...common } },
  },
  '/v1/admin/sources/{uid}/crawl': {
    post: { summary: 'Start a crawl now (a crawl already running is left to finish; a queued one gets its job added again if Redis lost it)', security: auth, parameters: [sourceParam], responses: { '202': ok('Queued', sourceViewSchema), '404': err('Unknown source'), '503': err('Redis did not take the crawl job within 2 s; the crawl stays queued, ask again'), ...common } },
  },
  '/v1/admin/configurations': {
    post: { summary: 'Create an API Tool (variant tool) or API UI (variant ui)', security: auth, requestBody: { required: true, content: json(createConfigurationSchema) }, responses: { '201': ok('Created', configurationViewSchema), '400': err('Invalid settings or unknown index'), ...common } },
    get: { summary: 'List configurations, oldest first, a page at a time', security: auth, parameters: queryParams(configurationListQuerySchema), responses: { '200': ok('Configurations', page('configurations', configurationViewSchema)), ...pageErrors, ...common } },
  },
  '/v1/admin/configurations/{uid}': {
    get: { summary: 'One configuration', security: auth, parameters: [configParam], responses: { '200': ok('Configuration', configurationViewSchema), '404': err('Unknown configuration'), ...common } },
    patch: { summary: 'Change some settings', security: auth, parameters: [configParam], requestBody: { required: true, content: json(updateConfigurationSchema) }, responses: { '200': ok('Updated', configurationViewSchema), '400': err('Invalid settings'), '404': err('Unknown configuration'), ...common } },
    delete: { summary: 'Delete a configuration with its instant answers and recorded events', security: auth, parameters: [configParam], responses: { '204': ok('Deleted'), '404': err('Unknown configuration'), ...common } },
  },
  '/v1/admin/configurations/{uid}/instant-answers': {
    post: { summary: 'Add an instant answer (HTML sanitized when saved)', security: auth, parameters: [configParam], requestBody: { required: true, content: json(createInstantAnswerSchema) }, responses: { '201': ok('Created', instantAnswerViewSchema), '400': err('Invalid answer'), '404': err('Unknown configuration'), '409': err('The configuration has 1000 instant answers, the most it may have'), ...common } },
    get: { summary: 'List instant answers, oldest first, a page at a time', security: auth, parameters: [configParam, ...queryParams(instantAnswerListQuerySchema)], responses: { '200': ok('Answers', page('instant_answers', instantAnswerViewSchema)), ...pageErrors, '404': err('Unknown configuration'), ...common } },
  },
  '/v1/admin/configurations/{uid}/instant-answers/{id}': {
    patch: { summary: 'Change an instant answer', security: auth, parameters: [configParam, param('id', 'path', 'Answer id')], requestBody: { required: true, content: json(updateInstantAnswerSchema) }, responses: { '200': ok('Updated', instantAnswerViewSchema), '404': err('Unknown configuration or answer'), ...common } },
    delete: { summary: 'Delete an instant answer', security: auth, parameters: [configParam, param('id', 'path', 'Answer id')], responses: { '204': ok('Deleted'), '404': err('Unknown configuration or answer'), ...common } },
  },
  '/v1/admin/configurations/{uid}/blocked-suggestions': {
    get: { summary: 'Suggestions kept out of autocomplete, by code point, a page at a time', security: auth, parameters: [configParam, ...queryParams(blockedSuggestionListQuerySchema)], responses: { '200': ok('Blocked suggestions', blockedSuggestionsViewSchema), ...pageErrors, '404': err('Unknown configuration'), ...common } },
    put: {
      summary: 'Block a suggestion: autocomplete never offers it, however many visitors ask it (compared normalized: case and spacing do not matter)', security: auth,
      parameters: [configParam], requestBody: { required: true, content: json(blockedSuggestionSchema) },
      responses: { '200': ok('Blocked suggestions now: the first page (`limit` in the query string, default 1000)', blockedSuggestionsViewSchema), '400': err('suggestion missing, empty or too long'), '404': err('Unknown configuration'), '409': err('10,000 suggestions are blocked already'), ...common },
    },
    delete: {
      summary: 'Unblock a suggestion (`suggestion` in the query string or a JSON body); 204 also when it was not blocked', security: auth,
      parameters: [configParam, ...queryParams(blockedSuggestionSchema)],
      responses: { '204': ok('Unblocked'), '400': err('suggestion missing or empty'), '404': err('Unknown configuration'), ...common },
    },
  },
  '/v1/admin/configurations/{uid}/insights': {
    get: {
      summary: 'Insights over a date range: searches, sessions, clicks, CTR, no-result and top queries, click positions, support forwards and their urls, summaries and chats answered and unanswered, devices, per local day', security: auth,
      parameters: [configParam, ...queryParams(insightsQuerySchema)],
      responses: { '200': ok('Aggregates', insightsSchema), '400': err('Bad date range, unknown tz, or limit out of range (named in the message)'), '404': err('Unknown configuration'), ...common },
    },
  },
  '/v1/admin/configurations/{uid}/conversations': {
    get: {
      summary: 'Chat conversations with a turn in the range, latest activity first, with their turn count', security: auth,
      parameters: [configParam, ...queryParams(conversationListQuerySchema)],
      responses: { '200': ok('Conversations', adminConversationsSchema), '400': err('Bad date range, limit or cursor'), '404': err('Unknown configuration'), ...common },
    },
  },
  '/v1/admin/configurations/{uid}/conversations/{id}': {
    get: {
      summary: 'The transcript of a conversation, oldest turn first', security: auth, parameters: [configParam, param('id', 'path', 'Conversation id')],
      responses: { '200': ok('Transcript', adminTranscriptSchema), '404': err('Unknown configuration or conversation'), ...common },
    },
  },
  '/v2/indexes/{index_uid}/documents': {
    get: {
      summary: 'List documents ordered by uid', security: auth,
      parameters: [indexParam, param('limit', 'query', 'Page size, 1-1000, default 20', { type: 'integer' }), param('after-uid', 'query', 'Cursor: list documents after this uid')],
      responses: { '200': ok('A page of documents', listResponseSchema), '400': err('Bad limit or cursor'), '404': err('Unknown index'), ...common },
    },
    post: {
      summary: 'Batch upsert and delete: many documents in one request, one result per document', security: auth,
      description: 'Each entry of `documents` is an upsert body plus its `uid`; `delete` lists uids. Valid entries are stored even when others are rejected; the response says which.',
      parameters: [indexParam], requestBody: { required: true, content: json(batchRequestSchema) },
      responses: { '200': ok('Per-document results', batchResponseSchema), '400': err('Malformed request'), '404': err('Unknown index'), '413': err('Body or batch too large'), ...storeWrite, ...common },
    },
  },
  '/v2/indexes/{index_uid}/documents/{document_uid}': {
    put: {
      summary: 'Create or update a document', security: auth, parameters: [indexParam, docParam],
      description: '204 means the document is stored durably; it becomes searchable asynchronously. Re-pushing identical content does no work.',
      requestBody: { required: true, content: json(pushDocumentSchema) },
      responses: { '204': ok('Stored'), '400': err('Invalid body or document_uid'), '404': err('Unknown index'), '413': err('Body over QUARRY_MAX_BODY_BYTES'), ...storeWrite, ...common },
    },
    delete: {
      summary: 'Delete a document (204 also when it did not exist)', security: auth, parameters: [indexParam, docParam],
      responses: { '204': ok('Deleted'), '404': err('Unknown index'), ...storeWrite, ...common },
    },
    get: {
      summary: 'Read one document with its pipeline status', security: auth, parameters: [indexParam, docParam],
      responses: { '200': ok('The document and `status: {state, version, error}`'), '404': err('Unknown index or document'), ...common },
    },
  },
  '/v2/indexes/{index_uid}/status': {
    get: {
      summary: 'Progress of an index: documents, indexed, pending, failed, last error', security: auth, parameters: [indexParam],
      responses: { '200': ok('Progress', progressSchema), '404': err('Unknown index'), ...common },
    },
  },
  '/v1/content/indexes': {
    post: {
      summary: 'Create or update an index', security: auth, requestBody: { required: true, content: json(indexDefinitionSchema) },
      responses: { '200': ok('Stored', z.object({})), '400': err('Invalid definition or unsupported language'), '409': err('Incompatible field change, or a new index beyond QUARRY_MAX_INDEXES'), ...common },
    },
  },
  '/v1/content/indexes/{index}/documents': {
    post: {
      summary: 'Create or update a document; `fields` are checked against the index schema', security: auth,
      parameters: [param('index', 'path', 'Index uid')], requestBody: { required: true, content: json(contentDocumentSchema) },
      responses: { '204': ok('Stored durably; searchable shortly after'), '400': err('A field is unknown or of the wrong type (named in the message)'), '404': err('Unknown index'), ...storeWrite, ...common },
    },
  },
  '/v1/content/indexes/{index}/documents/{uid}': {
    delete: {
      summary: 'Delete a document (204 also when it did not exist)', security: auth,
      parameters: [param('index', 'path', 'Index uid'), param('uid', 'path', 'Document uid')],
      responses: { '204': ok('Deleted'), '404': err('Unknown index'), ...storeWrite, ...common },
    },
  },
  '/v1/content/search': {
    post: {
      summary: 'Search an index: DisMax BM25 over the boosted fields, Solr fq filter, one hit per document with its best section', security: auth,
      requestBody: { required: true, content: json(contentSearchSchema) },
      responses: { '200': ok('Hits, best first', contentSearchResponseSchema), '400': err('Bad query, boosting or filter (the message gives the position; a wildcard pattern is at most 256 characters, a filter has at most 16)'), '404': err('Unknown index'), '504': err('The search took longer than QUARRY_SEARCH_TIMEOUT_MS (or ran 1 s without a pause) and was stopped; narrow the filter'), ...common },
    },
  },
  '/v1/admin/keys': {
    post: { summary: 'Create an API key (secret shown once)', description: 'A key with `admin` may use every index: `indexes` with `admin` is a 400 naming `indexes`. The key list shows `indexes: null` for every admin key.', security: auth, requestBody: { required: true, content: json(createKeySchema) }, responses: { '201': ok('Created', createdKeySchema), '400': err('Invalid request'), ...common } },
    get: { summary: 'List API keys (no secrets), oldest first, a page at a time', security: auth, parameters: queryParams(keyListQuerySchema), responses: { '200': ok('Keys', page('keys', keyViewSchema)), ...pageErrors, ...common } },
  },
  '/v1/admin/keys/{id}': {
    delete: { summary: 'Revoke an API key', security: auth, parameters: [param('id', 'path', 'Key id')], responses: { '204': ok('Revoked'), '404': err('Unknown key'), ...common } },
  },
  '/v1/admin/session': {
    post: {
      summary: 'Sign in to the web app with a key that has admin (or the master key): sets the `quarry_session` cookie',
      description: 'Answers `Set-Cookie: quarry_session=…; HttpOnly; SameSite=Strict; Path=/; Max-Age=<QUARRY_SESSION_TTL_HOURS in seconds>` (`Secure` over https). Needs no CSRF token, but a request whose `Origin` is another site (or `Sec-Fetch-Site` cross-site) is refused. 10 wrong keys from one client (its address; an IPv6 /64) within 15 minutes, here or on any keyed route: 429 until the window ends, the right key too.',
      requestBody: { required: true, content: json(signInSchema) },
      responses: {
        '200': ok('Signed in', sessionViewSchema), '400': err('No key in the body'), '401': err('The key is not valid'),
        '403': err('The key lacks the admin permission, or the request came from another site'), '429': keyGuessing,
      },
    },
    get: { summary: 'The current session (the web app asks on load)', security: [{ session: [] }], responses: { '200': ok('Signed in', sessionViewSchema), '401': err('No session, or it expired or was ended') } },
    delete: {
      summary: 'Sign out: ends the session and clears the cookie', security: [{ session: [] }], parameters: [{ name: 'X-CSRF-Token', in: 'header', required: true, description: 'The session\'s csrf_token', schema: { type: 'string' } }],
      responses: { '204': ok('Signed out'), '401': err('No session'), '403': err('Missing or wrong X-CSRF-Token, or a request from another site') },
    },
  },
  '/v1/admin/indexes': {
    post: { summary: 'Create an index for document push (page fields title, content, source_url, last_modified)', security: auth, requestBody: { required: true, content: json(createPushIndexSchema) }, responses: { '201': ok('Created'), '200': ok('Already existed'), '400': err('Invalid uid or language'), '409': tooManyIndexes, ...common } },
    get: { summary: 'List indexes by uid, a page at a time, with their progress', security: auth, parameters: queryParams(indexListQuerySchema), responses: { '200': ok('Indexes (`indexes`, and `next_cursor`: pass it as `cursor` for the next page, null on the last)'), ...pageErrors, ...common } },
  },
  '/v1/admin/indexes/{uid}': {
    get: { summary: 'One index with its progress', security: auth, parameters: [param('uid', 'path', 'Index uid')], responses: { '200': ok('Index'), '404': err('Unknown index'), ...common } },
  },
  '/v1/admin/indexes/{uid}/documents': {
    get: {
      summary: 'Browse the documents of a push or content index, by uid', security: auth,
      parameters: [param('uid', 'path', 'Index uid'), ...queryParams(adminDocumentsQuerySchema)],
      responses: { '200': ok('A page of documents', adminDocumentsSchema), '400': err('Bad limit or cursor'), '404': err('Unknown index'), ...common },
    },
  },
  '/v1/admin/indexes/{uid}/documents/{doc}/sections': {
    get: {
      summary: 'The sections of a document as search holds them (its live version)', security: auth,
      parameters: [param('uid', 'path', 'Index uid'), param('doc', 'path', 'Document uid, URL-encoded')],
      responses: { '200': ok('Sections', adminSectionsSchema), '404': err('Unknown index or document'), ...common },
    },
  },
  '/v1/admin/operations': {
    get: {
      summary: 'Health of Redis and storage, pipeline queue depths, the latest failed jobs; answers 200 within ~2 s even when Redis is down', security: auth,
      responses: { '200': ok('Operations', adminOperationsSchema), ...common },
    },
  },
  '/widget.js': {
    get: {
      summary: 'The embeddable widget: <script src="{base_url}/widget.js" data-uid="<uid>" defer></script> (docs/widget.md)',
      description: 'JavaScript, gzip when accepted, with an ETag (304 on If-None-Match), Cache-Control public, max-age=300, stale-while-revalidate=86400, and Access-Control-Allow-Origin: * (any site may load the script; the search routes still check allowed_origins).',
      responses: { '200': { description: 'The current build', content: { 'text/javascript': { schema: { type: 'string' } } } }, '304': ok('Not modified'), '503': err('The widget is not built (npm run build:widget)') },
    },
  },
  '/widget/{file}': {
    get: {
      summary: 'The current widget build by its content hash (<hash>.js), cached for a year (immutable): for pinning and Subresource Integrity',
      parameters: [param('file', 'path', 'The build\'s file name, <hash>.js')],
      responses: { '200': { description: 'The build', content: { 'text/javascript': { schema: { type: 'string' } } } }, '304': ok('Not modified'), '404': err('Not the current build'), '503': err('The widget is not built (npm run build:widget)') },
    },
  },
  '/healthz': { get: { summary: 'Process is alive', responses: { '200': ok('Alive') } } },
  '/readyz': {
    get: {
      summary: 'Redis and storage reachable. Without a key a 503 names the checks that are down; with an admin key it says why',
      responses: {
        '200': ok('Ready: `checks` per dependency; embedded mode adds `disk`, `low: …` while document writes are refused (507) for want of free space'),
        '503': err('A dependency is down (the storage includes the SQLite commit thread)'),
        '429': keyGuessing,
      },
    },
  },
  '/metrics': {
    get: {
      summary: 'Prometheus metrics; needs Authorization: Bearer <QUARRY_METRICS_TOKEN> or a key with admin (X-API-Key, Basic or Bearer)',
      responses: { '200': ok('Prometheus text format'), '401': err('No token or key'), '403': err('The key lacks admin'), '429': keyGuessing },
    },
  },
};

export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: { title: 'Quarry', version: '0.1.0', description: 'Self-hosted AI search. Errors are always `{code, message}` (plus `error`, a stable name, and sometimes `details`). ' +
      'Every response carries `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`, `Referrer-Policy` and a Content-Security-Policy with `frame-ancestors \'none\'`. ' +
      'A request body may be compressed (`Content-Encoding: gzip`, `deflate` or `br`): one that does not inflate is a 400 naming the encoding, ' +
      'another encoding a 415, and each body limit applies to the inflated size (413). ' +
      'JSON answers carry no ETag (nothing to revalidate); `/widget.js` and the web app\'s files do.' },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        session: {
          type: 'apiKey', in: 'cookie', name: 'quarry_session',
          description: 'The web app\'s session (POST /v1/admin/session). Accepted wherever an admin key is: /v1/admin, /v1/content, reading /v2 (GET), conversation listings and /admin/queues. Every POST, PUT, PATCH and DELETE with it must send the session\'s `csrf_token` as `X-CSRF-Token` (403 otherwise); on /admin/queues as `X-XSRF-TOKEN`, which the dashboard\'s page sends from its `XSRF-TOKEN` cookie, as it does for Basic credentials.',
        },
      },
    },
    paths,
  };
}
