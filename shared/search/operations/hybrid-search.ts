import { AppError } from '../../errors/app-error.js';
import { textFieldNames } from '../../indexes/index-schema.js';
import type { Embedder } from '../../llm/ports/embedder.js';
import type { FusionMethod } from '../../storage/ports/configuration-store.js';
import type { EventStore } from '../../storage/ports/event-store.js';
import type { SectionView } from '../../storage/ports/section-store.js';
import { WARM_QUERIES, type ContentEngine } from '../engine/content-engine.js';
import { HEADING_FIELD, type IndexState } from '../engine/index-state.js';
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

/** A section found: the index (as loaded) and its unit. */
export interface HybridHit {
  index: IndexState;
  unit: number;
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
/** The page title is copied onto each of its sections (IndexState): a page has it once. */
const PER_PAGE = new Set(['title']);
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
  ) {}

  /** The indexes as loaded for search (an index deleted since is skipped). */
  async states(indexUids: string[]): Promise<IndexState[]> {
    const states = await Promise.all(indexUids.map((u) => this.engine.state(u)));
    return states.filter((s): s is IndexState => s !== null);
  }

  /** The best `count` sections, one per document, for `query` (already normalized as `normalized` for click statistics). */
  async rank(settings: FusionSettings, states: IndexState[], req: { retrieval: Retrieval; query: string }, normalized: string, count: number): Promise<HybridHit[]> {
    if (count <= 0 || states.length === 0) return [];
    const budget = this.engine.budget();
    const keyword = req.retrieval === 'vector' ? [] : this.safely('keyword', () => this.keywordLeg(states, req.query, budget));
    // The click statistics are read while the legs rank; without them the ranking is still an answer.
    const clicks = this.events.clickEvidence(settings.configurationUid, normalized).then(
      (stats) => new Map([...stats].map(([target, e]) => [target, clickVisitors(e, this.minClients)])),
      (err) => {
        this.log.error({ err }, 'click statistics unavailable; ranking without click boosts');
        return new Map<string, number>();
      },
    );
    const vector = req.retrieval === 'keyword' ? [] : await this.vectorLeg(states, req.query);
    const weights = [settings.keywordWeight, 1 - settings.keywordWeight];
    const fused = settings.fusion === 'weighted' ? weightedFusion([keyword, vector], weights) : reciprocalRankFusion([keyword, vector], weights);
    // One section per document: its best-ranked.
    const byDoc = new Map<string, { hit: HybridHit; target: string; score: number }>();
    for (const { key, score } of rankFused(fused)) {
      const hit = this.hitOf(states, key);
      const target = `${hit.index.index.uid}${TARGET_SEPARATOR}${hit.index.uidOf(hit.unit)}`;
      if (!byDoc.has(target)) byDoc.set(target, { hit, target, score });
    }
    const boosted = applyClickBoosts([...byDoc.values()], await clicks);
    return boosted.slice(0, count).map((b) => b.hit);
  }

  /** The sections of these hits as the store has them, in the same order (null for one deleted since). */
  async sections(hits: readonly HybridHit[]): Promise<(SectionView | null)[]> {
    const byIndex = new Map<IndexState, number[]>();
    hits.forEach((h, i) => {
      const at = byIndex.get(h.index);
      if (at) at.push(i);
      else byIndex.set(h.index, [i]);
    });
    const out: (SectionView | null)[] = hits.map(() => null);
    await Promise.all(
      [...byIndex].map(async ([state, at]) => {
        const sections = await this.engine.sections(state, at.map((i) => hits[i].unit));
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
  async warm(state: IndexState): Promise<void> {
    for (const query of await this.engine.sampleQueries(state, WARM_QUERIES)) {
      this.safely('keyword', () => this.keywordLeg([state], query, this.engine.budget()));
      await this.vectorLeg([state], query);
    }
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
      const docOf = (u: number) => state.uidOf(u);
      const wanted = [...new Set(top.map((t) => docOf(t.u)))].map((doc) => ({ doc, units: state.unitsOf(doc) }));
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
      ...textFieldNames(state.index.fields).map((field) => ({ field, boost: 1 })),
      { field: HEADING_FIELD, boost: HEADING_BOOST },
    ];
  }

  private hitOf(states: IndexState[], key: string): HybridHit {
    const colon = key.indexOf(':');
    return { index: states[Number(key.slice(0, colon))], unit: Number(key.slice(colon + 1)) };
  }
}
