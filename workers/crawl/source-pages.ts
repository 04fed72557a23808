import type { DocumentMetadata } from '../../shared/documents/document-metadata.js';
import type { DocumentWriter } from '../../shared/documents/document-writer.js';
import { encodePage, type PageDocument } from '../../shared/documents/page-document.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import type { WriteOutcome } from '../../shared/storage/ports/document-store.js';

/**
 * A crawl's pages into its source's index, by the write path of document push (the same encoding,
 * the same group-committing writer and index jobs), so the pipeline cannot tell them apart.
 */
export class SourcePages {
  constructor(private readonly writer: DocumentWriter) {}

  upsert(index: IndexRecord, uid: string, doc: PageDocument, metadata?: DocumentMetadata): Promise<WriteOutcome> {
    return this.writer.write({ indexId: index.id, uid, ...encodePage(uid, doc, metadata) });
  }

  delete(index: IndexRecord, uid: string): Promise<WriteOutcome> {
    return this.writer.write({ indexId: index.id, uid, fields: null, hash: null });
  }
}
