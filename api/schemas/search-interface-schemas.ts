import { z } from 'zod';
import { conversationPageFields } from './conversation-page.js';

/** Limits on what a public, unauthenticated caller may send; each breach is a 400 naming the field. */
export const MAX_QUERY_CHARS = 500;

const uid = z.string({ error: 'is required' }).min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const query = z.string({ error: 'is required' }).max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`);
const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'], { error: 'must be true, false, 1 or 0' })])
  .transform((v) => v === true || v === 'true' || v === '1');
const device = z.enum(['desktop', 'mobile', 'unknown'], { error: 'must be one of desktop, mobile, unknown' });
const sessionId = z.string({ error: 'is required (or send the X-Session-Id header)' }).min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const searchInterfaceSchema = z.object({
  uid,
  'session-id': sessionId,
  query: query.refine((q) => q.trim().length > 0, 'must not be empty'),
  preview: flag.default(false),
  device: device.default('unknown'),
  retrieval: z.enum(['hybrid', 'keyword', 'vector'], { error: 'must be hybrid, keyword or vector' }).default('hybrid')
    .describe('Quarry extension for evaluation: rank with one leg only. Default hybrid.'),
});

export const autocompleteSchema = z.object({
  uid,
  query,
  limit: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be from 1 to 20').max(20, 'must be from 1 to 20').default(5),
});

export const feedbackSchema = z.object({
  type: z.literal('click', { error: "must be 'click'" }),
  feedback_data: z.string({ error: 'is required' }).min(1, 'must not be empty').max(8192, 'must be at most 8192 characters'),
});

export const supportForwardSchema = z.object({
  uid,
  url: z.string({ error: 'is required' }).max(2000, 'must be at most 2000 characters').refine((s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL'),
  'session-id': sessionId.optional(),
  device: device.default('unknown'),
});

export const topQuestionsSchema = z.object({ uid });

/** SPEC's node; `children` is described by words, as the document is written without recursive references. */
const metadataNodeSchema = z.object({
  type: z.enum(['tag', 'text']),
  tag: z.string().optional().describe('tag nodes: the element name'),
  attr: z.record(z.string(), z.string()).optional().describe('tag nodes: the attributes'),
  children: z.array(z.record(z.string(), z.unknown())).optional().describe('tag nodes: child nodes, each of this same shape'),
  data: z.string().optional().describe('text nodes: the text'),
});
const metadataEntrySchema = z.object({
  selector: z.string().describe('The CSS selector of the fragment'),
  matches: z.array(metadataNodeSchema).describe('The matching nodes of the page; empty when the fragment is not on it'),
});

const resultSchema = z.object({
  type: z.enum(['paragraph', 'instant_answer']),
  title: z.string().optional().describe('Present for paragraph results'),
  url: z.string().optional(),
  content: z.string().describe('paragraph: escaped plain text in <p>, line breaks as <span class="service line-break"></span>; instant_answer: sanitized HTML'),
  feedback_data: z.string().describe('Opaque signed base64; send back unchanged to the feedback endpoint'),
  metadata: z.array(metadataEntrySchema).optional()
    .describe('paragraph results of a source that extracts HTML fragments: one entry per configured selector; absent otherwise'),
  configuration: z.record(z.string(), z.unknown()).optional(),
});
export const searchInterfaceResponseSchema = z.object({ results: z.array(resultSchema) });
export const toolSuggestionsSchema = z.object({ suggestions: z.array(z.string()).nullable() });
export const uiSuggestionsSchema = z.object({ suggestions: z.array(z.object({ suggestion: z.string() })) });
export const topQuestionsResponseSchema = z.object({ questions: z.array(z.object({ question: z.string() })) });

export const summarySchema = z.object({
  uid,
  query: query.refine((q) => q.trim().length > 0, 'must not be empty'),
  reference_format: z.enum(['html', 'markdown'], { error: 'must be html or markdown' }).default('html')
    .describe('UI variant: html (default) gives references[].content as HTML, markdown as plain Markdown text'),
  'session-id': sessionId.optional(),
  preview: flag.default(false),
  device: device.default('unknown'),
});

export const chatSchema = z.object({
  uid,
  query: query.refine((q) => q.trim().length > 0, 'must not be empty'),
  'conversation-id': z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
  'session-id': sessionId,
  preview: flag.default(false),
  device: device.default('unknown'),
});

export const conversationsSchema = z.object({
  uid,
  from: z.string({ error: 'is required (YYYY-MM-DD or ISO 8601)' }).min(1).max(40, 'must be at most 40 characters'),
  to: z.string({ error: 'is required (YYYY-MM-DD or ISO 8601)' }).min(1).max(40, 'must be at most 40 characters'),
  ...conversationPageFields,
});

const referenceSchema = z.object({
  index: z.number().int(),
  title: z.string(),
  url: z.string().optional(),
  content: z.string(),
  feedback_data: z.string().optional().describe('Chat references only'),
});
export const summaryResponseSchema = z.object({
  status: z.enum(['success', 'no-relevant-results']),
  summary: z.string().describe('HTML; bracketed numbers [n] refer to references[].index'),
  references: z.array(referenceSchema),
});
export const chatResponseSchema = z.object({
  status: z.enum(['success', 'no-relevant-results']),
  reply: z.string().describe('HTML like summary: one <p> of escaped text; bracketed numbers [n] refer to references[].index'),
  conversation_id: z.string(),
  follow_up_questions: z.array(z.object({ question: z.string() })),
  references: z.array(referenceSchema),
});
export const conversationsResponseSchema = z.object({
  next_cursor: z.string().nullable().describe('Quarry extension: pass as `cursor` for the next page; null on the last one'),
  conversations: z.array(z.object({ conversation_id: z.string(), url: z.string().nullable() })),
});
