import type { Embedder } from './ports/embedder.js';

/**
 * Coalesces many small concurrent embed() calls (one search query each, say)
 * into few provider calls: an HTTP or ONNX provider pays per request/forward
 * pass far more than per text, so 50 queries in one request beat 50 requests.
 */
export interface BatchingOptions {
  /** Most distinct texts per provider call (default 64). */
  maxBatch?: number;
  /** How long the first caller waits for company (default 2 ms; 0 = until the next macrotask). */
  maxWaitMs?: number;
}

interface Caller {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  settled: boolean;
}

export function createBatchingEmbedder(inner: Embedder, opts: BatchingOptions = {}): Embedder {
  const maxBatch = Math.max(1, opts.maxBatch ?? 64);
  const maxWaitMs = Math.max(0, opts.maxWaitMs ?? 2);
  let pending: Caller[] = [];
  let pendingDistinct = new Set<string>();
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const inFlight = new Set<Promise<void>>();

  const settle = (c: Caller, fn: () => void) => {
    if (c.settled) return;
    c.settled = true;
    if (c.onAbort) c.signal?.removeEventListener('abort', c.onAbort);
    fn();
  };

  function schedule() {
    if (pendingDistinct.size >= maxBatch) return flush();
    if (timer) return;
    timer = maxWaitMs > 0 ? setTimeout(flush, maxWaitMs) : setImmediate(flush);
  }

  function flush() {
    if (timer) {
      clearTimeout(timer as NodeJS.Timeout);
      clearImmediate(timer as NodeJS.Immediate);
      timer = undefined;
    }
    const callers = pending.filter((c) => !c.settled);
    pending = [];
    pendingDistinct = new Set();
    if (callers.length === 0) return;
    const run = runBatch(callers).finally(() => inFlight.delete(run));
    inFlight.add(run);
  }

  async function runBatch(callers: Caller[]) {
    // Identical texts (the same query from several users, repeated sections) are embedded once.
    const slot = new Map<string, number>();
    for (const c of callers) for (const t of c.texts) if (!slot.has(t)) slot.set(t, slot.size);
    const distinct = [...slot.keys()];
    const vectors: Float32Array[] = new Array(distinct.length);
    const failedAt = new Map<number, unknown>(); // chunk start -> error
    const handedOut = new Set<number>();
    // Chunks go one after another: a big ingest batch should not fan out into
    // dozens of simultaneous requests against a rate-limited provider.
    for (let start = 0; start < distinct.length; start += maxBatch) {
      const chunk = distinct.slice(start, start + maxBatch);
      try {
        const out = await inner.embed(chunk);
        if (out.length !== chunk.length) throw new Error(`embedder ${inner.id} returned ${out.length} vectors for ${chunk.length} texts`);
        out.forEach((v, k) => (vectors[start + k] = v));
      } catch (err) {
        failedAt.set(start, err);
      }
      // Callers whose texts are all done can go now rather than wait for later chunks.
      settleReady(callers, slot, vectors, failedAt, handedOut, start + chunk.length);
    }
  }

  function settleReady(
    callers: Caller[],
    slot: Map<string, number>,
    vectors: Float32Array[],
    failedAt: Map<number, unknown>,
    handedOut: Set<number>,
    done: number,
  ) {
    for (const c of callers) {
      if (c.settled) continue;
      const slots = c.texts.map((t) => slot.get(t)!);
      const failed = slots.find((s) => s < done && vectors[s] === undefined);
      if (failed !== undefined) {
        const err = failedAt.get(failed - (failed % maxBatch));
        settle(c, () => c.reject(err));
      } else if (slots.every((s) => s < done)) {
        // A deduplicated vector is handed out once as is and copied after
        // that, so a caller mutating its result cannot change anyone else's.
        const result = slots.map((s) => (handedOut.has(s) ? vectors[s].slice() : (handedOut.add(s), vectors[s])));
        settle(c, () => c.resolve(result));
      }
    }
  }

  return {
    id: inner.id,
    dimensions: inner.dimensions,
    remote: inner.remote,
    embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
      if (texts.length === 0) return Promise.resolve([]);
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<Float32Array[]>((resolve, reject) => {
        const caller: Caller = { texts, resolve, reject, signal, settled: false };
        if (signal) {
          // An aborted caller stops waiting; the batch still runs for everybody else.
          caller.onAbort = () => settle(caller, () => reject(signal.reason));
          signal.addEventListener('abort', caller.onAbort, { once: true });
        }
        pending.push(caller);
        for (const t of texts) pendingDistinct.add(t);
        schedule();
      });
    },
    async close() {
      flush();
      await Promise.allSettled([...inFlight]);
      await inner.close?.();
    },
  };
}
