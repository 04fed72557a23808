import type { Logger } from 'pino';
import { clientHash } from '../../shared/auth/client-hash.js';
import { sessionHash } from '../../shared/auth/keyed-hash.js';
import type { DocumentMetadata } from '../../shared/documents/document-metadata.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { FeedbackSigner } from '../../shared/feedback/feedback-token.js';
import type { Embedder } from '../../shared/llm/ports/embedder.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import type { Passage } from '../../shared/generation/generation-types.js';
import { HybridSearch, TARGET_SEPARATOR, type HybridHit, type Retrieval, type SearchedIndex } from '../../shared/search/operations/hybrid-search.js';
import { own } from '../../shared/records/own.js';
import type { ContentEngine } from '../../shared/search/engine/content-engine.js';
import type { IndexState } from '../../shared/search/engine/index-state.js';
import { matchInstantAnswers } from '../../shared/search/hybrid/match-instant-answers.js';
import { normalizeQuery } from '../../shared/search/query/normalize-query.js';
import { paragraphHtml } from '../../shared/search/render/paragraph-html.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { httpUrl } from '../../shared/text/http-url.js';
import type { ConfigurationRecord, Variant } from '../../shared/storage/ports/configuration-store.js';
import type { Device } from '../../shared/storage/ports/event-store.js';
import { newEventId, type EventRecorder } from './event-recorder.js';

export type { Retrieval };

/** What it takes for visitors' behaviour to change what everyone sees. */
export interface LearningOptions {
  /** Distinct client addresses (networks) behind clicks before they lift a result, behind a query before it is suggested. */
  minClients: number;
}

export interface SearchInterfaceRequest {
  uid: string;
  sessionId: string;
  /** The client's network (api/middleware/client.ts): only its keyed hash is recorded. */
  client: string;
  query: string;
  preview: boolean;
  device: Device;
  retrieval: Retrieval;
}

export interface SearchInterfaceResult {
  type: 'paragraph' | 'instant_answer';
  title?: string;
  url?: string;
  content: string;
  feedback_data: string;
  /** A paragraph's page fragments, when its source extracts them (SPEC: absent otherwise). */
  metadata?: DocumentMetadata;
  configuration?: Record<string, unknown>;
}

const NOT_REFUSED: Promise<AppError | null> = Promise.resolve(null);

export const VARIANT_NAMES: Record<Variant, string> = { tool: 'API Tool', ui: 'API UI' };

export { TARGET_SEPARATOR };

/** Where a result came from, for its `feedback_data`. */
export interface FeedbackContext {
  eventId: string;
  configuration: ConfigurationRecord;
  variant: Variant;
  normalized: string;
  session: string;
  preview: boolean;
}

/** The signed `feedback_data` of the result at `position` (1-based): index uid, document uid and section id. */
export function signFeedback(signer: FeedbackSigner, ctx: FeedbackContext, position: number, target: { i: string; d: string; s: number }): string {
  return signer.sign({
    e: ctx.eventId, c: ctx.configuration.uid, v: ctx.variant, p: position, ...target, q: ctx.normalized, h: ctx.session,
    ...(ctx.preview ? { x: 1 as const } : {}),
  });
}

/**
 * The search box over HTTP: a configuration's hybrid search (shared/search/operations/hybrid-search.ts)
 * with its instant answers first, results as the search interface answers them (escaped paragraphs,
 * urls, signed feedback_data, page fragments), and every search recorded.
 */
export class SearchInterfaceService {
  private readonly hybrid: HybridSearch;

  constructor(
    private readonly storage: Storage,
    engine: ContentEngine,
    embedder: Embedder | null,
    private readonly signer: FeedbackSigner,
    private readonly secret: string,
    private readonly recorder: EventRecorder,
    log: Logger,
    learning: LearningOptions = { minClients: 3 },
  ) {
    // With the keyword leg in Qdrant (and so the vectors), nothing of an index is held in this process.
    const external = storage.keywords && storage.vectors ? { keywords: storage.keywords, vectors: storage.vectors, storage } : null;
    this.hybrid = new HybridSearch(engine, embedder, storage.events, log, learning.minClients, external);
  }

  /** Runs searches over an index that has grown, recording nothing (ContentEngine.onGrown). */
  warm(state: IndexState, pause: () => Promise<void>): Promise<void> {
    return this.hybrid.warm(state, pause);
  }

  async configuration(variant: Variant, uid: string): Promise<ConfigurationRecord> {
    const c = await this.storage.configurations.get(uid);
    if (!c || c.variant !== variant) throw new AppError('not_found', `No ${VARIANT_NAMES[variant]} has the uid '${uid}'; copy the uid from its Install button`);
    return c;
  }

  /**
   * `refusal`: the request's rate-limit count, run beside the search (api/middleware/rate-limit.ts); a refused
   * search records nothing and throws the refusal.
   */
  async search(variant: Variant, req: SearchInterfaceRequest, refusal: Promise<AppError | null> = NOT_REFUSED): Promise<{ results: SearchInterfaceResult[] }> {
    const configuration = await this.configuration(variant, req.uid);
    const normalized = normalizeQuery(req.query);
    const session = sessionHash(this.secret, req.sessionId);
    const eventId = newEventId();
    const targets = await this.hybrid.targets(configuration.indexes);
    const analyzer = createAnalyzer(targets[0]?.index.languageCode ?? 'en');

    const answers = matchInstantAnswers(analyzer, req.query, await this.storage.configurations.instantAnswers(configuration.uid)).slice(0, configuration.resultCount);
    const paragraphs = await this.rank(configuration, targets, req, normalized, configuration.resultCount - answers.length);
    const [metadata, sections, urls] = await Promise.all([this.metadataOf(paragraphs), this.hybrid.sections(paragraphs), this.pageUrls(paragraphs)]);

    let position = 0;
    const sign = (i: string, d: string, s: number) =>
      signFeedback(this.signer, { eventId, configuration, variant, normalized, session, preview: req.preview }, ++position, { i, d, s });
    const results: SearchInterfaceResult[] = [
      ...answers.map((a) => {
        const url = httpUrl(a.url);
        return {
          type: 'instant_answer' as const,
          ...(url ? { url } : {}),
          content: a.content,
          feedback_data: sign('', a.id, 0),
          ...(a.configuration ? { configuration: a.configuration } : {}),
        };
      }),
      ...paragraphs.flatMap(({ index, uid }, i) => {
        const section = sections[i];
        // Deleted from the store since it was ranked: gone for this search too.
        if (!section) return [];
        const url = withAnchor(urls[i], section.anchor);
        const fragments = metadata.get(index.id)?.get(uid);
        return [{
          type: 'paragraph' as const,
          title: section.title,
          ...(url ? { url } : {}),
          content: paragraphHtml(section.text),
          feedback_data: sign(index.uid, uid, section.id),
          ...(fragments ? { metadata: fragments } : {}),
        }];
      }),
    ];
    const refused = await refusal;
    if (refused) throw refused;
    if (!req.preview) {
      this.recorder.search({
        id: eventId, at: Date.now(), configurationUid: configuration.uid, variant, session, client: clientHash(this.secret, req.client), device: req.device,
        query: req.query, normalized, resultCount: results.length,
      });
    }
    return { results };
  }

  /**
   * The sections a summary or chat reply is written from: the configuration's own ranking (hybrid,
   * click boosts, one section per document), as plain passages numbered from [1].
   */
  async passages(configuration: ConfigurationRecord, query: string, count: number, retrieval: Retrieval = 'hybrid'): Promise<Passage[]> {
    const hits = await this.rank(configuration, await this.hybrid.targets(configuration.indexes), { retrieval, query }, normalizeQuery(query), count);
    const [sections, urls] = await Promise.all([this.hybrid.sections(hits), this.pageUrls(hits)]);
    const found = hits.flatMap((hit, i) => (sections[i] ? [{ ...hit, section: sections[i], url: withAnchor(urls[i], sections[i].anchor) }] : []));
    return found.map(({ index, uid, section, url }, i) => (
      { index: i + 1, title: section.title, ...(url ? { url } : {}), text: section.text, section: { indexUid: index.uid, docUid: uid, sectionId: section.id } }
    ));
  }

  /**
   * The metadata of the paragraphs' documents, read per search from the document store (one read
   * per index with such results) instead of held in the loaded indexes: fragments can be large.
   * A loaded copy knows which documents have any; without one every result's document is asked for.
   */
  private async metadataOf(hits: HybridHit[]): Promise<Map<number, Map<string, DocumentMetadata>>> {
    const uids = uidsByIndex(hits, ({ state, uid }) => !state || state.hasMetadata(uid));
    const reads = [...uids].map(async ([indexId, list]) => [indexId, await this.storage.documents.metadata(indexId, list)] as const);
    return new Map(await Promise.all(reads));
  }

  /** The configuration's ranking of up to `count` sections, one per document. */
  private rank(configuration: ConfigurationRecord, targets: SearchedIndex[], req: { retrieval: Retrieval; query: string }, normalized: string, count: number): Promise<HybridHit[]> {
    const settings = { configurationUid: configuration.uid, fusion: configuration.fusion, keywordWeight: configuration.keywordWeight };
    return this.hybrid.rank(settings, targets, req, normalized, count);
  }

  /**
   * Each hit's page address (`source_url`, else `url`), in order: from the loaded copy, which holds the
   * fields filters read, or from the document store for the hits of an index not held here.
   */
  private async pageUrls(hits: HybridHit[]): Promise<(string | undefined)[]> {
    const missing = uidsByIndex(hits, ({ state }) => !state);
    const read = new Map(await Promise.all([...missing].map(async ([indexId, uids]) => [indexId, await this.storage.documents.fields(indexId, uids)] as const)));
    return hits.map(({ index, state, uid }) => {
      const value = (f: string) => (state ? state.fieldValue(uid, f) : own(read.get(index.id)?.get(uid), f));
      return httpUrl(value('source_url') ?? value('url'));
    });
  }
}

/** The document uids of the hits `keep` accepts, per index id. */
function uidsByIndex(hits: HybridHit[], keep: (hit: HybridHit) => boolean): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const hit of hits) {
    if (!keep(hit)) continue;
    const list = out.get(hit.index.id);
    if (list) list.push(hit.uid);
    else out.set(hit.index.id, [hit.uid]);
  }
  return out;
}

/** A page address pointing at a section's anchor. */
function withAnchor(base: string | undefined, anchor: string | null): string | undefined {
  if (base === undefined) return undefined;
  return anchor ? `${base.replace(/#.*$/, '')}#${encodeURIComponent(anchor)}` : base;
}
