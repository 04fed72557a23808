import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { sanitizeAnswerHtml } from '../../shared/configurations/sanitize-answer-html.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import type { ConfigurationRecord, InstantAnswerRecord } from '../../shared/storage/ports/configuration-store.js';
import type { CreatedKey, ListPage } from '../../shared/storage/ports/list-page.js';
import type {
  createConfigurationSchema, createInstantAnswerSchema, updateConfigurationSchema, updateInstantAnswerSchema,
} from '../schemas/configuration-schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Instant answers a configuration may hold: every search of it matches its query against all of them. */
export const MAX_INSTANT_ANSWERS = 1000;

/** Admin side of the search interface: API Tools / API UIs and their instant answers. */
export class ConfigurationService {
  constructor(private readonly storage: Storage) {}

  async create(body: z.output<typeof createConfigurationSchema>): Promise<ConfigurationRecord> {
    const now = Date.now();
    const record: ConfigurationRecord = {
      uid: randomUUID(),
      variant: body.variant,
      name: body.name,
      indexes: await this.checkIndexes(body.indexes ?? body.sources),
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
    await this.storage.configurations.insert(record);
    return record;
  }

  async get(uid: string): Promise<ConfigurationRecord> {
    const c = await this.storage.configurations.get(uid);
    if (!c) throw new AppError('not_found', `Configuration '${uid}' does not exist`);
    return c;
  }

  async update(uid: string, patch: z.output<typeof updateConfigurationSchema>): Promise<ConfigurationRecord> {
    const c = await this.get(uid);
    const indexes = patch.indexes ?? patch.sources;
    const next: ConfigurationRecord = {
      ...c,
      name: patch.name ?? c.name,
      indexes: indexes ? await this.checkIndexes(indexes) : c.indexes,
      resultCount: patch.result_count ?? c.resultCount,
      allowedOrigins: patch.allowed_origins ?? c.allowedOrigins,
      topQuestions: patch.top_questions ?? c.topQuestions,
      autocompleteMinQueries: patch.autocomplete_min_queries ?? c.autocompleteMinQueries,
      autocompleteMinSessions: patch.autocomplete_min_sessions ?? c.autocompleteMinSessions,
      fusion: patch.fusion ?? c.fusion,
      keywordWeight: patch.keyword_weight ?? c.keywordWeight,
      updatedAt: Date.now(),
    };
    await this.storage.configurations.replace(next);
    return next;
  }

  async delete(uid: string): Promise<void> {
    if (!(await this.storage.configurations.delete(uid))) throw new AppError('not_found', `Configuration '${uid}' does not exist`);
    await this.storage.events.forget(uid);
  }

  async addInstantAnswer(uid: string, body: z.output<typeof createInstantAnswerSchema>): Promise<InstantAnswerRecord> {
    await this.get(uid);
    if ((await this.storage.configurations.instantAnswers(uid, { limit: MAX_INSTANT_ANSWERS })).length >= MAX_INSTANT_ANSWERS) {
      throw new AppError('conflict', `Configuration '${uid}' already has ${MAX_INSTANT_ANSWERS} instant answers, the most one may have; delete or merge some before adding more`);
    }
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
    await this.storage.configurations.insertInstantAnswer(record);
    return record;
  }

  async updateInstantAnswer(uid: string, id: string, patch: z.output<typeof updateInstantAnswerSchema>): Promise<InstantAnswerRecord> {
    const current = (await this.storage.configurations.instantAnswers((await this.get(uid)).uid)).find((a) => a.id === id);
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
    await this.storage.configurations.replaceInstantAnswer(next);
    return next;
  }

  async deleteInstantAnswer(uid: string, id: string): Promise<void> {
    await this.get(uid);
    if (!(await this.storage.configurations.deleteInstantAnswer(uid, id))) {
      throw new AppError('not_found', `Instant answer '${id}' does not exist in configuration '${uid}'`);
    }
  }

  /** Oldest first: a page of them after `page.after`. */
  async instantAnswers(uid: string, page: ListPage<CreatedKey>): Promise<InstantAnswerRecord[]> {
    return this.storage.configurations.instantAnswers((await this.get(uid)).uid, page);
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

  /** Index uids, or website source uids standing for their index (API.md): what a configuration searches. */
  private async checkIndexes(uids: string[] | undefined): Promise<string[]> {
    if (!uids) throw new AppError('invalid_request', 'Invalid request: indexes: name at least one index to search (an API Tool may call them sources)');
    const resolved = await Promise.all([...new Set(uids)].map(async (u) => {
      if (await this.storage.indexes.get(u)) return { name: u, index: u };
      return { name: u, index: (await this.storage.sources.get(u))?.indexUid ?? null };
    }));
    const missing = resolved.filter((r) => r.index === null).map((r) => r.name);
    if (missing.length) {
      throw new AppError('invalid_request', `Invalid request: indexes: ${missing.map((m) => `'${m}'`).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist as an index or a website source; create it first`);
    }
    return [...new Set(resolved.map((r) => r.index!))];
  }
}
