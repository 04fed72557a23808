import { performance } from 'node:perf_hooks';
import { send, sendJson, type Target } from '../bench/http-load.js';
import type { Dataset } from './dataset.js';

/** The content interface (API.md section C) as the eval uses it. */

export interface Progress {
  documents: number;
  indexed: number;
  pending: number;
  pending_deletes: number;
  failed: number;
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight; results keep the input order. */
export async function mapPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function createContentIndex(t: Target, uid: string, language: string): Promise<void> {
  await sendJson(t, 'POST', '/v1/content/indexes', {
    uid, language_code: language, schema: { fields: { title: { type: 'text' }, text: { type: 'text' } } },
  }, [200]);
}

/** Pushes every corpus document (204 each); retries briefly on 429/503. Returns the wall time in ms. */
export async function pushCorpus(t: Target, index: string, ds: Dataset, concurrency: number, onProgress: (n: number) => void): Promise<number> {
  const path = `/v1/content/indexes/${encodeURIComponent(index)}/documents`;
  const t0 = performance.now();
  let done = 0;
  await mapPool(ds.corpus, concurrency, async (doc) => {
    const body = JSON.stringify({ uid: doc.id, fields: { title: doc.title, text: doc.text } });
    for (let attempt = 0; ; attempt++) {
      const r = await send(t, 'POST', path, body);
      if (r.status === 204 || r.status === 200 || r.status === 202) break;
      if ((r.status === 429 || r.status === 503) && attempt < 5) {
        await sleep(200 * 2 ** attempt);
        continue;
      }
      throw new Error(`push of document ${doc.id} -> ${r.status}: ${r.body.slice(0, 500)}`);
    }
    if (++done % 1000 === 0) onProgress(done);
  });
  return performance.now() - t0;
}

/**
 * Polls GET /v1/admin/indexes/{uid} every 250 ms until `indexed === expected && pending === 0`.
 * Fails when a document failed, a process died, or after `timeoutMs`.
 */
export async function waitIndexed(
  t: Target, index: string, expected: number,
  opts: { assertAlive: () => void; timeoutMs?: number; onPoll?: (p: Progress) => void },
): Promise<Progress> {
  const timeoutMs = opts.timeoutMs ?? 10 * 60_000;
  const end = performance.now() + timeoutMs;
  let lastReport = 0;
  for (;;) {
    opts.assertAlive();
    const { progress: p } = await sendJson<{ progress: Progress }>(t, 'GET', `/v1/admin/indexes/${encodeURIComponent(index)}`);
    if (p.failed > 0) throw new Error(`index ${index}: ${p.failed} document(s) failed to index: ${JSON.stringify(p)}`);
    if (p.indexed === expected && p.pending === 0) return p;
    if (p.indexed > expected) throw new Error(`index ${index} holds ${p.indexed} indexed documents, expected ${expected}: not a fresh index?`);
    if (performance.now() > end) throw new Error(`index ${index} not indexed after ${timeoutMs / 1000} s: ${JSON.stringify(p)}`);
    if (performance.now() - lastReport > 5000) {
      lastReport = performance.now();
      opts.onPoll?.(p);
    }
    await sleep(250);
  }
}

export interface SearchRun {
  /** query id -> ranked document uids (as returned; may repeat a uid for several sections). */
  run: Map<string, string[]>;
  latenciesMs: number[];
  errors: number;
  errorSamples: string[];
  elapsedMs: number;
}

/** Every query through POST /v1/content/search with one boosting, `limit: 100`. */
export async function runQueries(
  t: Target, index: string, ds: Dataset, boosting: string, bm25: object | null, concurrency: number,
): Promise<SearchRun> {
  const run = new Map<string, string[]>();
  const latenciesMs: number[] = [];
  const errorSamples = new Set<string>();
  let errors = 0;
  const bodyFor = (query: string) => ({ index_uid: index, query, boosting, filter: '', fields: [], limit: 100, ...(bm25 && { bm25 }) });
  // Warm-up (not timed, not scored): the first search on an index loads its statistics.
  if (ds.queries.length) await send(t, 'POST', '/v1/content/search', JSON.stringify(bodyFor(ds.queries[0].text)));
  const t0 = performance.now();
  await mapPool(ds.queries, concurrency, async (q) => {
    const body = bodyFor(q.text);
    const s0 = performance.now();
    const r = await send(t, 'POST', '/v1/content/search', JSON.stringify(body));
    latenciesMs.push(performance.now() - s0);
    if (r.status === 404) {
      // an unknown route or index: every other query would fail the same way
      throw new Error(`POST /v1/content/search -> 404 (route not deployed, or index missing?): ${r.body.slice(0, 300)}`);
    }
    if (r.status !== 200) {
      errors++;
      if (errorSamples.size < 5) errorSamples.add(`query ${q.id}: ${r.status} ${r.body.slice(0, 300)}`);
      return;
    }
    const { results } = JSON.parse(r.body) as { results: { uid: string }[] };
    run.set(q.id, results.map((x) => x.uid));
  });
  if (ds.queries.length && errors === ds.queries.length) {
    throw new Error(`every search failed (boosting "${boosting}"); e.g. ${[...errorSamples][0]}`);
  }
  return { run, latenciesMs, errors, errorSamples: [...errorSamples], elapsedMs: performance.now() - t0 };
}
