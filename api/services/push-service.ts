import type { DocumentMetadata } from '../../shared/documents/document-metadata.js';
import type { DocumentWriter } from '../../shared/documents/document-writer.js';
import { encodePage } from '../../shared/documents/page-document.js';
import { AppError } from '../../shared/errors/app-error.js';
import { acceptsPush, type IndexRecord } from '../../shared/indexes/index-schema.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { WriteOutcome } from '../../shared/storage/ports/document-store.js';
import type { PushDocument } from '../schemas/push-schemas.js';

/** Document push (/v2): page documents into an index that has the page fields. */
export class PushService {
  constructor(private readonly storage: Storage, private readonly writer: DocumentWriter) {}

  async pushIndex(uid: string): Promise<IndexRecord> {
    const index = await this.storage.indexes.get(uid);
    if (!index) throw new AppError('index_not_found', `Index '${uid}' does not exist; create it first (POST /v1/admin/indexes)`);
    if (!acceptsPush(index)) {
      throw new AppError('invalid_index', `Index '${uid}' lacks the page fields title, content, source_url, last_modified needed for document push; use /v1/content/indexes/${uid}/documents`);
    }
    return index;
  }

  /**
   * `metadata`: the page's extracted fragments, which its search results carry. Internal writers
   * only (the crawler): the push API's body has no such field. Throws `invalid_document` when it is
   * malformed or over MAX_METADATA_BYTES.
   */
  async upsert(index: IndexRecord, uid: string, doc: PushDocument, metadata?: DocumentMetadata): Promise<WriteOutcome> {
    return this.writer.write({ indexId: index.id, uid, ...encodePage(uid, doc, metadata) });
  }

  async upsertMany(index: IndexRecord, docs: { uid: string; doc: PushDocument; metadata?: DocumentMetadata }[]): Promise<WriteOutcome[]> {
    // Every document is checked before any is written: a batch is accepted or refused whole.
    const writes = docs.map(({ uid, doc, metadata }) => ({ indexId: index.id, uid, ...encodePage(uid, doc, metadata) }));
    return this.writer.writeMany(writes);
  }

  delete(index: IndexRecord, uid: string): Promise<WriteOutcome> {
    return this.writer.write({ indexId: index.id, uid, fields: null, hash: null });
  }

  async list(index: IndexRecord, limit: number, afterUid: string | null) {
    return (await this.storage.documents.list(index.id, limit, afterUid)).map(({ uid, fields }) => ({
      uid,
      title: String(fields.title ?? ''),
      content: String(fields.content ?? ''),
    }));
  }

  async get(index: IndexRecord, uid: string) {
    const doc = await this.storage.documents.get(index.id, uid);
    if (!doc?.fields) throw new AppError('not_found', `Document '${uid}' does not exist in index '${index.uid}'`);
    return { uid, ...doc.fields, status: { state: doc.status, version: doc.version, error: doc.error } };
  }

  async progress(index: IndexRecord) {
    return { index_uid: index.uid, ...(await this.storage.documents.progress(index.id)), embedder: index.embedder };
  }
}
