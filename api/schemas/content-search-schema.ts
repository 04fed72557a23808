import { z } from 'zod';

/** Body of POST /v1/content/search (API.md section C), with Quarry's optional BM25 and tie settings. */
export const contentSearchSchema = z.strictObject({
  index_uid: z.string().min(1, 'must name an index').max(64, 'must be at most 64 characters'),
  query: z.string().max(2000, 'must be at most 2000 characters'),
  boosting: z.string().max(2000, 'must be at most 2000 characters'),
  filter: z.string().max(10_000, 'must be at most 10000 characters').default(''),
  fields: z.array(z.string()).max(256).default([]),
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be between 1 and 1000').max(1000, 'must be between 1 and 1000').default(10),
  bm25: z.strictObject({ k1: z.number().min(0).max(10), b: z.number().min(0).max(1) }).optional()
    .describe("BM25 parameters; default Lucene's k1 1.2, b 0.75 (Anserini uses 0.9 / 0.4)"),
  tie: z.number().min(0).max(1).default(0).describe("DisMax tie breaker, as Solr's `tie` (default 0)"),
});
export type ContentSearchRequest = z.infer<typeof contentSearchSchema>;

export const contentSearchResponseSchema = z.object({
  results: z.array(z.object({ uid: z.string(), section: z.string(), fields: z.record(z.string(), z.unknown()), score: z.number() })),
});
