import { encodeFields } from '../../shared/documents/fields-hash.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { WriteOutcome } from '../../shared/storage/ports/document-store.js';
import type { DocumentWriter } from '../../shared/documents/document-writer.js';

/** Content interface documents: `{uid, fields}` checked against the index schema, same pipeline as push. */
export class ContentDocumentService {
  constructor(private readonly storage: Storage, private readonly writer: DocumentWriter) {}

  async index(uid: string): Promise<IndexRecord> {
    const index = await this.storage.indexes.get(uid);
    if (!index) throw new AppError('index_not_found', `Index '${uid}' does not exist; create it with POST /v1/content/indexes`);
    return index;
  }

  upsert(index: IndexRecord, uid: string, fields: Record<string, unknown>): Promise<WriteOutcome> {
    // Absent and null fields are the same document.
    const present = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined));
    return this.writer.write({ indexId: index.id, uid, ...encodeFields(present) });
  }

  delete(index: IndexRecord, uid: string): Promise<WriteOutcome> {
    return this.writer.write({ indexId: index.id, uid, fields: null, hash: null });
  }
}
