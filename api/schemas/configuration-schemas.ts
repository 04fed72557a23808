import { z } from 'zod';
import { indexUidSchema } from '../../shared/indexes/index-schema.js';
import { isTimeZone } from '../../shared/storage/local-days.js';
import { conversationPageFields } from './conversation-page.js';
import { createdCursor, pageQuerySchema } from './list-page.js';
import { ownRecord } from '../../shared/records/own-record-schema.js';

const origin = z.string().max(300).refine((o) => o === '*' || /^https?:\/\/(\*\.)?[^/\s?#]+$/i.test(o), {
  message: "must be '*' or an origin like https://example.com or https://*.example.com (scheme and host, no path)",
});

const settings = {
  name: z.string().trim().min(1, 'must not be empty').max(200),
  indexes: z.array(indexUidSchema).min(1, 'name at least one index to search').max(50),
  result_count: z.coerce.number().int('must be a whole number').min(1, 'must be from 1 to 50').max(50, 'must be from 1 to 50'),
  allowed_origins: z.array(origin).max(100).describe("Origins allowed to call from a browser; ['*'] (the default) allows any"),
  top_questions: z.array(z.string().trim().min(1).max(500)).max(50),
  autocomplete_min_queries: z.coerce.number().int().min(0).max(1_000_000)
    .describe('Earlier (non-preview) searches needed before autocomplete answers; default 20'),
  autocomplete_min_sessions: z.coerce.number().int().min(1).max(1000)
    .describe('Distinct sessions that must have asked a query before anyone is offered it; default 3'),
  fusion: z.enum(['rrf', 'weighted']).describe('How the keyword and vector rankings are combined; see docs/search-interface.md'),
  keyword_weight: z.number().min(0).max(1).describe('Weight of the keyword ranking in `weighted` fusion (the vector ranking gets the rest)'),
};

export const createConfigurationSchema = z.strictObject({
  variant: z.enum(['tool', 'ui']),
  name: settings.name,
  indexes: settings.indexes.optional(),
  /** API Tool wording: its sources; for now a source is an index uid. */
  sources: settings.indexes.optional(),
  result_count: settings.result_count.default(10),
  allowed_origins: settings.allowed_origins.default(['*']),
  top_questions: settings.top_questions.default([]),
  autocomplete_min_queries: settings.autocomplete_min_queries.default(20),
  autocomplete_min_sessions: settings.autocomplete_min_sessions.default(3),
  fusion: settings.fusion.default('weighted'),
  keyword_weight: settings.keyword_weight.default(0.85),
});

export const updateConfigurationSchema = z.strictObject({
  name: settings.name.optional(),
  indexes: settings.indexes.optional(),
  sources: settings.indexes.optional(),
  result_count: settings.result_count.optional(),
  allowed_origins: settings.allowed_origins.optional(),
  top_questions: settings.top_questions.optional(),
  autocomplete_min_queries: settings.autocomplete_min_queries.optional(),
  autocomplete_min_sessions: settings.autocomplete_min_sessions.optional(),
  fusion: settings.fusion.optional(),
  keyword_weight: settings.keyword_weight.optional(),
});

export const configurationViewSchema = z.object({
  uid: z.string(),
  variant: z.enum(['tool', 'ui']),
  name: z.string(),
  indexes: z.array(z.string()),
  result_count: z.number(),
  allowed_origins: z.array(z.string()),
  top_questions: z.array(z.string()),
  autocomplete_min_queries: z.number(),
  autocomplete_min_sessions: z.number(),
  fusion: z.enum(['rrf', 'weighted']),
  keyword_weight: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});

const answer = {
  title: z.string().trim().min(1, 'must not be empty').max(500),
  content: z.string().min(1, 'must not be empty').max(100_000),
  url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2000),
  keywords: z.array(z.string().trim().min(1).max(200)).max(100),
  // Keys are the caller's, `__proto__` and `constructor` included: kept as plain data.
  configuration: ownRecord(z.string(), z.unknown()),
};

export const createInstantAnswerSchema = z.strictObject({
  title: answer.title,
  content: answer.content.describe('HTML; sanitized when saved (scripts, event handlers and unsafe URLs are removed)'),
  url: answer.url.nullish(),
  keywords: answer.keywords.default([]),
  configuration: answer.configuration.nullish().describe('Free-form object returned with the result, e.g. call-to-action settings'),
});

export const updateInstantAnswerSchema = z.strictObject({
  title: answer.title.optional(),
  content: answer.content.optional(),
  url: answer.url.nullish(),
  keywords: answer.keywords.optional(),
  configuration: answer.configuration.nullish(),
});

export const instantAnswerViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  url: z.string().nullable(),
  keywords: z.array(z.string()),
  configuration: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Dates are short; the bound keeps a long one out of the 400 that quotes it. */
export const dateParam = z.string().min(1, 'must not be empty').max(40, 'must be at most 40 characters');

export const dateRangeQuerySchema = z.strictObject({
  from: dateParam.describe('YYYY-MM-DD (midnight UTC) or an ISO 8601 timestamp; inclusive'),
  to: dateParam.describe('YYYY-MM-DD (midnight UTC) or an ISO 8601 timestamp; exclusive'),
});

export const conversationListQuerySchema = dateRangeQuerySchema.extend(conversationPageFields);

/** Configurations and a configuration's instant answers, oldest first. */
export const configurationListQuerySchema = pageQuerySchema('Configurations', createdCursor);
export const instantAnswerListQuerySchema = pageQuerySchema('Instant answers', createdCursor);

export const insightsQuerySchema = dateRangeQuerySchema.extend({
  tz: z.string().max(64, 'must be at most 64 characters').refine(isTimeZone, { message: 'must be an IANA time zone such as Europe/Paris or America/New_York' }).default('UTC')
    .describe('IANA time zone whose local days `by_day` lists (default UTC); days start on the whole UTC hour at or before local midnight'),
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be from 1 to 1000').max(1000, 'must be from 1 to 1000').default(20)
    .describe('Length of `top_queries` and `no_result_queries` (default 20)'),
});

const day = z.object({ day: z.string(), searches: z.number(), clicks: z.number(), no_results: z.number(), sessions: z.number() });
export const insightsSchema = z.object({
  uid: z.string(),
  from: z.string(),
  to: z.string(),
  tz: z.string(),
  searches: z.number(),
  sessions: z.number(),
  clicks: z.number(),
  searches_with_click: z.number(),
  ctr: z.number(),
  no_result_searches: z.number(),
  support_forwards: z.number(),
  summaries: z.number(),
  chats: z.number(),
  unanswered_generations: z.number(),
  summaries_answered: z.number(),
  summaries_unanswered: z.number(),
  chats_answered: z.number(),
  chats_unanswered: z.number(),
  top_queries: z.array(z.object({ query: z.string(), searches: z.number(), clicks: z.number() })),
  no_result_queries: z.array(z.object({ query: z.string(), searches: z.number() })),
  click_positions: z.array(z.object({ position: z.number(), clicks: z.number() })),
  by_day: z.array(day),
  devices: z.array(z.object({ device: z.enum(['desktop', 'mobile', 'unknown']), searches: z.number() })),
  support_forward_urls: z.array(z.object({ url: z.string(), forwards: z.number() })).describe('The 20 urls most forwarded to'),
});

export const adminConversationsSchema = z.object({
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last one'),
  conversations: z.array(z.object({ id: z.string(), url: z.string().nullable(), updated_at: z.string(), turns: z.number() })),
});

export const adminTranscriptSchema = z.object({
  id: z.string(),
  turns: z.array(z.object({
    question: z.string(), reply: z.string(), references: z.array(z.object({ title: z.string(), url: z.string().optional() })), at: z.string(),
  })),
});
