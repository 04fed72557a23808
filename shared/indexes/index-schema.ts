import { z } from 'zod';
import { own } from '../records/own.js';
import { ownRecord } from '../records/own-record-schema.js';

export const FIELD_TYPES = ['text', 'html', 'string', 'int', 'float', 'boolean', 'date'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** ISO 639-1 codes whose analysis Quarry supports; the 400 for any other code lists these. */
export const SUPPORTED_LANGUAGES = [
  'en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'no', 'nb', 'nn', 'fi', 'ru',
  'zh', 'ja', 'ko', 'th',
] as const;

export const indexUidSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'use 1-64 letters, digits, hyphens or underscores');

const fieldNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'field names start with a letter or _ and use letters, digits or _');

export const fieldSpecSchema = z.strictObject({
  type: z.enum(FIELD_TYPES),
  multi_valued: z.boolean().optional(),
});
export type FieldSpec = z.infer<typeof fieldSpecSchema>;

export const indexDefinitionSchema = z.strictObject({
  uid: indexUidSchema,
  language_code: z.string().refine((c) => (SUPPORTED_LANGUAGES as readonly string[]).includes(c), {
    message: `unsupported language; supported codes: ${SUPPORTED_LANGUAGES.join(', ')}`,
  }),
  schema: z.strictObject({
    // Any name of the pattern is plain data, `constructor` and `__proto__` included (docs/security.md).
    fields: ownRecord(fieldNameSchema, fieldSpecSchema)
      .refine((f) => Object.keys(f).length > 0, 'declare at least one field')
      .refine((f) => Object.keys(f).length <= 256, 'at most 256 fields'),
  }),
});
export type IndexDefinition = z.infer<typeof indexDefinitionSchema>;

/** The page fields every index used for document push (/v2) has, as API.md fixes them. */
export const PUSH_FIELDS: Record<string, FieldSpec> = {
  title: { type: 'text' },
  content: { type: 'html' },
  source_url: { type: 'string' },
  last_modified: { type: 'date' },
};

export interface IndexRecord {
  id: number;
  uid: string;
  languageCode: string;
  fields: Record<string, FieldSpec>;
  /** Id of the embedder whose vectors the index holds; null until its first document is embedded. */
  embedder: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The fields searched as text (types text and html), in declaration order. */
export function textFieldNames(fields: Record<string, FieldSpec>): string[] {
  return Object.entries(fields).filter(([, spec]) => spec.type === 'text' || spec.type === 'html').map(([name]) => name);
}

/** True when the index can take /v2 document pushes: it has the page fields with their types. */
export function acceptsPush(index: IndexRecord): boolean {
  return Object.entries(PUSH_FIELDS).every(([name, spec]) => own(index.fields, name)?.type === spec.type);
}
