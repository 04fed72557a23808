import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { sanitizeAnswerHtml } from '../../shared/configurations/sanitize-answer-html.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { ConfigurationRecord, InstantAnswerRecord } from '../../shared/storage/ports/configuration-store.js';
import type {
  createConfigurationSchema, createInstantAnswerSchema, updateConfigurationSchema, updateInstantAnswerSchema,
} from '../schemas/configuration-schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Admin side of the search interface: API Tools / API UIs and their instant answers. */
export class ConfigurationService {
  constructor(private readonly storage: Storage) {}

  create(body: z.output<typeof createConfigurationSchema>): ConfigurationRecord {
    const now = Date.now();
    const record: ConfigurationRecord = {
      uid: randomUUID(),
      variant: body.variant,
      name: body.name,
      indexes: this.checkIndexes(body.indexes ?? body.sources),
      resultCount: body.result_count,
      allowedOrigins: body.allowed_origins,
      topQuestions: body.top_questions,
      autocompleteMinQueries: body.autocomplete_min_queries,
      autocompleteMinSessions: body.autocomplete_min_sessions,
      fusion: body.fusion,
      keywordWeight: body.keyword_weight,
      createdAt: now,
      updatedAt: now,
    };
    this.storage.configurations.insert(record);
    return record;
  }

  get(uid: string): ConfigurationRecord {
    const c = this.storage.configurations.get(uid);
    if (!c) throw new AppError('not_found', `Configuration '${uid}' does not exist`);
    return c;
  }

  update(uid: string, patch: z.output<typeof updateConfigurationSchema>): ConfigurationRecord {
    const c = this.get(uid);
    const indexes = patch.indexes ?? patch.sources;
    const next: ConfigurationRecord = {
      ...c,
      name: patch.name ?? c.name,
      indexes: indexes ? this.checkIndexes(indexes) : c.indexes,
      resultCount: patch.result_count ?? c.resultCount,
      allowedOrigins: patch.allowed_origins ?? c.allowedOrigins,
      topQuestions: patch.top_questions ?? c.topQuestions,
      autocompleteMinQueries: patch.autocomplete_min_queries ?? c.autocompleteMinQueries,
      autocompleteMinSessions: patch.autocomplete_min_sessions ?? c.autocompleteMinSessions,
      fusion: patch.fusion ?? c.fusion,
      keywordWeight: patch.keyword_weight ?? c.keywordWeight,
      updatedAt: Date.now(),
    };
    this.storage.configurations.replace(next);
    return next;
  }

  delete(uid: string): void {
    if (!this.storage.configurations.delete(uid)) throw new AppError('not_found', `Configuration '${uid}' does not exist`);
    this.storage.events.forget(uid);
  }

  addInstantAnswer(uid: string, body: z.output<typeof createInstantAnswerSchema>): InstantAnswerRecord {
    this.get(uid);
    const now = Date.now();
    const record: InstantAnswerRecord = {
      id: randomUUID(),
      configurationUid: uid,
      title: body.title,
      content: sanitizeAnswerHtml(body.content),
      url: body.url ?? null,
      keywords: body.keywords,
      configuration: body.configuration ?? null,
      createdAt: now,
      updatedAt: now,
    };
    this.storage.configurations.insertInstantAnswer(record);
    return record;
  }

  updateInstantAnswer(uid: string, id: string, patch: z.output<typeof updateInstantAnswerSchema>): InstantAnswerRecord {
    const current = this.storage.configurations.instantAnswers(this.get(uid).uid).find((a) => a.id === id);
    if (!current) throw new AppError('not_found', `Instant answer '${id}' does not exist in configuration '${uid}'`);
    const next: InstantAnswerRecord = {
      ...current,
      title: patch.title ?? current.title,
      content: patch.content !== undefined ? sanitizeAnswerHtml(patch.content) : current.content,
      url: patch.url !== undefined ? patch.url : current.url,
      keywords: patch.keywords ?? current.keywords,
      configuration: patch.configuration !== undefined ? patch.configuration : current.configuration,
      updatedAt: Date.now(),
    };
    this.storage.configurations.replaceInstantAnswer(next);
    return next;
  }

  deleteInstantAnswer(uid: string, id: string): void {
    this.get(uid);
    if (!this.storage.configurations.deleteInstantAnswer(uid, id)) {
      throw new AppError('not_found', `Instant answer '${id}' does not exist in configuration '${uid}'`);
    }
  }

  instantAnswers(uid: string): InstantAnswerRecord[] {
    return this.storage.configurations.instantAnswers(this.get(uid).uid);
  }

  view(c: ConfigurationRecord) {
    return {
      uid: c.uid, variant: c.variant, name: c.name, indexes: c.indexes, result_count: c.resultCount,
      allowed_origins: c.allowedOrigins, top_questions: c.topQuestions,
      autocomplete_min_queries: c.autocompleteMinQueries, autocomplete_min_sessions: c.autocompleteMinSessions,
      fusion: c.fusion, keyword_weight: c.keywordWeight, created_at: iso(c.createdAt), updated_at: iso(c.updatedAt),
    };
  }

  answerView(a: InstantAnswerRecord) {
    return {
      id: a.id, title: a.title, content: a.content, url: a.url, keywords: a.keywords, configuration: a.configuration,
      created_at: iso(a.createdAt), updated_at: iso(a.updatedAt),
    };
  }

  private checkIndexes(uids: string[] | undefined): string[] {
    if (!uids) throw new AppError('invalid_request', 'Invalid request: indexes: name at least one index to search (an API Tool may call them sources)');
    const unique = [...new Set(uids)];
    const missing = unique.filter((u) => !this.storage.indexes.get(u));
    if (missing.length) {
      throw new AppError('invalid_request', `Invalid request: indexes: ${missing.map((m) => `'${m}'`).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist; create the index first`);
    }
    return unique;
  }
}
