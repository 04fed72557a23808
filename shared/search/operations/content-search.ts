import { AppError } from '../../errors/app-error.js';
import { textFieldNames } from '../../indexes/index-schema.js';
import { WARM_QUERIES, type ContentEngine } from '../engine/content-engine.js';
import type { IndexState } from '../engine/index-state.js';
import { atPositions } from '../engine/sections-at.js';
import { SearchTimeoutError, type SearchBudget } from '../engine/search-budget.js';
import { compileFilter, FilterFieldError, type Predicate } from '../filter/compile-filter.js';
import { containsRun } from '../filter/leaf-matchers.js';
import { FilterSyntaxError } from '../query/fq-lexer.js';
import { parseFilter } from '../query/fq-parser.js';
import { BoostingSyntaxError, parseBoosting, type FieldBoost } from '../query/qf-parser.js';
import { LUCENE_BM25, type Bm25Params } from '../rank/bm25.js';
import { scoreDisMaxDense } from '../rank/dismax.js';
import { createAnalyzer, type Analyzer } from '../analyzer/analyzer.js';
import type { FqNode } from '../query/fq-ast.js';
import type { IndexRecord } from '../../indexes/index-schema.js';
import { KeywordFieldUnavailable, KeywordFilterUnsupported, keywordKey, type KeywordHit, type KeywordIndex } from '../../storage/ports/keyword-index.js';
import type { Storage } from '../../storage/ports/storage.js';
import { own } from '../../records/own.js';
import type { DocumentFields } from '../../storage/ports/document-store.js';

/** An unrestricted search's verdicts: never read or written (no filter, no phrase: every unit is allowed). */
const NO_VERDICTS = new Int8Array(0);
const NO_LISTS = new Set<string>();

/** One content search (POST /v1/content/search, API.md section C), as its route validated it. */
export interface ContentSearchRequest {
  index_uid: string;
  query: string;
  /** Solr qf: the text fields searched, with boosts ("title^2 body"). */
  boosting: string;
  /** Solr fq ('' for none). */
  filter: string;
  /** Stored fields each result carries. */
  fields: string[];
  limit: number;
  bm25?: Bm25Params;
  /** DisMax tie breaker. */
  tie: number;
}

/**
 * Content search, the operation: DisMax BM25 over the boosted fields, Solr fq filters, one hit per
 * document, over an index the engine holds. It knows no HTTP: the route validates and maps to it.
 */
export class ContentSearch {
  constructor(
    private readonly engine: ContentEngine,
    /** With QUARRY_KEYWORD_INDEX=qdrant: the keyword leg outside this process, and the stores results are read from. */
    private readonly external: { keywords: KeywordIndex; storage: Pick<Storage, 'indexes' | 'sections' | 'documents'> } | null = null,
  ) {}

  async search(req: ContentSearchRequest) {
    if (this.external) return this.searchExternal(req, this.external);
    const state = await this.engine.state(req.index_uid);
    if (!state) throw new AppError('index_not_found', `Index '${req.index_uid}' does not exist`);
    const budget = this.engine.budget();
    try {
      return await this.rank(state, req, budget);
    } catch (err) {
      if (err instanceof SearchTimeoutError) {
        throw new AppError('timeout', `Search of index '${state.index.uid}' was stopped: ${err.message}. Narrow it: fewer or shorter wildcards in filter (a leading '*' costs most), or fewer query terms`);
      }
      throw err;
    }
  }

  /** Searches a few queries of the index's own words over it (ContentEngine.onGrown), every text field at boost 1. */
  async warm(state: IndexState, pause: () => Promise<void>): Promise<void> {
    const boosting = textFieldNames(state.index.fields).map((f) => `${f}^1`).join(' ');
    if (!boosting) return;
    for (const query of await this.engine.sampleQueries(state, WARM_QUERIES)) {
      await pause();
      await this.rank(state, { index_uid: state.index.uid, query, boosting, filter: '', fields: [], limit: 10, tie: 0 }, this.engine.budget());
    }
  }

  private async rank(state: IndexState, req: ContentSearchRequest, budget: SearchBudget) {
    const fields = boostedFields(state.index, req.boosting);
    const filter = compiledFilter(state.index, state.analyzer, parsedFilter(req.filter), budget);
    checkFields(state.index, req.fields);
    const { terms, phrases } = parseQuery(state.analyzer, req.query);
    const filterOk = (uid: string) => !filter || filter({ value: (f) => state.fieldValue(uid, f), terms: (f) => state.termsOf(uid, f) });
    const phraseOk = (uid: string) => phrases.every((run) => fields.some(({ field }) => containsRun(state.termsOf(uid, field), run)));
    // Filters with NOW change meaning over time: only the others are cached across queries.
    // Without a filter or phrase every unit is allowed: no verdicts at all (an array the size of the index per query otherwise).
    const restricted = filter !== null || phrases.length > 0;
    const { verdicts, judgedLists } = restricted ? state.filterVerdicts(filter && !req.filter.includes('NOW') ? req.filter : null) : { verdicts: NO_VERDICTS, judgedLists: NO_LISTS };
    const phraseVerdicts = new Int8Array(phrases.length ? state.inverted.unitCount : 0);
    const judge = (u: number) => {
      if (verdicts[u] === 0) verdicts[u] = filterOk(state.uidOf(u)) ? 1 : -1;
      if (verdicts[u] < 0 || phrases.length === 0) return;
      if (phraseVerdicts[u] === 0) phraseVerdicts[u] = phraseOk(state.uidOf(u)) ? 1 : -1;
    };
    // The costly part, judging units against the filter and phrases, runs first in slices that let
    // other requests in; scoring then only reads the verdicts. A unit published meanwhile has none
    // and is left out: it arrived after this search began.
    if (restricted) {
      if (terms.length === 0) await budget.forEach(this.firstUnits(state), judge);
      else {
        // Lists an earlier query with this filter judged whole are skipped (phrases are judged per query).
        const lists = this.postingLists(state, terms, fields).filter((l) => phrases.length > 0 || !judgedLists.has(l.key));
        await budget.forEachIn(lists, judge);
        if (phrases.length === 0) for (const l of lists) judgedLists.add(l.key);
      }
    }
    const allow = (u: number) => verdicts[u] === 1 && (phrases.length === 0 || phraseVerdicts[u] === 1);

    const best = new Map<string, { unit: number; score: number }>();
    if (terms.length === 0) {
      for (const { uid, firstUnit } of state.documents()) if (!restricted || allow(firstUnit)) best.set(uid, { unit: firstUnit, score: 0 });
    } else {
      // The best `limit` documents, each by its best unit (one unit per document), found with pruned scoring
      // (only what can still make them is scored in full).
      const documentOf = (u: number) => state.documentOf(u);
      const { units, scores } = scoreDisMaxDense(state.inverted, terms, { fields, bm25: req.bm25, tie: req.tie, allow: restricted ? allow : undefined, budget, topK: req.limit, documentOf });
      for (const unit of units) best.set(state.uidOf(unit), { unit, score: scores[unit] });
    }
    const ranked = [...best].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, req.limit);
    // Texts and stored fields are not held in memory: read for the results only.
    // Values of other fields are held for filters: read there unless a text field is asked for.
    const fromStore = req.fields.some((f) => isTextField(state, f));
    const [sections, stored] = await Promise.all([
      this.engine.sections(state, ranked.map(([, { unit }]) => unit)),
      fromStore ? this.engine.documentFields(state, ranked.map(([uid]) => uid)) : heldFields(state, ranked.map(([uid]) => uid), req.fields),
    ]);
    return {
      results: ranked.flatMap(([uid, { score }], i) => {
        const section = sections[i];
        // Deleted from the store since it was ranked: gone for this search too.
        if (!section) return [];
        const values = stored.get(uid);
        return [{ uid, section: section.text, fields: Object.fromEntries(req.fields.filter((f) => own(values, f) !== undefined).map((f) => [f, own(values, f)])), score }];
      }),
    };
  }

  /** The units a search without terms must judge: each document's first. */
  private *firstUnits(state: IndexState): Iterable<number> {
    for (const { firstUnit } of state.documents()) yield firstUnit;
  }

  /** The posting lists of the query's terms in the boosted fields: the units a search with terms must judge. */
  private postingLists(state: IndexState, terms: string[], fields: FieldBoost[]): { values: Int32Array; length: number; key: string }[] {
    const lists: { values: Int32Array; length: number; key: string }[] = [];
    for (const term of new Set(terms)) {
      for (const field of new Set(fields.map((f) => f.field))) {
        const list = state.inverted.postings(field, term);
        if (list) lists.push({ values: list.units, length: list.length, key: `${field}\u0000${term}` });
      }
    }
    return lists;
  }

  /**
   * The same search with the keyword leg in Qdrant: the same checks and 400s, then DisMax there (see
   * QdrantKeywordIndex), the results' sections and fields read from the store. What that leg cannot do
   * exactly is answered 400 naming it and the mode (docs/scale-out.md has the table).
   */
  private async searchExternal(req: ContentSearchRequest, ext: NonNullable<ContentSearch['external']>) {
    const index = await ext.storage.indexes.get(req.index_uid);
    if (!index) throw new AppError('index_not_found', `Index '${req.index_uid}' does not exist`);
    const analyzer = createAnalyzer(index.languageCode);
    const fields = boostedFields(index, req.boosting);
    const node = parsedFilter(req.filter);
    compiledFilter(index, analyzer, node, null);
    checkFields(index, req.fields);
    const { terms, phrases } = parseQuery(analyzer, req.query);
    const unavailable = (what: string) => new AppError('invalid_request', `Invalid request: ${what} is not available with QUARRY_KEYWORD_INDEX=qdrant (the keyword index in Qdrant); the embedded engine has it`);
    if (phrases.length) throw unavailable('query: a quoted phrase');
    if (terms.length === 0) throw unavailable('query: a search without terms (a listing by filter)');
    if (req.bm25 && (req.bm25.k1 !== LUCENE_BM25.k1 || req.bm25.b !== LUCENE_BM25.b)) throw unavailable('bm25: parameters other than k1 1.2, b 0.75 (the weights stored in Qdrant use those)');
    let hits: KeywordHit[];
    try {
      hits = await ext.keywords.search(keywordKey(index), { fields, terms, tie: req.tie, filter: node.kind === 'all' ? null : node, schema: index.fields, now: new Date(), limit: req.limit });
    } catch (err) {
      if (err instanceof KeywordFilterUnsupported) throw new AppError('invalid_filter', `Invalid request: filter: at position ${err.position}: ${err.message}`, { position: err.position });
      if (err instanceof KeywordFieldUnavailable) throw new AppError('invalid_request', `Invalid request: boosting: ${err.message}`);
      throw err;
    }
    const [sections, stored] = await Promise.all([
      ext.storage.sections.sectionsAt(index.id, hits).then((rows) => atPositions(rows, hits)),
      req.fields.length ? ext.storage.documents.fields(index.id, hits.map((h) => h.uid)) : new Map<string, DocumentFields>(),
    ]);
    return {
      results: hits.flatMap(({ uid, score }, i) => {
        const section = sections[i];
        // Deleted from the store since it was ranked: gone for this search too.
        if (!section) return [];
        const values = stored.get(uid);
        return [{ uid, section: section.text, fields: Object.fromEntries(req.fields.filter((f) => own(values, f) !== undefined).map((f) => [f, own(values, f)])), score }];
      }),
    };
  }
}

function boostedFields(index: IndexRecord, boosting: string): FieldBoost[] {
  let fields: FieldBoost[];
  try {
    fields = parseBoosting(boosting);
  } catch (err) {
    if (err instanceof BoostingSyntaxError) throw new AppError('invalid_request', `Invalid request: boosting: ${err.message}`, { position: err.position });
    throw err;
  }
  for (const { field } of fields) {
    const type = own(index.fields, field)?.type;
    if (type !== 'text' && type !== 'html') {
      throw new AppError('invalid_request', `Invalid request: boosting: '${field}' is not a text or html field of index '${index.uid}'; boost one of: ${textFieldNames(index.fields).join(', ')}`, { position: boosting.indexOf(field) });
    }
  }
  return fields;
}

function checkFields(index: IndexRecord, fields: string[]): void {
  for (const f of fields) {
    if (!own(index.fields, f)) throw new AppError('invalid_request', `Invalid request: fields: '${f}' is not a field of index '${index.uid}'`);
  }
}

function parsedFilter(filter: string): FqNode {
  try {
    return parseFilter(filter);
  } catch (err) {
    if (err instanceof FilterSyntaxError) throw new AppError('invalid_filter', `Invalid request: filter: ${err.message}`, { position: err.position });
    throw err;
  }
}

/** The compiled filter (checked against the schema: unknown fields and bad values are 400s), or null when it lets everything through. */
function compiledFilter(index: IndexRecord, analyzer: Analyzer, node: FqNode, budget: SearchBudget | null): Predicate | null {
  if (node.kind === 'all') return null;
  try {
    return compileFilter(node, { fields: index.fields, analyzer, now: new Date(), ...(budget && { spend: (n: number) => budget.spend(n) }) });
  } catch (err) {
    if (err instanceof FilterFieldError) throw new AppError('invalid_filter', `Invalid request: filter: ${err.message}`, { position: err.position });
    throw err;
  }
}

/** Terms of the whole query score; a quoted phrase must also occur as written in a boosted field. */
function parseQuery(analyzer: Analyzer, query: string) {
  const phrases = [...query.matchAll(/"([^"]*)"/g)].map((m) => analyzer.analyze(m[1])).filter((r) => r.length > 1);
  return { terms: analyzer.analyze(query.replace(/"/g, ' ')), phrases };
}

function isTextField(state: IndexState, field: string): boolean {
  const type = own(state.index.fields, field)?.type;
  return type === 'text' || type === 'html';
}

/** The asked-for fields of these documents as held for filters (none of them a text field). */
function heldFields(state: IndexState, uids: string[], fields: string[]): Map<string, DocumentFields> {
  return new Map(uids.map((uid) => [uid, Object.fromEntries(fields.map((f) => [f, state.fieldValue(uid, f)]))]));
}
