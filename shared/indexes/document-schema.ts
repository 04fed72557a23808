import { z } from 'zod';
import { ownStrictObject } from '../records/own-record-schema.js';
import type { FieldSpec, FieldType } from './index-schema.js';

/** ISO 8601 date or date-time, as `date` fields and `last_modified` take them. */
export const isoDate = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time');

const BY_TYPE: Record<FieldType, () => z.ZodType> = {
  text: () => z.string(),
  html: () => z.string(),
  string: () => z.string().max(32_768, 'must be at most 32768 characters'),
  int: () => z.number().int('must be a whole number').min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
  float: () => z.number().refine(Number.isFinite, 'must be a finite number'),
  boolean: () => z.boolean(),
  date: () => isoDate,
};

const cache = new WeakMap<Record<string, FieldSpec>, z.ZodType<Record<string, unknown>>>();

/**
 * The zod schema of a document's `fields` in an index: each declared field optional, of its type
 * (an array of it when multi_valued), unknown fields refused by name. Built once per schema object.
 * Field names are users' (`constructor`, `__proto__` included): only own keys count.
 */
export function documentFieldsSchema(fields: Record<string, FieldSpec>): z.ZodType<Record<string, unknown>> {
  let schema = cache.get(fields);
  if (!schema) {
    const shape = new Map<string, z.ZodType>();
    for (const [name, spec] of Object.entries(fields)) {
      const one = BY_TYPE[spec.type]();
      shape.set(name, (spec.multi_valued ? z.array(one).max(10_000) : one).nullish());
    }
    schema = ownStrictObject(shape);
    cache.set(fields, schema);
  }
  return schema;
}
