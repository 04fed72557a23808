import { encodeMetadata, hashWithMetadata, type DocumentMetadata } from './document-metadata.js';
import { encodeFields } from './fields-hash.js';

/** A page as document push and the crawler write it: the page fields of a push index. */
export interface PageDocument {
  title: string;
  content: string;
  source_url?: string | null;
  last_modified?: string | null;
}

/** The stored form of a page and its hash, which covers the metadata (fragments) when there is some. */
export function encodePage(uid: string, doc: PageDocument, metadata: DocumentMetadata | undefined) {
  const encoded = encodeFields(pageFields(doc));
  if (metadata === undefined) return encoded;
  const json = encodeMetadata(uid, metadata);
  return { ...encoded, metadata: json, hash: hashWithMetadata(encoded.hash, json) };
}

/** Optional fields left out are stored as absent, so `{}` and `{source_url: null}` hash the same. */
function pageFields(doc: PageDocument): Record<string, unknown> {
  const f: Record<string, unknown> = { title: doc.title, content: doc.content };
  if (doc.source_url) f.source_url = doc.source_url;
  if (doc.last_modified) f.last_modified = doc.last_modified;
  return f;
}
