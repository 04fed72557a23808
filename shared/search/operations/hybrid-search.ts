import { AppError } from '../../errors/app-error.js';
import { textFieldNames } from '../../indexes/index-schema.js';
import type { Embedder } from '../../llm/ports/embedder.js';
import { timeoutSignal } from '../../llm/timeout-signal.js';
import type { FusionMethod } from '../../storage/ports/configuration-store.js';
import type { EventStore } from '../../storage/ports/event-store.js';
import type { SectionView } from '../../storage/ports/section-store.js';
import { WARM_QUERIES, type ContentEngine } from '../engine/content-engine.js';
import type { IndexState } from '../engine/index-state.js';
import { HEADING_FIELD, PAGE_ONCE_FIELDS } from '../engine/unit-terms.js';
import { atPositions } from '../engine/sections-at.js';
import { createAnalyzer } from '../analyzer/analyzer.js';
import type { IndexRecord } from '../../indexes/index-schema.js';
import { keywordKey, type KeywordIndex } from '../../storage/ports/keyword-index.js';
import type { Storage } from '../../storage/ports/storage.js';
import type { VectorIndex } from '../../storage/ports/vector-index.js';
import { SearchTimeoutError, type SearchBudget } from '../engine/search-budget.js';
import { applyClickBoosts, clickVisitors } from '../hybrid/click-boost.js';
import { rankFused, reciprocalRankFusion, weightedFusion, type Ranking } from '../hybrid/fuse.js';
import { scoreDisMaxDense } from '../rank/dismax.js';
import { PAGE_WEIGHT, pageScores } from '../rank/page-scores.js';
import { topUnits } from '../rank/top-units.js';

export type Retrieval = 'hybrid' | 'keyword' | 'vector';

/** How a configuration fuses the two legs, and where its learnt clicks are kept. */
export interface FusionSettings {
  configurationUid: string;
  fusion: FusionMethod;
  /** The keyword leg's weight; the vector leg gets the rest. */
  keywordWeight: number;
}

/** An index a search runs over: its definition, and its loaded copy when the keyword leg is this process's engine. */
export interface SearchedIndex {
  index: IndexRecord;
  /** null: the keyword leg is in Qdrant (QUARRY_KEYWORD_INDEX=qdrant) and nothing of the index is held here. */
  state: IndexState | null;
}

/** A section found: its index, document, version and position (and its unit in the loaded copy, when there is one). */
export interface HybridHit {
  index: IndexRecord;
  state: IndexState | null;
  uid: string;
  version: number;
  ord: number;
  /** The unit in `state`; -1 without one. */
  unit: number;
}

/** The keyword leg and vectors outside this process (QUARRY_KEYWORD_INDEX=qdrant), and the stores the rest is read from. */
export interface ExternalSearch {
  keywords: KeywordIndex;
  vectors: VectorIndex;
  storage: Pick<Storage, 'indexes' | 'sections'>;
}

interface Log {
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
}

/** Candidates each leg contributes before fusion: enough for fusion to matter below the cut. */
const CANDIDATES = 50;
/** A query embedding that takes longer than this is dropped: the keyword leg answers alone. */
const EMBED_TIMEOUT_MS = 1500;
/** Weight of a section's own heading in the keyword leg (page title and body text weigh 1). */
const HEADING_BOOST = 1;
/** Between an index uid and a document uid in a click target. */
export const TARGET_SEPARATOR = '\u0000';

/**
 * The search interface's search, the operation: hybrid retrieval over a configuration's indexes
 * (keyword DisMax with page evidence, and vector cosine, fused), learnt click boosts, one section per
 * document. It takes the engine, the embedder and the click statistics; HTTP, configurations, instant
 * answers and recording stay in the service that calls it.
 */
export class HybridSearch {
  constructor(
    private readonly engine: ContentEngine,
    private readonly embedder: Embedder | null,
    private readonly events: Pick<EventStore, 'clickEvidence'>,
    private readonly log: Log,
    /** Distinct client networks behind clicks before they lift a result. */
    private readonly minClients: number,
    private readonly external: ExternalSearch | null = null,
  ) {}

  /** The indexes to search, loaded (and caught up) when the keyword leg is this process's; an index deleted since is skipped. */
  async targets(indexUids: string[]): Promise<SearchedIndex[]> {
    if (this.external) {
      const { indexes } = this.external.storage;
      const found = await Promise.all(indexUids.map((u) => indexes.get(u)));
      return found.flatMap((index) => (index ? [{ index, state: null }] : []));
    }
    const states = await Promise.all(indexUids.map((u) => this.engine.state(u)));
    return states.flatMap((state) => (state ? [{ index: state.index, state }] : []));
  }

  /** The best `count` sections, one per document, for `query` (already normalized as `normalized` for click statistics). */
  async rank(settings: FusionSettings, targets: SearchedIndex[], req: { retrieval: Retrieval; query: string }, normalized: string, count: number): Promise<HybridHit[]> {
    if (count <= 0 || targets.length === 0) return [];
    const budget = this.engine.budget();
    // Both legs at once. An inline embedder (GloVe) gives the query vector at once: the vector leg then
    // starts first, its lists' products computed off the event loop (native addon) while the keyword leg
    // of a loaded copy scores right here. Any other embedder's vector takes a while (a round trip, a model
    // run on threads of its own): the keyword leg scores while it is on its way.
    const vectorFirst = req.retrieval !== 'keyword' && this.embedder?.inline === true;
    const vectorStarted = vectorFirst ? (await this.startedVectorLeg(targets, req.query)).ranking : null;
    const keywordRanking = req.retrieval === 'vector' ? Promise.resolve([]) : this.safelyAsync('keyword', () => this.keywordLeg(targets, req.query, budget));
    // The click statistics are read while the legs rank; without them the ranking is still an answer.
    const clicks = this.events.clickEvidence(settings.configurationUid, normalized).then(
      (stats) => new Map([...stats].map(([target, e]) => [target, clickVisitors(e, this.minClients)])),
      (err) => {
        this.log.error({ err }, 'click statistics unavailable; ranking without click boosts');
        return new Map<string, number>();
      },
    );
    const vector = req.retrieval === 'keyword' ? [] : await (vectorStarted ?? this.vectorLeg(targets, req.query));
    const keyword = await keywordRanking;
    const weights = [settings.keywordWeight, 1 - settings.keywordWeight];
    const fused = settings.fusion === 'weighted' ? weightedFusion([keyword, vector], weights) : reciprocalRankFusion([keyword, vector], weights);
    // One section per document: its best-ranked.
    const byDoc = new Map<string, { hit: HybridHit; target: string; score: number }>();
    for (const { key, score } of rankFused(fused)) {
      const hit = this.hitOf(targets, key);
      const target = `${hit.index.uid}${TARGET_SEPARATOR}${hit.uid}`;
      if (!byDoc.has(target)) byDoc.set(target, { hit, target, score });
    }
    const boosted = applyClickBoosts([...byDoc.values()], await clicks);
    return boosted.slice(0, count).map((b) => b.hit);
  }

  /** The sections of these hits as the store has them, in the same order (null for one deleted since). */
  async sections(hits: readonly HybridHit[]): Promise<(SectionView | null)[]> {
    const byIndex = new Map<number, number[]>();
    hits.forEach((h, i) => {
      const at = byIndex.get(h.index.id);
      if (at) at.push(i);
      else byIndex.set(h.index.id, [i]);
    });
    const out: (SectionView | null)[] = hits.map(() => null);
    await Promise.all(
      [...byIndex].map(async ([indexId, at]) => {
        const state = hits[at[0]].state;
        if (state) {
          const sections = await this.engine.sections(state, at.map((i) => hits[i].unit));
          at.forEach((i, j) => (out[i] = sections[j]));
          return;
        }
        // Read at their positions: a document published again since answers with its newer section there.
        const positions = at.map((i) => ({ uid: hits[i].uid, ord: hits[i].ord }));
        const sections = atPositions(await this.external!.storage.sections.sectionsAt(indexId, positions), positions);
        at.forEach((i, j) => (out[i] = sections[j]));
      }),
    );
    return out;
  }

  /**
   * Ranks a few queries of the index's own words over it, both legs, recording nothing: run in the
   * background when an index has grown (ContentEngine.onGrown), so a visitor's first search does not
   * pay for compiling the ranking code or touching cold vector lists (60-80 ms at 100,000 documents).
   */
  async warm(state: IndexState, pause: () => Promise<void>): Promise<void> {
    const target = [{ index: state.index, state }];
    for (const query of await this.engine.sampleQueries(state, WARM_QUERIES)) {
      await pause();
      await this.safelyAsync('keyword', () => this.keywordLeg(target, query, this.engine.budget()));
      await this.vectorLeg(target, query);
    }
  }

  /** A leg that throws contributes nothing: the other leg's ranking is still an answer. */
  private async safelyAsync(leg: string, run: () => Promise<Ranking>): Promise<Ranking> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof SearchTimeoutError) {
        throw new AppError('timeout', `Search was stopped: ${err.message}. Try a shorter query`);
      }
      this.log.error({ err }, `${leg} ranking failed; answering with the other leg`);
      return [];
    }
  }

  private async keywordLeg(targets: SearchedIndex[], query: string, budget: SearchBudget): Promise<Ranking> {
    const all: Ranking = [];
    await Promise.all(targets.map(async ({ index, state }, s) => {
      if (!state) {
        all.push(...(await this.externalKeywordLeg(index, s, query)));
        return;
      }
      const terms = state.analyzer.analyze(query);
      if (terms.length === 0) return;
      const fields = keywordFields(index);
      const { units, scores } = scoreDisMaxDense(state.inverted, terms, { fields, topK: 2 * CANDIDATES, budget });
      // A page's overall match counts beside its section's: candidates beyond the cut can still rise.
      const top = topUnits(units, scores, 2 * CANDIDATES).map((u) => ({ u, score: scores[u] }));
      // Pages by their numbers in the loaded copy: their uids would cost a hash lookup each.
      const wanted = [...new Set(top.map((t) => state.documentOf(t.u)))].map((doc) => ({ doc, units: state.unitRange(doc) }));
      const pages = pageScores(state.inverted, state.pages, terms, fields.map((f) => f.field), PAGE_ONCE_FIELDS, wanted);
      for (const { u, score } of top) all.push({ key: `${s}:${u}`, score: score + PAGE_WEIGHT * (pages.get(state.documentOf(u)) ?? 0) });
    }));
    return all.sort((a, b) => b.score - a.score).slice(0, CANDIDATES);
  }

  /** The same ranking from the keyword index in Qdrant: the best sections, then their pages' scores. */
  private async externalKeywordLeg(index: IndexRecord, s: number, query: string): Promise<Ranking> {
    const { keywords } = this.external!;
    const terms = createAnalyzer(index.languageCode).analyze(query);
    if (terms.length === 0) return [];
    const fields = keywordFields(index);
    const top = await keywords.searchSections(keywordKey(index), { fields, terms, tie: 0, filter: null, schema: index.fields, now: new Date(), limit: 2 * CANDIDATES });
    const docs = new Map(top.map((h) => [h.uid, { uid: h.uid, version: h.version }]));
    const pages = await keywords.pageScores(keywordKey(index), { fields, terms, docs: [...docs.values()] });
    return top.map((h) => ({ key: externalKey(s, h), score: h.score + PAGE_WEIGHT * (pages.get(h.uid) ?? 0) }));
  }

  /** Starts the vector leg; resolves once its scans are under way (or it has ended), with the ranking to come. */
  private startedVectorLeg(targets: SearchedIndex[], query: string): Promise<{ ranking: Promise<Ranking> }> {
    return new Promise((started) => {
      // Called only after the leg's first await, so `ranking` is set by then.
      const ranking: Promise<Ranking> = this.vectorLeg(targets, query, () => started({ ranking }));
      const ended = () => started({ ranking });
      ranking.then(ended, ended);
    });
  }

  private async vectorLeg(targets: SearchedIndex[], query: string, onScanning?: () => void): Promise<Ranking> {
    if (!this.embedder || !targets.some((t) => !t.state || this.engine.hasVectors(t.state))) return [];
    let vector: Float32Array;
    const timeout = timeoutSignal(EMBED_TIMEOUT_MS, 'the query embedding');
    try {
      [vector] = await this.embedder.embed([query], timeout.signal);
    } catch (err) {
      // The keyword leg still answers: a search box with keyword results beats an error.
      this.log.warn({ err }, 'query embedding failed; keyword results only');
      return [];
    } finally {
      timeout.clear();
    }
    const all: Ranking = [];
    try {
      const scans = Promise.all(targets.map(async ({ index, state }, s) => {
        if (state) return (await this.engine.vectorTop(state, vector, CANDIDATES)).map(({ unit, score }) => ({ key: `${s}:${unit}`, score }));
        return (await this.external!.vectors.search(index.uid, vector, CANDIDATES)).map((h) => ({ key: externalKey(s, h), score: h.score }));
      }));
      // Each scan has been handed its lists by now (the calls above run up to the off-thread products).
      onScanning?.();
      const legs = await scans;
      // Cosine 0 or below says nothing in common (an all-unknown-words query embeds to zeros).
      for (const hits of legs) for (const h of hits) if (h.score > 0) all.push(h);
    } catch (err) {
      // An external vector index that is down: the keyword leg still answers.
      this.log.error({ err }, 'vector ranking failed; answering with the keyword leg');
      return [];
    }
    return all.sort((a, b) => b.score - a.score).slice(0, CANDIDATES);
  }

  private hitOf(targets: SearchedIndex[], key: string): HybridHit {
    const colon = key.indexOf(':');
    const { index, state } = targets[Number(key.slice(0, colon))];
    const rest = key.slice(colon + 1);
    if (state) {
      const unit = Number(rest);
      const ref = state.unitRef(unit);
      return { index, state, uid: ref.uid, version: ref.version, ord: ref.ord, unit };
    }
    const [version, ord, uid] = JSON.parse(rest) as [number, number, string];
    return { index, state: null, uid, version, ord, unit: -1 };
  }
}

/** Every text field of the index at boost 1, plus each section's own heading. */
function keywordFields(index: IndexRecord) {
  return [...textFieldNames(index.fields).map((field) => ({ field, boost: 1 })), { field: HEADING_FIELD, boost: HEADING_BOOST }];
}

/** A section's ranking key when it is not a unit of a loaded copy: the same from both legs, so fusion meets it once. */
const externalKey = (s: number, h: { uid: string; version: number; ord: number }) => `${s}:${JSON.stringify([h.version, h.ord, h.uid])}`;
