import type { ConfigurationRecord, ConfigurationStore, InstantAnswerRecord } from './ports/configuration-store.js';
import type { CreatedKey, ListPage } from './ports/list-page.js';

/** How long another process's change to a configuration may take to reach this one. */
export const CONFIGURATION_CACHE_MS = 1000;
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: Promise<T>;
  at: number;
}

/**
 * Every widget request reads its configuration (twice: CORS, then the service) and its instant
 * answers; they change rarely. This process remembers them for a second, so a search costs the store
 * no round trip for them; its own changes are seen at once, other processes' within CONFIGURATION_CACHE_MS.
 */
export class CachedConfigurationStore implements ConfigurationStore {
  private readonly records = new Map<string, Entry<ConfigurationRecord | null>>();
  private readonly answers = new Map<string, Entry<InstantAnswerRecord[]>>();

  constructor(
    private readonly store: ConfigurationStore,
    private readonly ttlMs = CONFIGURATION_CACHE_MS,
  ) {}

  get(uid: string) {
    return this.remember(this.records, uid, () => this.store.get(uid));
  }

  /** Searches read them all, through the cache; the admin listing reads its pages from the store. */
  instantAnswers(configurationUid: string, page?: ListPage<CreatedKey>) {
    if (page) return this.store.instantAnswers(configurationUid, page);
    return this.remember(this.answers, configurationUid, () => this.store.instantAnswers(configurationUid));
  }

  list(page?: ListPage<CreatedKey>) {
    return this.store.list(page);
  }

  async insert(record: ConfigurationRecord) {
    await this.store.insert(record);
    this.records.delete(record.uid);
  }

  async replace(record: ConfigurationRecord) {
    this.records.delete(record.uid);
    return this.store.replace(record).finally(() => this.records.delete(record.uid));
  }

  async delete(uid: string) {
    this.records.delete(uid);
    this.answers.delete(uid);
    return this.store.delete(uid).finally(() => {
      this.records.delete(uid);
      this.answers.delete(uid);
    });
  }

  async insertInstantAnswer(record: InstantAnswerRecord) {
    await this.store.insertInstantAnswer(record);
    this.answers.delete(record.configurationUid);
  }

  async replaceInstantAnswer(record: InstantAnswerRecord) {
    return this.store.replaceInstantAnswer(record).finally(() => this.answers.delete(record.configurationUid));
  }

  async deleteInstantAnswer(configurationUid: string, id: string) {
    return this.store.deleteInstantAnswer(configurationUid, id).finally(() => this.answers.delete(configurationUid));
  }

  /** Concurrent readers share one read; a failed read is not remembered. */
  private remember<T>(cache: Map<string, Entry<T>>, key: string, read: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    if (cache.size >= MAX_ENTRIES) cache.clear();
    const value = read();
    cache.set(key, { value, at: now });
    value.catch(() => {
      if (cache.get(key)?.value === value) cache.delete(key);
    });
    return value;
  }
}
