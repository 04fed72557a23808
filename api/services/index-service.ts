import { AppError } from '../../shared/errors/app-error.js';
import { PUSH_FIELDS, type FieldSpec, type IndexRecord } from '../../shared/indexes/index-schema.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { IndexLimitReached } from '../../shared/storage/ports/index-registry.js';
import { own } from '../../shared/records/own.js';

/**
 * Index definitions. Adding fields is always allowed; changing or removing a field's type would
 * silently change what stored documents mean, so it is refused with the way out. A new language
 * re-analyses every document.
 */
export class IndexService {
  constructor(
    private readonly storage: Storage,
    private readonly requeue: (index: IndexRecord) => Promise<void>,
    /** QUARRY_MAX_INDEXES: keys with write create indexes, and every index costs each reconciler pass a query. */
    private readonly maxIndexes = Infinity,
  ) {}

  async upsert(uid: string, languageCode: string, fields: Record<string, FieldSpec>): Promise<{ index: IndexRecord; created: boolean }> {
    const existing = await this.storage.indexes.get(uid);
    if (existing) {
      for (const [name, spec] of Object.entries(existing.fields)) {
        const next = own(fields, name);
        if (!next) throw new AppError('conflict', `Field '${name}' of index '${uid}' cannot be removed; create a new index instead`);
        if (next.type !== spec.type || Boolean(next.multi_valued) !== Boolean(spec.multi_valued)) {
          throw new AppError('conflict', `Field '${name}' of index '${uid}' is ${describe(spec)} and cannot become ${describe(next)}; create a new index instead`);
        }
      }
    }
    const result = await this.storage.indexes.upsert(uid, languageCode, fields, this.maxIndexes).catch((err: unknown) => {
      if (!(err instanceof IndexLimitReached)) throw err;
      throw new AppError('conflict', `This deployment has ${err.max} indexes, the most QUARRY_MAX_INDEXES allows; put documents in an existing index, or raise QUARRY_MAX_INDEXES`);
    });
    if (existing && existing.languageCode !== languageCode) await this.requeue(result.index);
    return result;
  }

  /** A push index: the page fields, plus any extra fields the caller declares. */
  async createPushIndex(uid: string, languageCode: string) {
    return this.upsert(uid, languageCode, { ...PUSH_FIELDS, ...((await this.storage.indexes.get(uid))?.fields ?? {}) });
  }

  async view(index: IndexRecord) {
    return {
      uid: index.uid,
      language_code: index.languageCode,
      schema: { fields: index.fields },
      embedder: index.embedder,
      created_at: new Date(index.createdAt).toISOString(),
      updated_at: new Date(index.updatedAt).toISOString(),
      progress: await this.storage.documents.progress(index.id),
    };
  }
}

const describe = (s: FieldSpec) => `${s.type}${s.multi_valued ? ' (multi_valued)' : ''}`;
