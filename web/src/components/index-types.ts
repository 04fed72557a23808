// The admin API's shapes as the index pages read them (the server is the authority: it validates every write).

// Type-only imports of the server's own shapes: erased from the bundle, checked against the API's code.
import type { FieldSpec } from '../../../shared/indexes/index-schema';
import type { IndexProgress } from '../../../shared/storage/ports/document-store';

export type { FieldSpec, IndexProgress };

export interface IndexView {
  uid: string;
  language_code: string;
  schema: { fields: Record<string, FieldSpec> };
  embedder: string | null;
  created_at: string;
  updated_at: string;
  progress: IndexProgress;
}

/** The page fields a push (/v2) index has, as API.md fixes them. */
const PUSH_FIELDS: Record<string, string> = { title: 'text', content: 'html', source_url: 'string', last_modified: 'date' };

/** True when /v2 document routes serve this index (the same test the server makes). */
export function isPushIndex(index: IndexView): boolean {
  return Object.entries(PUSH_FIELDS).every(([name, type]) => index.schema.fields[name]?.type === type);
}

/** Work the pipeline has still to do: while any, progress is polled quickly. */
export const isBusy = (p: IndexProgress) => p.pending + p.pending_deletes > 0;

/** Fields whose text is searched (what boosting may name). */
export const textFields = (index: IndexView) =>
  Object.entries(index.schema.fields).filter(([, s]) => s.type === 'text' || s.type === 'html').map(([n]) => n);
