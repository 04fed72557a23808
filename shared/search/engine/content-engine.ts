import { performance } from 'node:perf_hooks';
import type { Storage } from '../../storage/ports/storage.js';
import type { DocumentFields } from '../../storage/ports/document-store.js';
import type { SectionView } from '../../storage/ports/section-store.js';
import type { FollowedVectorIndex, VectorIndex } from '../../storage/ports/vector-index.js';
import type { IndexRecord } from '../../indexes/index-schema.js';
import type { SnapshotStore } from '../../storage/ports/snapshot-store.js';
import { SnapshotReader, SnapshotWriter } from '../snapshot/snapshot-codec.js';
import { IndexState, type IndexStateSnapshot } from './index-state.js';
import { SearchBudget } from './search-budget.js';
import { SingleFlight } from './single-flight.js';
import { atPositions } from './sections-at.js';

const CHANGE_BATCH = 5000;
/** Documents whose sections are read in one part while an index is loaded from the store. */
const LOAD_PAGE_DOCUMENTS = 5000;
/** Documents whose fields are read in one query while loading or catching up. */
const FIELDS_BATCH = 500;
/**
 * Longest run of documents analysed in one turn of the event loop. The stores answer synchronously on
 * SQLite, so without these pauses catching up with a burst of tens of thousands of changes held every
 * route of the API for seconds (the chaos suite's /healthz probes waited 4-6 s after Redis came back).
 * A time, not a count: 100 documents a turn took ~35 ms on 2 busy cores, and an accepted PUT, which
 * needs two or three turns, waited that long for each (bench:push, docs/pipeline.md).
 */
const TURN_MS = 2;
/** Changed documents read from the store at once while catching up. */
const FOLLOW_PART = 100;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Pause between two passes of the background follower (startFollowing). */
const FOLLOW_EVERY_MS = 200;
/** Share of the event loop requests may use before a background pass waits, and the longest wait. */
const FOLLOW_BUSY_SHARE = 0.5;
const FOLLOW_DEFER_MAX_MS = 10_000;

/** The key a copy being loaded from the store holds its vectors under (no index uid has a NUL). */
const loadingKey = (uid: string) => `${uid}\u0000loading`;

/** Searches a warm-up (onGrown) runs over an index that has grown. */
export const WARM_QUERIES = 8;

/** The layout of engine snapshots: raise it with any change to what a snapshot holds or means. */
export const SNAPSHOT_FORMAT = 6;
/** Below this many units an index is never loaded afresh just to drop dead units. */
const COMPACT_MIN_UNITS = 1000;
/** Shortest time between two snapshots of one index (a changed index is written again at most this often). */
const SNAPSHOT_EVERY_MS = 30_000;
/** Changes must have paused this long before a snapshot is taken (unless SNAPSHOT_DEFER_MAX_MS passed). */
const SNAPSHOT_QUIET_MS = 10_000;
/** While requests take more of the event loop than this share, snapshots wait (unless SNAPSHOT_DEFER_MAX_MS passed)... */
const SNAPSHOT_BUSY_SHARE = 0.2;
/** ...and a changed index is snapshotted at the latest this long after its last snapshot. */
const SNAPSHOT_DEFER_MAX_MS = 5 * 60_000;

/** What a snapshot's header says besides the state: written against what, so a stale one is never read. */
interface SnapshotBody {
  indexId: number;
  updatedAt: number;
  scope: string;
  vectorModel: string | null;
  vectors: 'followed' | 'external';
  state: IndexStateSnapshot;
  memory: unknown;
}

/** Where the engine reports snapshot reads and writes (pino's signature). */
export interface EngineLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface EngineOptions {
  /**
   * Whether this process writes snapshots (default true). The API processes of one data folder read the
   * same files, so one of them writes them and the others only read (api-cluster.ts's slot 0).
   */
  writesSnapshots?: boolean;
  /**
   * Collects garbage and gives the memory freed back to the kernel (the composition root passes the native
   * one). Called after the passes that follow loading an index from the store, replacing it by its snapshot,
   * or dropping one: what the old copy held is garbage then, but V8 would collect it late and malloc keep it.
   */
  releaseFreeMemory?: () => void;
  /** Units from which a copy counts as large (RELEASE_MIN_UNITS by default; tests use small indexes). */
  largeIndexUnits?: number;
}

/**
 * For this long after a load from the store (or a drop), warm passes end by releasing free memory, at most
 * once per RELEASE_EVERY_MS: the garbage is collected by the collector's own schedule, not at once.
 */
const RELEASE_FOR_MS = 20_000;
const RELEASE_EVERY_MS = 8_000;
/**
 * Units from which a copy built from the store is replaced by its snapshot, and memory is given back after it
 * (or after a drop): below it the copy is small, and the replacement and the full collections cost more than
 * they return (bench:quick's batch step, 3,000 documents into a new index: 2,048 / 1,953 -> 1,554 / 1,495
 * documents/s with them done for every index).
 */
const RELEASE_MIN_UNITS = 20_000;

/** Default time one search may take (QUARRY_SEARCH_TIMEOUT_MS). */
export const SEARCH_TIMEOUT_MS = 5000;

export interface VectorUnitHit {
  unit: number;
  score: number;
}

/**
 * Holds each searched index in memory and keeps it current by following the section store's
 * change feed before every query (one indexed read when nothing changed; concurrent queries share
 * one read). An index whose definition changed (language, fields) is rebuilt. Vectors live in an
 * external vector index when the storage has one, else in this process (fed from the same feed).
 */
export class ContentEngine {
  private readonly states = new Map<number, IndexState>();
  private readonly loading = new Map<number, Promise<IndexState | null>>();
  private readonly followers = new Map<IndexState, SingleFlight>();
  readonly vectors: VectorIndex;
  /** The vectors this engine holds and fills from the change feed; null when an external index is read. */
  private readonly memory: FollowedVectorIndex | null;
  private following: NodeJS.Timeout | null = null;
  /** The change-feed position each index was at in the previous background pass. */
  private readonly passedAt = new WeakMap<IndexState, number>();
  /** Units each index held when it was last warmed up (see `onGrown`). */
  private readonly warmedAt = new WeakMap<IndexState, number>();
  private warmers: ((state: IndexState, pause: () => Promise<void>) => Promise<void>)[] = [];
  private readonly snapshots: SnapshotStore | null;
  /** Per loaded copy, the change-feed position its last snapshot (read or written) covers, and when it was taken. */
  private readonly snapshotAt = new WeakMap<IndexState, { seq: number; at: number }>();
  /** Copies whose snapshot is being taken: their catch-up waits for it. */
  private readonly capturing = new WeakMap<IndexState, Promise<void>>();
  private readonly writesSnapshots: boolean;
  private readonly releaseFreeMemory: (() => void) | null;
  private readonly largeIndexUnits: number;
  /** Until when warm passes end by releasing free memory (RELEASE_FOR_MS after a load from the store or a drop). */
  private releaseUntil = 0;
  private releasedAt = -Infinity;
  /** When each loaded copy last applied changes from the feed (performance.now()). */
  private readonly changedAt = new WeakMap<IndexState, number>();
  /** Whether requests took more than SNAPSHOT_BUSY_SHARE of the event loop since the follower's previous pass ended. */
  private requestsBusy = false;
  /** The background pass under way (settles, never rejects, when it ends), null between passes. */
  private passing: Promise<void> | null = null;
  /** When the follower's current pass began (performance.now()); -Infinity when no follower runs. */
  private passStartedAt = -Infinity;
  /** When each copy was put in place (performance.now()). */
  private readonly installedAt = new WeakMap<IndexState, number>();
  /** When each loaded copy was last searched (performance.now()). */
  private readonly lastUsed = new WeakMap<IndexState, number>();
  /** Where the vectors of a copy being loaded from the store are held until it is installed (else under its index's uid). */
  private readonly vectorKeys = new WeakMap<IndexState, string>();
  /** Copies built from the store whose arrays are still their own (not yet views of a snapshot just written). */
  private readonly builtFromStore = new WeakSet<IndexState>();

  /**
   * `vectorModel`: the id of the embedder queries are embedded with; sections of other models get no vector.
   * `searchTimeoutMs`: what `budget()` allows one search.
   */
  constructor(
    private readonly storage: Storage,
    private readonly vectorModel: string | null = null,
    private readonly searchTimeoutMs = SEARCH_TIMEOUT_MS,
    private readonly log: EngineLog | null = null,
    /** QUARRY_ENGINE_MEMORY_MB in bytes: indexes load on first use and the least used are dropped past it; null: all held. */
    private readonly memoryBudget: number | null = null,
    options: EngineOptions = {},
  ) {
    this.writesSnapshots = options.writesSnapshots ?? true;
    this.releaseFreeMemory = options.releaseFreeMemory ?? null;
    this.largeIndexUnits = options.largeIndexUnits ?? RELEASE_MIN_UNITS;
    const vectors = storage.searchVectors();
    this.vectors = vectors.index;
    this.memory = vectors.kind === 'followed' ? vectors.index : null;
    this.snapshots = storage.snapshots ?? null;
  }

  /** The index as loaded, caught up with the change feed (loaded first if it is not): what a search reads. */
  async state(indexUid: string): Promise<IndexState | null> {
    const state = await this.current(indexUid);
    if (state) this.lastUsed.set(state, performance.now());
    return state;
  }

  /** The indexes held in memory now, by uid. */
  loadedIndexes(): string[] {
    return [...this.states.values()].map((s) => s.index.uid);
  }

  private async current(indexUid: string): Promise<IndexState | null> {
    const index = await this.storage.indexes.get(indexUid);
    if (!index) return null;
    let state = this.states.get(index.id);
    // A new definition, or a feed pruned past what this copy had read: load the index afresh.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!state || state.index.updatedAt !== index.updatedAt || state.behindFeed) {
        // A copy behind the pruned feed (from a snapshot too old) is loaded from the store.
        const loaded = await this.load(index.id, state?.behindFeed === true);
        if (!loaded) return null;
        state = loaded;
      }
      // A search waits for the changes at most its own time budget; after a large burst it answers from
      // what is loaded (every document at one consistent version) while the catch-up goes on. While a
      // snapshot is being taken the catch-up waits for it, and so would the search: it answers at once.
      if (this.capturing.has(state!) || !(await this.caughtUp(state!))) break;
      if (!state.behindFeed) break;
    }
    return state!;
  }

  /** Whether the copy caught up with the change feed within `searchTimeoutMs`; the catch-up goes on either way. */
  private async caughtUp(state: IndexState): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => (timer = setTimeout(resolve, this.searchTimeoutMs, false)));
    try {
      return await Promise.race([this.follower(state).run().then(() => true), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The change-feed entry the loaded copy of an index has applied up to; null when it is not loaded. */
  appliedChange(indexId: number): number | null {
    return this.states.get(indexId)?.seq ?? null;
  }

  /**
   * Runs `warm` in the background after a pass finds an index loaded for the first time or twice as
   * large as when it was last warmed (and its vectors trained): searches run over it there, so a
   * visitor's first search after a load finds the code compiled and everything lazily built, built.
   * `warm` calls `pause` between its searches: a visitor's search waiting meanwhile runs there, not after
   * all of them (at a million sections the warm-up's sixteen searches took 0.6 s).
   */
  onGrown(warm: (state: IndexState, pause: () => Promise<void>) => Promise<void>): void {
    this.warmers.push(warm);
  }

  /** A fresh time budget for one search over the loaded indexes. */
  budget(): SearchBudget {
    return new SearchBudget(this.searchTimeoutMs);
  }

  /** Whether a vector search of this index can find anything (always asked when vectors are external). */
  hasVectors(state: IndexState): boolean {
    return this.memory ? this.memory.count(state.index.uid) > 0 : true;
  }

  /** The units nearest to `vector`, best first; hits the engine has not caught up with are skipped. */
  async vectorTop(state: IndexState, vector: Float32Array, k: number): Promise<VectorUnitHit[]> {
    const hits = await this.vectors.search(state.index.uid, vector, k);
    const out: VectorUnitHit[] = [];
    for (const h of hits) {
      const unit = state.unitAt(h.uid, h.version, h.ord);
      if (unit !== null) out.push({ unit, score: h.score });
    }
    return out;
  }

  /**
   * The sections of these units as the store has them (texts are not held in memory), in the same
   * order; null for a unit whose document is gone from the store since. A document the store has at
   * a newer version than the one loaded answers with its newer section at the same position.
   */
  async sections(state: IndexState, units: readonly number[]): Promise<(SectionView | null)[]> {
    if (units.length === 0) return [];
    const indexId = state.index.id;
    const refs = units.map((u) => state.unitRef(u));
    // By id first; a document published again since it was loaded has new ids: read at its positions.
    let rows = await this.storage.sections.sectionsById(indexId, refs.map((r) => r.section));
    if (rows.length < refs.length) {
      const found = new Set(rows.map((r) => r.id));
      rows = [...rows, ...(await this.storage.sections.sectionsAt(indexId, refs.filter((r) => !found.has(r.section))))];
    }
    return atPositions(rows, refs);
  }

  /** The stored fields of these documents, read from the store (only filters' share is held in memory). */
  documentFields(state: IndexState, uids: string[]): Promise<Map<string, DocumentFields>> {
    return this.storage.documents.fields(state.index.id, uids);
  }

  /**
   * Up to `n` short queries made of the index's own words (the opening words of sections spread over
   * the index): what a warm-up searches for, so it walks real posting lists and finds real vectors.
   */
  async sampleQueries(state: IndexState, n: number): Promise<string[]> {
    const sections = await this.sections(state, state.sampleUnits(n));
    return sections.flatMap((s) => {
      const words = s?.text.split(/\s+/).filter(Boolean).slice(0, 2).join(' ');
      return words ? [words] : [];
    });
  }

  /**
   * Loads every index into memory, catches each up with its change feed and trains its in-memory
   * vector index when due, one index per turn of the event loop; forgets indexes deleted since. The
   * background follower runs it over and over, so what visitors search was loaded and caught up
   * before they came (100,000 documents take seconds), never inside their request.
   */
  async warmAll(onIndex?: (uid: string, ms: number) => void, stopped?: () => boolean): Promise<void> {
    const listed = await this.storage.indexes.list();
    for (const index of listed) {
      await nextTurn();
      // Following was stopped: the pass ends after the index it was on.
      if (stopped?.()) return;
      // Under a memory budget indexes are loaded on first use, not all at start.
      if (this.memoryBudget !== null && !this.states.has(index.id)) continue;
      const t0 = performance.now();
      let state = await this.current(index.uid);
      // Rewritten and deleted documents leave their units behind: once they are half of the index, it is
      // loaded afresh from the store (searches read the old copy meanwhile), so memory and snapshots stay
      // the size of what is live.
      if (state && state.unitCount >= COMPACT_MIN_UNITS && state.inverted.liveUnits * 2 <= state.unitCount) {
        this.log?.info({ index: index.uid, units: state.unitCount, live: state.inverted.liveUnits }, 'index loaded afresh to drop the units of replaced documents');
        state = await this.load(index.id, true);
      }
      if (state) {
        // Settled: nothing changed since the previous pass, so lists trained meanwhile can be trained on the whole set.
        const settled = this.passedAt.get(state) === state.seq;
        this.passedAt.set(state, state.seq);
        await this.memory?.train(index.uid, nextTurn, settled);
        const units = state.unitCount;
        if (units > 0 && units >= 2 * (this.warmedAt.get(state) ?? 0)) {
          this.warmedAt.set(state, units);
          for (const warm of this.warmers) await warm(state, nextTurn);
        }
        if (!this.firstSnapshotWaits(state) && (await this.saveSnapshot(state)) && this.builtFromStore.has(state)) {
          await this.remapToSnapshot(index, state);
        }
      }
      onIndex?.(index.uid, performance.now() - t0);
    }
    const ids = new Set(listed.map((i) => i.id));
    for (const [id, state] of this.states) {
      if (ids.has(id)) continue;
      await this.unload(id, state);
      await this.snapshots?.remove(id).catch((err: unknown) => this.log?.warn({ err, index: state.index.uid }, 'snapshot of a deleted index not removed'));
    }
    await this.keepWithinBudget();
  }

  /** A large copy has just become garbage: the next passes (RELEASE_FOR_MS) give its memory back. */
  private releaseSoon(): void {
    this.releaseUntil = performance.now() + RELEASE_FOR_MS;
  }

  /**
   * After warmAll has returned: its frame would still hold the copy it replaced or dropped, which the
   * collector then keeps (measured in process: 252 MB of arrays kept at 100,000 sections, 50 MB once out of it).
   */
  private releaseMemoryWhenDue(): void {
    const now = performance.now();
    if (!this.releaseFreeMemory || now >= this.releaseUntil || now - this.releasedAt < RELEASE_EVERY_MS) return;
    this.releasedAt = now;
    this.releaseFreeMemory();
    this.log?.info({ ms: Math.round(performance.now() - now) }, 'garbage collected and free memory given back');
  }

  /** Bytes the loaded indexes hold (their structures and, when held here, vectors): what the budget counts. */
  heldBytes(): number {
    let bytes = 0;
    for (const state of this.states.values()) bytes += state.byteLength() + (this.memory?.byteLength(state.index.uid) ?? 0);
    return bytes;
  }

  /**
   * Under QUARRY_ENGINE_MEMORY_MB, drops the least recently searched indexes until the rest fit (always
   * keeping the last one used); each is snapshotted first, so its next search loads it back quickly.
   */
  private async keepWithinBudget(): Promise<void> {
    if (this.memoryBudget === null) return;
    const byUse = [...this.states].sort((a, b) => (this.lastUsed.get(a[1]) ?? 0) - (this.lastUsed.get(b[1]) ?? 0));
    let held = this.heldBytes();
    for (const [id, state] of byUse.slice(0, -1)) {
      if (held <= this.memoryBudget) break;
      const bytes = state.byteLength() + (this.memory?.byteLength(state.index.uid) ?? 0);
      await this.saveSnapshot(state, true);
      await this.unload(id, state);
      held -= bytes;
      this.log?.info({ index: state.index.uid, bytes, heldBytes: held, budgetBytes: this.memoryBudget }, 'index unloaded to stay within QUARRY_ENGINE_MEMORY_MB');
    }
  }

  private async unload(id: number, state: IndexState): Promise<void> {
    if (this.states.get(id) !== state) return;
    this.states.delete(id);
    this.followers.delete(state);
    await this.memory?.dropIndex(state.index.uid);
    if (state.unitCount >= this.largeIndexUnits) this.releaseSoon();
  }

  /**
   * Keeps every index loaded and current in the background (warmAll every `everyMs` after the last
   * pass ended, unless requests keep the process busy): a search then finds its index caught up and its
   * vector lists trained, and only waits for what changed in the last moments. Idle cost: a list of the
   * indexes and one indexed read of each index's change feed per pass.
   */
  startFollowing(onError: (err: unknown) => void, everyMs = FOLLOW_EVERY_MS, onFirstPass?: (ms: number) => void): void {
    if (this.following) return;
    const t0 = performance.now();
    let first = true;
    // The event loop's use since the last pass ended (or the last check that deferred one): a long pass
    // (a load from the store) is not part of the share requests took.
    let elu = performance.eventLoopUtilization();
    let lastPass = performance.now();
    const pass = async () => {
      // Requests come first: while they keep the event loop busy (accepting a stream of writes), passes
      // wait, at most FOLLOW_DEFER_MAX_MS, and a search catches up on its own meanwhile.
      const now = performance.eventLoopUtilization();
      const { active, idle } = performance.eventLoopUtilization(now, elu);
      elu = now;
      const others = active / Math.max(1, active + idle);
      const busy = !first && others > FOLLOW_BUSY_SHARE && performance.now() - lastPass < FOLLOW_DEFER_MAX_MS;
      if (!busy) {
        const started = performance.now();
        this.requestsBusy = others > SNAPSHOT_BUSY_SHARE;
        this.passStartedAt = started;
        const run = this.warmAll(undefined, () => this.following === null);
        this.passing = run.then(() => {}, () => {});
        try {
          await run;
          this.releaseMemoryWhenDue();
          if (first) onFirstPass?.(performance.now() - t0);
          first = false;
        } catch (err) {
          onError(err);
        }
        this.passing = null;
        lastPass = performance.now();
        elu = performance.eventLoopUtilization();
      }
      if (this.following) this.following = setTimeout(pass, everyMs);
    };
    this.following = setTimeout(pass, 0);
  }

  /**
   * Stops the background passes; resolves once a pass under way has ended, which it does after the index it
   * is on (so a caller may close the storage after it; a load from the store under way still runs to its end).
   */
  stopFollowing(): Promise<void> {
    if (this.following) clearTimeout(this.following);
    this.following = null;
    this.passStartedAt = -Infinity;
    return this.passing ?? Promise.resolve();
  }

  /**
   * Writes a snapshot of the index when this copy has changes its last one lacks and that one is
   * SNAPSHOT_EVERY_MS old (a copy loaded from the store gets one at once). Taken in one go, so it is
   * consistent at `state.seq`; checksummed and written without holding the event loop. Returns whether
   * one was written; a failure is logged, never thrown (the snapshot is a cache).
   */
  async saveSnapshot(state: IndexState, force = false): Promise<boolean> {
    if (!this.snapshots || !this.writesSnapshots || state.behindFeed) return false;
    const last = this.snapshotAt.get(state);
    if (last && (last.seq === state.seq || (!force && !this.snapshotDue(state, last.at)))) return false;
    const t0 = performance.now();
    const w = new SnapshotWriter();
    const memory = this.memory ? this.memory.snapshot(state.index.uid, w) : null;
    // Lists being trained cannot be taken now; the next pass tries again.
    if (this.memory && memory === null && this.memory.count(state.index.uid) > 0) return false;
    const seq = state.seq;
    this.snapshotAt.set(state, { seq, at: Date.now() });
    // Taking the state hands the event loop over now and then: its catch-up waits meanwhile (searches
    // answer from what is loaded instead of waiting), so what is taken is the copy at `seq`.
    let release = () => {};
    this.capturing.set(state, new Promise<void>((resolve) => (release = resolve)));
    let taken: IndexStateSnapshot;
    try {
      taken = await state.snapshot(w, nextTurn);
    } finally {
      this.capturing.delete(state);
      release();
    }
    const body: SnapshotBody = {
      indexId: state.index.id, updatedAt: state.index.updatedAt, scope: this.snapshots.scope, vectorModel: this.vectorModel,
      vectors: this.memory ? 'followed' : 'external', state: taken, memory,
    };
    try {
      const { chunks, seal } = w.encodeUnsealed(SNAPSHOT_FORMAT, body);
      await this.snapshots.write(state.index.id, chunks, seal);
      const bytes = chunks.reduce((n, c) => n + c.byteLength, 0);
      this.log?.info({ index: state.index.uid, seq, bytes, ms: Math.round(performance.now() - t0) }, 'index snapshot written');
      return true;
    } catch (err) {
      this.log?.warn({ err, index: state.index.uid }, 'index snapshot not written; the next start loads the index from the store');
      return false;
    }
  }

  /**
   * A changed index is snapshotted once its last snapshot is SNAPSHOT_EVERY_MS old, its changes have
   * paused for SNAPSHOT_QUIET_MS and requests leave the event loop mostly idle (taking one is seconds of
   * work at a large index: a burst of writes, and the searches right after it, do not share the process
   * with it), or once the last is SNAPSHOT_DEFER_MAX_MS old whatever happens.
   */
  private snapshotDue(state: IndexState, lastAt: number): boolean {
    const age = Date.now() - lastAt;
    const quietFor = performance.now() - (this.changedAt.get(state) ?? 0);
    return (age >= SNAPSHOT_EVERY_MS && quietFor >= SNAPSHOT_QUIET_MS && !this.requestsBusy) || age >= SNAPSHOT_DEFER_MAX_MS;
  }

  /**
   * Whether the follower leaves a copy's first snapshot (one loaded from the store, or from a snapshot of an
   * older layout) for a later pass: it is never taken in the pass that loaded the copy, whose measure of the
   * requests predates them, and waits while requests keep the event loop busy, at most SNAPSHOT_DEFER_MAX_MS.
   * At a million sections taking and writing it, then putting the mapped copy in place, is seconds of the
   * event loop: the searches that come right after a start from the store would share the process with it
   * (bench:capacity's "from the store" row). Outside the follower (a caller of warmAll) nothing waits.
   */
  private firstSnapshotWaits(state: IndexState): boolean {
    if (this.snapshotAt.has(state) || this.passStartedAt === -Infinity) return false;
    const installed = this.installedAt.get(state) ?? -Infinity;
    if (performance.now() - installed >= SNAPSHOT_DEFER_MAX_MS) return false;
    return installed >= this.passStartedAt || this.requestsBusy;
  }

  /**
   * The index as its snapshot holds it, or null when there is none it can trust (then the store is replayed);
   * its in-memory vectors restored with it unless `withVectors` is false (a copy replacing one that holds the
   * same vectors: see remapToSnapshot).
   */
  private async fromSnapshot(index: IndexRecord, withVectors = true): Promise<IndexState | null> {
    if (!this.snapshots) return null;
    const t0 = performance.now();
    try {
      // The checksum is computed off this thread while the index is restored here, and awaited before it is used.
      const file = await this.snapshots.read(index.id, SnapshotReader.CHECKSUM_FROM);
      if (!file) return null;
      const { bytes } = file;
      const read = performance.now();
      const r = await SnapshotReader.open(bytes, SNAPSHOT_FORMAT, nextTurn, file.checksum);
      const checked = performance.now();
      const body = r.body as SnapshotBody;
      const stale = body.indexId !== index.id || body.updatedAt !== index.updatedAt || body.scope !== this.snapshots.scope
        || body.vectorModel !== this.vectorModel || body.vectors !== (this.memory ? 'followed' : 'external');
      if (stale) {
        this.log?.info({ index: index.uid }, 'index snapshot is of another definition or store; loading from the store');
        return null;
      }
      const state = IndexState.restore(index, r, body.state);
      let completed = false;
      if (withVectors) {
        await this.memory?.dropIndex(index.uid);
        if (this.memory && body.memory) completed = this.memory.restore(index.uid, r, body.memory);
      }
      const restored = performance.now();
      // A damaged file restores into nonsense as easily as into an index: it is only used once its checksum matched.
      await r.verified;
      // A snapshot completed on restore (an older layout) is written again at the next pass, as one loaded from the store.
      if (!completed) this.snapshotAt.set(state, { seq: state.seq, at: Date.now() });
      const ms = (from: number, to = performance.now()) => Math.round(to - from);
      // The phases a start waits for: opening the file, its head and header, rebuilding what is not a view, then what is left of the checksum.
      this.log?.info({
        index: index.uid, seq: state.seq, bytes: bytes.byteLength, ms: ms(t0), readMs: ms(t0, read), headerMs: ms(read, checked), restoreMs: ms(checked, restored), checksumWaitMs: ms(restored),
      }, 'index loaded from its snapshot');
      return state;
    } catch (err) {
      this.log?.warn({ err, index: index.uid }, 'index snapshot unreadable; loading from the store');
      if (withVectors) await this.memory?.dropIndex(index.uid);
      return null;
    }
  }

  /**
   * Replaces a copy built from the store by the snapshot it has just written. The built copy holds every
   * array in this process's memory, each posting list's own pair sized by doubling; the restored one holds
   * views of the mapped file, resident only where searches read (bench:capacity at 100,000 sections, RSS
   * after a load from the store: 1,036-1,117 MB before, 925 MB with this; 611 MB after a start from the
   * snapshot). The restored copy catches up with what was published since the snapshot before it is used;
   * the in-memory vectors stay as they are (catching up writes the same points again). Searches meanwhile
   * read the built copy.
   */
  private async remapToSnapshot(index: IndexRecord, built: IndexState): Promise<void> {
    this.builtFromStore.delete(built);
    const mapped = await this.fromSnapshot(index, false);
    if (!mapped) return;
    await this.follower(mapped).run();
    if (this.states.get(index.id) !== built || mapped.behindFeed) return;
    this.install(index.id, mapped);
    for (const marks of [this.passedAt, this.warmedAt, this.lastUsed]) {
      const mark = marks.get(built);
      if (mark !== undefined) marks.set(mapped, mark);
    }
    this.releaseSoon();
    this.log?.info({ index: index.uid, seq: mapped.seq }, 'index built from the store replaced by its snapshot');
  }

  private load(indexId: number, fromStore = false): Promise<IndexState | null> {
    let p = this.loading.get(indexId);
    if (!p) {
      p = this.loadNow(indexId, fromStore).finally(() => this.loading.delete(indexId));
      this.loading.set(indexId, p);
    }
    return p;
  }

  private async loadNow(indexId: number, fromStore: boolean): Promise<IndexState | null> {
    const index = await this.storage.indexes.getById(indexId);
    if (!index) return null;
    const restored = fromStore ? null : await this.fromSnapshot(index);
    if (restored) return this.install(indexId, restored);
    const state = new IndexState(index);
    // Read the feed position first: anything published while loading is replayed afterwards.
    state.seq = await this.storage.sections.lastChange(indexId);
    // The copy's vectors are built aside: a copy loaded again (to drop replaced documents, or behind the
    // pruned feed) is still searched meanwhile, with all its vectors.
    const vectors = loadingKey(index.uid);
    if (this.memory) {
      this.vectorKeys.set(state, vectors);
      await this.memory.dropIndex(vectors);
    }
    try {
      // In parts: a whole index's texts and vectors read at once set a large load's peak memory
      // (bench:capacity at 100,000 sections: peak RSS 1,332 MB read at once, 1,150 MB in parts).
      for (let after: string | null = null; ;) {
        const page = await this.storage.sections.sectionsPage(indexId, after, LOAD_PAGE_DOCUMENTS, { vectors: this.memory !== null });
        if (page.length === 0) break;
        const byDoc = new Map<string, SectionView[]>();
        for (const s of page) {
          const list = byDoc.get(s.uid);
          if (list) list.push(s);
          else byDoc.set(s.uid, [s]);
        }
        await this.apply(state, byDoc);
        after = page[page.length - 1].uid;
      }
      if (this.memory) {
        // Trained before the copy is searched: until then a hybrid search scans every vector (~140 ms at a
        // million sections), and a training whose steps ran between such searches lasted minutes (docs/engine.md).
        const t0 = performance.now();
        const count = this.memory.count(vectors);
        await this.memory.train(vectors, nextTurn, true);
        if (count >= this.largeIndexUnits) this.log?.info({ index: index.uid, vectors: count, ms: Math.round(performance.now() - t0) }, 'vector lists of the copy built from the store trained');
        this.memory.adopt(index.uid, vectors);
        this.vectorKeys.delete(state);
      }
    } catch (err) {
      await this.memory?.dropIndex(vectors);
      throw err;
    }
    if (state.unitCount >= this.largeIndexUnits) {
      this.builtFromStore.add(state);
      this.releaseSoon();
    }
    return this.install(indexId, state);
  }

  private install(indexId: number, state: IndexState): IndexState {
    const previous = this.states.get(indexId);
    if (previous) this.followers.delete(previous);
    this.states.set(indexId, state);
    this.installedAt.set(state, performance.now());
    return state;
  }

  private follower(state: IndexState): SingleFlight {
    let f = this.followers.get(state);
    if (!f) this.followers.set(state, (f = new SingleFlight(() => this.catchUp(state))));
    return f;
  }

  private async catchUp(state: IndexState): Promise<void> {
    for (let first = true; ; first = false) {
      await this.capturing.get(state);
      const changes = await this.storage.sections.changesSince(state.index.id, state.seq, CHANGE_BATCH);
      if (changes.length === 0) return;
      // Only when something changed can entries this copy never read have been pruned: one more read then.
      if (first && state.seq < (await this.storage.sections.firstChange(state.index.id)) - 1) {
        state.behindFeed = true;
        return;
      }
      const uids = [...new Set(changes.map((c) => c.uid))];
      // Read and taken in parts, a turn of the event loop between them: a burst of 5,000 changes read at
      // once held the loop for tens of milliseconds, beside the writes the API was accepting.
      for (let i = 0; i < uids.length; i += FOLLOW_PART) {
        const part = uids.slice(i, i + FOLLOW_PART);
        const byDoc = new Map<string, SectionView[]>(part.map((u) => [u, []]));
        if (i > 0) await nextTurn();
        for (const s of await this.storage.sections.sections(state.index.id, part, { vectors: this.memory !== null })) byDoc.get(s.uid)!.push(s);
        await this.apply(state, byDoc);
      }
      state.seq = changes[changes.length - 1].seq;
      this.changedAt.set(state, performance.now());
    }
  }

  /** Replaces these documents in memory (an empty section list removes one), with their current fields. */
  private async apply(state: IndexState, byDoc: Map<string, SectionView[]>): Promise<void> {
    const uids = [...byDoc.keys()];
    let turnStarted = performance.now();
    for (let i = 0; i < uids.length; i += FIELDS_BATCH) {
      const part = uids.slice(i, i + FIELDS_BATCH);
      const [fields, withMetadata] = await Promise.all([
        this.storage.documents.fields(state.index.id, part),
        this.storage.documents.withMetadata(state.index.id, part),
      ]);
      for (const uid of part) {
        if (performance.now() - turnStarted > TURN_MS) {
          await nextTurn();
          turnStarted = performance.now();
        }
        const sections = byDoc.get(uid)!;
        state.setDocument(uid, sections, fields.get(uid) ?? null, withMetadata.has(uid));
        if (this.memory) await this.feedMemory(state, uid, sections);
      }
    }
  }

  private async feedMemory(state: IndexState, uid: string, sections: SectionView[]): Promise<void> {
    const memory = this.memory!;
    const key = this.vectorKeys.get(state) ?? state.index.uid;
    const live = state.hasDocument(uid) ? sections : [];
    const points = live
      .filter((s) => s.vector && s.vectorModel === this.vectorModel)
      .map((s) => ({ uid, version: s.version, ord: s.ord, vector: s.vector! }));
    if (points.length) await memory.upsert(key, points);
    // Everything older than what is live now goes (all of it when the document is gone).
    await memory.deleteOlder(key, [{ uid, version: live[0]?.version ?? Number.MAX_SAFE_INTEGER }]);
  }
}
