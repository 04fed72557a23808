import type { Variant } from './configuration-store.js';
import type { ListPage } from './list-page.js';

export type Device = 'desktop' | 'mobile' | 'unknown';

/** One non-preview search, as insights aggregate it. */
export interface SearchEvent {
  id: string;
  at: number;
  configurationUid: string;
  variant: Variant;
  /** Keyed hash of the client's session id; the raw id is never stored. */
  session: string;
  /**
   * Keyed hash of the client's network address (clientHash); the raw address is never stored. Absent
   * (events a tool recorded), the event counts toward no address.
   */
  client?: string;
  device: Device;
  query: string;
  /** Normalized query: the key of autocomplete and click statistics. */
  normalized: string;
  resultCount: number;
}

export interface ClickEvent {
  at: number;
  configurationUid: string;
  searchEventId: string;
  session: string;
  /** Keyed hash of the clicking client's network address, as on SearchEvent. */
  client?: string;
  normalized: string;
  position: number;
  /** `<index uid>\u0000<document uid>` */
  target: string;
}

export interface SupportForwardEvent {
  at: number;
  configurationUid: string;
  url: string;
  session: string | null;
  device: Device;
}

/** One non-preview summary or chat reply. */
export interface GenerationEvent {
  id: string;
  at: number;
  configurationUid: string;
  kind: 'summary' | 'chat';
  session: string | null;
  device: Device;
  query: string;
  status: 'success' | 'no-relevant-results';
  latencyMs: number;
  /** Urls (or titles) of the references returned. */
  references: string[];
}

export interface Insights {
  searches: number;
  sessions: number;
  clicks: number;
  searchesWithClick: number;
  /** Searches followed by at least one click, over searches. */
  ctr: number;
  noResultSearches: number;
  topQueries: { query: string; searches: number; clicks: number }[];
  noResultQueries: { query: string; searches: number }[];
  clickPositions: { position: number; clicks: number }[];
  supportForwards: number;
  summaries: number;
  chats: number;
  /** Summaries and chat replies that found nothing relevant. */
  unansweredGenerations: number;
  summariesUnanswered: number;
  chatsUnanswered: number;
  /** Local days (see localDays) with searches; `sessions`: distinct sessions that searched that day. */
  byDay: { day: string; searches: number; clicks: number; noResults: number; sessions: number }[];
  /** Searches per device, most first. */
  devices: { device: Device; searches: number }[];
  /** The 20 urls most forwarded to, most first. */
  supportForwardUrls: { url: string; forwards: number }[];
}

export interface InsightsOptions {
  /** IANA zone whose local days `byDay` lists (default UTC). */
  timeZone?: string;
  /** Length of the top-query and no-result-query lists (default 20). */
  limit?: number;
}

/** How many distinct sessions and distinct client addresses stand behind a learnt signal. */
export interface Evidence {
  sessions: number;
  clients: number;
}

/**
 * Usage events and the statistics learnt from them (autocomplete, click boosts). Separate from
 * documents: losing the last second of events on a power cut is acceptable, so it commits cheaply.
 */
export interface EventStore {
  recordSearches(events: SearchEvent[]): Promise<void>;
  /** Records a click; false when that search event was already clicked at that position by that session. */
  recordClick(event: ClickEvent): Promise<boolean>;
  recordSupportForward(event: SupportForwardEvent): Promise<void>;
  recordGeneration(event: GenerationEvent): Promise<void>;
  /** Searches recorded for a configuration (what the autocomplete minimum counts). */
  queryCount(configurationUid: string): Promise<number>;
  /**
   * Earlier queries starting with `prefix`, asked by at least `min.sessions` distinct sessions from at
   * least `min.clients` distinct client addresses, not blocked; asked from the most addresses first,
   * then the most often.
   */
  suggestions(configurationUid: string, prefix: string, min: Evidence, limit: number): Promise<string[]>;
  /** Distinct sessions and distinct client addresses that clicked each target for a normalized query. */
  clickEvidence(configurationUid: string, normalized: string): Promise<Map<string, Evidence>>;
  /** Normalized queries an operator keeps out of the suggestions, by code point: a page after `page.after`, or all. */
  blockedSuggestions(configurationUid: string, page?: ListPage<string>): Promise<string[]>;
  /** Keeps a normalized query out of the suggestions (again: no change). */
  blockSuggestion(configurationUid: string, normalized: string, at: number): Promise<void>;
  /** Lets it be suggested again; false when it was not blocked. */
  unblockSuggestion(configurationUid: string, normalized: string): Promise<boolean>;
  insights(configurationUid: string, from: number, to: number, options?: InsightsOptions): Promise<Insights>;
  /** Drops everything recorded for a configuration, its blocked suggestions included. */
  forget(configurationUid: string): Promise<void>;
  /**
   * Retention: drops raw events recorded before `before` (ms epoch), and what was learnt from queries and
   * clicks not repeated since (suggestions, click boosts); returns how many raw events went.
   */
  prune(before: number): Promise<number>;
}
