import { z } from 'zod';
import type { FieldSpec } from '../../shared/indexes/index-schema.js';
import { documentFieldsSchema } from '../../shared/indexes/document-schema.js';
import { documentUidSchema } from './push-schemas.js';

/** Body of POST /v1/content/indexes/{index}/documents for one index: errors name `fields.<name>`. */
export const contentDocumentBody = (fields: Record<string, FieldSpec>) =>
  z.strictObject({ uid: documentUidSchema, fields: documentFieldsSchema(fields).optional() });

/** The same body for the OpenAPI document, where the fields depend on the index. */
export const contentDocumentSchema = z.strictObject({ uid: documentUidSchema, fields: z.record(z.string(), z.unknown()).optional() });
