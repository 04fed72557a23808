import { performance } from 'node:perf_hooks';
import type { Storage } from '../../storage/create-storage.js';
import { IndexState } from './index-state.js';

const CHANGE_BATCH = 5000;

/**
 * Holds each searched index in memory and keeps it current by tailing the search store's change
 * log before every query (one indexed SELECT when nothing changed). An index whose definition
 * changed (language, fields) is rebuilt.
 */
export class ContentEngine {
  private readonly states = new Map<number, IndexState>();

  /** `vectorModel`: the id of the embedder queries are embedded with; sections of other models get no vector. */
  constructor(
    private readonly storage: Storage,
    private readonly vectorModel: string | null = null,
  ) {}

  state(indexUid: string): IndexState | null {
    const index = this.storage.indexes.get(indexUid);
    if (!index) return null;
    let state = this.states.get(index.id);
    // A new definition, or a log pruned past what this copy has read: load the index afresh.
    if (!state || state.index.updatedAt !== index.updatedAt || state.seq < this.storage.search.firstChange() - 1) {
      const loaded = this.load(index.id);
      if (!loaded) return null;
      this.states.set(index.id, (state = loaded));
    }
    this.catchUp(state);
    return state;
  }

  /**
   * Loads every index into memory and trains its vector index, one index per turn of the event loop,
   * so the first searches after a start do not pay for it (100,000 documents take seconds).
   */
  async warmAll(onIndex?: (uid: string, ms: number) => void): Promise<void> {
    for (const index of this.storage.indexes.list()) {
      await new Promise((r) => setImmediate(r));
      const t0 = performance.now();
      this.state(index.uid)?.vectors.prepare();
      onIndex?.(index.uid, performance.now() - t0);
    }
  }

  private load(indexId: number): IndexState | null {
    const index = this.storage.indexes.getById(indexId);
    if (!index) return null;
    const state = new IndexState(index, this.vectorModel);
    // Read the log position first: anything published while loading is replayed afterwards.
    state.seq = this.storage.search.lastChange();
    const byDoc = new Map<string, ReturnType<Storage['search']['sections']>>();
    for (const s of this.storage.search.sections(indexId)) {
      const list = byDoc.get(s.uid);
      if (list) list.push(s);
      else byDoc.set(s.uid, [s]);
    }
    for (const [uid, sections] of byDoc) state.setDocument(uid, sections, this.storage.documents.get(indexId, uid)?.fields ?? null);
    return state;
  }

  private catchUp(state: IndexState): void {
    for (;;) {
      const changes = this.storage.search.changesSince(state.index.id, state.seq, CHANGE_BATCH);
      if (changes.length === 0) return;
      const uids = [...new Set(changes.map((c) => c.uid))];
      for (const uid of uids) {
        const sections = this.storage.search.sections(state.index.id, [uid]);
        state.setDocument(uid, sections, this.storage.documents.get(state.index.id, uid)?.fields ?? null);
      }
      state.seq = changes[changes.length - 1].seq;
    }
  }
}
