import type { Logger } from 'pino';
import { clientHash } from '../../shared/auth/client-hash.js';
import { sessionHash } from '../../shared/auth/keyed-hash.js';
import type { DocumentMetadata } from '../../shared/documents/document-metadata.js';
import { AppError } from '../../shared/errors/app-error.js';
import type { FeedbackSigner } from '../../shared/feedback/feedback-token.js';
import type { Embedder } from '../../shared/llm/ports/embedder.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import type { Passage } from '../../shared/generation/generation-types.js';
import type { ContentEngine } from '../../shared/search/engine/content-engine.js';
import { HEADING_FIELD, type IndexState } from '../../shared/search/engine/index-state.js';
import { SearchTimeoutError, type SearchBudget } from '../../shared/search/engine/search-budget.js';
import { applyClickBoosts, clickVisitors } from '../../shared/search/hybrid/click-boost.js';
import { rankFused, reciprocalRankFusion, weightedFusion, type Ranking } from '../../shared/search/hybrid/fuse.js';
import { matchInstantAnswers } from '../../shared/search/hybrid/match-instant-answers.js';
import { normalizeQuery } from '../../shared/search/query/normalize-query.js';
import { scoreDisMaxDense } from '../../shared/search/rank/dismax.js';
import { PAGE_WEIGHT, pageScores } from '../../shared/search/rank/page-scores.js';
import { topUnits } from '../../shared/search/rank/top-units.js';
import { paragraphHtml } from '../../shared/search/render/paragraph-html.js';
import type { Storage } from '../../shared/storage/create-storage.js';
import { httpUrl } from '../../shared/text/http-url.js';
import type { ConfigurationRecord, Variant } from '../../shared/storage/ports/configuration-store.js';
import type { Device } from '../../shared/storage/ports/event-store.js';
import { newEventId, type EventRecorder } from './event-recorder.js';

export type Retrieval = 'hybrid' | 'keyword' | 'vector';

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

/** Candidates each leg contributes before fusion: enough for fusion to matter below the cut. */
const CANDIDATES = 50;
/** A query embedding that takes longer than this is dropped: the keyword leg answers alone. */
const EMBED_TIMEOUT_MS = 1500;
/** Weight of a section's own heading in the keyword leg (page title and body text weigh 1). */
const HEADING_BOOST = 1;
/** Searches a warm-up runs over an index that has grown. */
const WARM_QUERIES = 8;
export const VARIANT_NAMES: Record<Variant, string> = { tool: 'API Tool', ui: 'API UI' };

export const TARGET_SEPARATOR = '\u0000';
/** The page title is copied onto each of its sections (IndexState): a page has it once. */
const PER_PAGE = new Set(['title']);

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

interface Hit {
  index: IndexState;
  unit: number;
}

/**
 * The search box: hybrid retrieval over a configuration's indexes (keyword DisMax and vector
 * cosine, fused), learnt click boosts, instant answers first, one paragraph per document.
 */
export class SearchInterfaceService {
  constructor(
    private readonly storage: Storage,
    private readonly engine: ContentEngine,
    private readonly embedder: Embedder | null,
    private readonly signer: FeedbackSigner,
    private readonly secret: string,
    private readonly recorder: EventRecorder,
    private readonly log: Logger,
    private readonly learning: LearningOptions = { minClients: 3 },
  ) {}

  async configuration(variant: Variant, uid: string): Promise<ConfigurationRecord> {
    const c = await this.storage.configurations.get(uid);
    if (!c || c.variant !== variant) throw new AppError('not_found', `No ${VARIANT_NAMES[variant]} has the uid '${uid}'; copy the uid from its Install button`);
    return c;
  }

  async search(variant: Variant, req: SearchInterfaceRequest): Promise<{ results: SearchInterfaceResult[] }> {
    const configuration = await this.configuration(variant, req.uid);
    const normalized = normalizeQuery(req.query);
    const session = sessionHash(this.secret, req.sessionId);
    const eventId = newEventId();
    const states = await this.statesOf(configuration);
    const analyzer = states[0]?.analyzer ?? createAnalyzer('en');

    const answers = matchInstantAnswers(analyzer, req.query, await this.storage.configurations.instantAnswers(configuration.uid)).slice(0, configuration.resultCount);
    const paragraphs = await this.rankParagraphs(configuration, states, req, normalized, configuration.resultCount - answers.length);
    const metadata = await this.metadataOf(paragraphs);

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
      ...paragraphs.map(({ index, unit }) => {
        const { uid, section } = index.units[unit];
        const url = this.urlOf(index, uid, section.anchor);
        const fragments = metadata.get(index)?.get(uid);
        return {
          type: 'paragraph' as const,
          title: section.title,
          ...(url ? { url } : {}),
          content: paragraphHtml(section.text),
          feedback_data: sign(index.index.uid, uid, section.id),
          ...(fragments ? { metadata: fragments } : {}),
        };
      }),
    ];
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
    const hits = await this.rankParagraphs(configuration, await this.statesOf(configuration), { retrieval, query }, normalizeQuery(query), count);
    return hits.map(({ index, unit }, i) => {
      const { uid, section } = index.units[unit];
      const url = this.urlOf(index, uid, section.anchor);
      return { index: i + 1, title: section.title, ...(url ? { url } : {}), text: section.text, section: { indexUid: index.index.uid, docUid: uid, sectionId: section.id } };
    });
  }

  /**
   * The metadata of the paragraphs' documents, read per search from the document store (one read
   * per index with such results) instead of held in the loaded indexes: fragments can be large.
   */
  private async metadataOf(hits: Hit[]): Promise<Map<IndexState, Map<string, DocumentMetadata>>> {
    const uids = new Map<IndexState, string[]>();
    for (const { index, unit } of hits) {
      const uid = index.units[unit].uid;
      if (!index.docsWithMetadata.has(uid)) continue;
      const list = uids.get(index);
      if (list) list.push(uid);
      else uids.set(index, [uid]);
    }
    const reads = [...uids].map(async ([index, list]) => [index, await this.storage.documents.metadata(index.index.id, list)] as const);
    return new Map(await Promise.all(reads));
  }

  /**
   * Ranks a few queries of the index's own words over it, both legs, recording nothing: run in the
   * background when an index has grown (ContentEngine.onGrown), so a visitor's first search does not
   * pay for compiling the ranking code or touching cold vector lists (60-80 ms at 100,000 documents).
   */
  async warm(state: IndexState): Promise<void> {
    for (const query of state.sampleQueries(WARM_QUERIES)) {
      this.safely('keyword', () => this.keywordLeg([state], query, this.engine.budget()));
      await this.vectorLeg([state], query);
    }
  }

  /** The configuration's indexes as loaded for search (an index deleted since is skipped). */
  private async statesOf(configuration: ConfigurationRecord): Promise<IndexState[]> {
    const states = await Promise.all(configuration.indexes.map((u) => this.engine.state(u)));
    return states.filter((s): s is IndexState => s !== null);
  }

  private async rankParagraphs(configuration: ConfigurationRecord, states: IndexState[], req: Pick<SearchInterfaceRequest, 'retrieval' | 'query'>, normalized: string, count: number): Promise<Hit[]> {
    if (count <= 0 || states.length === 0) return [];
    const budget = this.engine.budget();
    const keyword = req.retrieval === 'vector' ? [] : this.safely('keyword', () => this.keywordLeg(states, req.query, budget));
    // The click statistics are read while the legs rank; without them the ranking is still an answer.
    const clicks = this.storage.events.clickEvidence(configuration.uid, normalized).then(
      (stats) => new Map([...stats].map(([target, e]) => [target, clickVisitors(e, this.learning.minClients)])),
      (err) => {
        this.log.error({ err }, 'click statistics unavailable; ranking without click boosts');
        return new Map<string, number>();
      },
    );
    const vector = req.retrieval === 'keyword' ? [] : await this.vectorLeg(states, req.query);
    const fused =
      configuration.fusion === 'weighted'
        ? weightedFusion([keyword, vector], [configuration.keywordWeight, 1 - configuration.keywordWeight])
        : reciprocalRankFusion([keyword, vector], [configuration.keywordWeight, 1 - configuration.keywordWeight]);
    // One paragraph per document: its best-ranked section.
    const byDoc = new Map<string, { hit: Hit; target: string; score: number }>();
    for (const { key, score } of rankFused(fused)) {
      const hit = this.hitOf(states, key);
      const target = `${hit.index.index.uid}${TARGET_SEPARATOR}${hit.index.units[hit.unit].uid}`;
      if (!byDoc.has(target)) byDoc.set(target, { hit, target, score });
    }
    const boosted = applyClickBoosts([...byDoc.values()], await clicks);
    return boosted.slice(0, count).map((b) => b.hit);
  }

  /** A leg that throws contributes nothing: the other leg's ranking is still an answer. */
  private safely(leg: string, run: () => Ranking): Ranking {
    try {
      return run();
    } catch (err) {
      if (err instanceof SearchTimeoutError) {
        throw new AppError('timeout', `Search was stopped: ${err.message}. Try a shorter query`);
      }
      this.log.error({ err }, `${leg} ranking failed; answering with the other leg`);
      return [];
    }
  }

  private keywordLeg(states: IndexState[], query: string, budget: SearchBudget): Ranking {
    const all: Ranking = [];
    states.forEach((state, s) => {
      const terms = state.analyzer.analyze(query);
      if (terms.length === 0) return;
      const fields = this.keywordFields(state);
      const { units, scores } = scoreDisMaxDense(state.inverted, terms, { fields, topK: 2 * CANDIDATES, budget });
      // A page's overall match counts beside its section's: candidates beyond the cut can still rise.
      const top = topUnits(units, scores, 2 * CANDIDATES).map((u) => ({ u, score: scores[u] }));
      const docOf = (u: number) => state.units[u].uid;
      const wanted = [...new Set(top.map((t) => docOf(t.u)))].map((doc) => ({ doc, units: state.docUnits.get(doc) ?? [] }));
      const pages = pageScores(state.inverted, state.pages, terms, fields.map((f) => f.field), PER_PAGE, wanted);
      for (const { u, score } of top) all.push({ key: `${s}:${u}`, score: score + PAGE_WEIGHT * (pages.get(docOf(u)) ?? 0) });
    });
    return all.sort((a, b) => b.score - a.score).slice(0, CANDIDATES);
  }

  private async vectorLeg(states: IndexState[], query: string): Promise<Ranking> {
    if (!this.embedder || !states.some((s) => this.engine.hasVectors(s))) return [];
    let vector: Float32Array;
    try {
      const signal = AbortSignal.timeout(EMBED_TIMEOUT_MS);
      [vector] = await this.embedder.embed([query], signal);
    } catch (err) {
      // The keyword leg still answers: a search box with keyword results beats an error.
      this.log.warn({ err }, 'query embedding failed; keyword results only');
      return [];
    }
    const all: Ranking = [];
    try {
      const legs = await Promise.all(states.map((state) => this.engine.vectorTop(state, vector, CANDIDATES)));
      legs.forEach((hits, s) => {
        // Cosine 0 or below says nothing in common (an all-unknown-words query embeds to zeros).
        for (const { unit, score } of hits) if (score > 0) all.push({ key: `${s}:${unit}`, score });
      });
    } catch (err) {
      // An external vector index that is down: the keyword leg still answers.
      this.log.error({ err }, 'vector ranking failed; answering with the keyword leg');
      return [];
    }
    return all.sort((a, b) => b.score - a.score).slice(0, CANDIDATES);
  }

  /** Every text field of the index at boost 1, plus each section's own heading. */
  private keywordFields(state: IndexState) {
    return [
      ...Object.entries(state.index.fields).filter(([, spec]) => spec.type === 'text' || spec.type === 'html').map(([field]) => ({ field, boost: 1 })),
      { field: HEADING_FIELD, boost: HEADING_BOOST },
    ];
  }

  private hitOf(states: IndexState[], key: string): Hit {
    const colon = key.indexOf(':');
    return { index: states[Number(key.slice(0, colon))], unit: Number(key.slice(colon + 1)) };
  }

  private urlOf(state: IndexState, uid: string, anchor: string | null): string | undefined {
    const fields = state.docFields.get(uid);
    const base = httpUrl(fields?.source_url ?? fields?.url);
    if (base === undefined) return undefined;
    return anchor ? `${base.replace(/#.*$/, '')}#${encodeURIComponent(anchor)}` : base;
  }
}
