import type { CreatedKey, ListPage } from './list-page.js';

export type Variant = 'tool' | 'ui';
export type FusionMethod = 'rrf' | 'weighted';

/** An API Tool (`tool`, over sources) or API UI (`ui`, over indexes): what a search widget is addressed by. */
export interface ConfigurationRecord {
  uid: string;
  variant: Variant;
  name: string;
  /** Index uids searched; for a tool these are its sources (an index is the only kind of source so far). */
  indexes: string[];
  resultCount: number;
  /** Origins allowed to call from a browser; `*` allows any. */
  allowedOrigins: string[];
  topQuestions: string[];
  /** Earlier (non-preview) queries needed before autocomplete suggests anything. */
  autocompleteMinQueries: number;
  /** Distinct sessions that must have asked a query before it is ever suggested to others. */
  autocompleteMinSessions: number;
  fusion: FusionMethod;
  /** Weight of the keyword leg in `weighted` fusion (the vector leg gets 1 - this). */
  keywordWeight: number;
  createdAt: number;
  updatedAt: number;
}

export interface InstantAnswerRecord {
  id: string;
  configurationUid: string;
  title: string;
  /** Sanitized HTML. */
  content: string;
  url: string | null;
  keywords: string[];
  configuration: Record<string, unknown> | null;
  createdAt: number;
  updatedAt: number;
}

export interface ConfigurationStore {
  insert(record: ConfigurationRecord): Promise<void>;
  get(uid: string): Promise<ConfigurationRecord | null>;
  /** Oldest first (then by uid, as `id` of the page key); a page of them after `page.after`, or all without `page`. */
  list(page?: ListPage<CreatedKey>): Promise<ConfigurationRecord[]>;
  /** Replaces the stored record (the caller merged the patch); false when it does not exist. */
  replace(record: ConfigurationRecord): Promise<boolean>;
  delete(uid: string): Promise<boolean>;
  insertInstantAnswer(record: InstantAnswerRecord): Promise<void>;
  /** Oldest first (then by id); a page of them after `page.after`, or all without `page`. */
  instantAnswers(configurationUid: string, page?: ListPage<CreatedKey>): Promise<InstantAnswerRecord[]>;
  replaceInstantAnswer(record: InstantAnswerRecord): Promise<boolean>;
  deleteInstantAnswer(configurationUid: string, id: string): Promise<boolean>;
}
