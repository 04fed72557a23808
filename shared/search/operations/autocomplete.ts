import { normalizeQuery } from '../query/normalize-query.js';
import type { EventStore, Evidence } from '../../storage/ports/event-store.js';

/** What autocomplete needs of a configuration and of the request. */
export interface AutocompleteRequest {
  configurationUid: string;
  /** Earlier searches the configuration needs before it suggests anything. */
  minQueries: number;
  /** Distinct sessions and client networks behind a query before it is suggested. */
  evidence: Evidence;
  /** What the visitor typed so far. */
  query: string;
  limit: number;
}

export type AutocompleteAnswer =
  | { ready: false; asked: number; needed: number }
  | { ready: true; suggestions: string[] };

/**
 * Autocomplete of the search interface: earlier queries of the configuration that start with what
 * was typed (after the same normalisation as a recorded query), backed by enough distinct sessions
 * and networks that one visitor cannot plant a suggestion. Before the configuration has seen
 * `minQueries` searches it suggests nothing and says how far it is.
 */
export class Autocomplete {
  constructor(private readonly events: EventStore) {}

  async suggest(req: AutocompleteRequest): Promise<AutocompleteAnswer> {
    const asked = await this.events.queryCount(req.configurationUid);
    if (asked < req.minQueries) return { ready: false, asked, needed: req.minQueries };
    const prefix = normalizeQuery(req.query);
    return { ready: true, suggestions: prefix ? await this.events.suggestions(req.configurationUid, prefix, req.evidence, req.limit) : [] };
  }
}
