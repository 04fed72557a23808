import { performance } from 'node:perf_hooks';
import { TYPING_SETTLE_MS } from '../../api/services/event-recorder.js';
import { closedLoop, send, sendJson, type PlannedRequest, type Target } from './http-load.js';
import { cpuMeter, type Stack } from './processes.js';
import type { Query } from './search-corpus.js';
import { distribution, round } from './stats.js';
import { roundDist, type RunFigures } from './search-steps.js';

/**
 * The search interface's rows of `npm run bench:search`: `GET /v1/ui/search` on a UI configuration
 * over the bench index, as a browser's search box calls it (no key, a session id, device desktop, not
 * a preview), so every answered search is also recorded as an event.
 */

export const UI_RESULT_COUNT = 10;

/**
 * The search interface is rate limited per client address and per configuration (Redis counters on
 * every request). The limits stay on, so their cost is measured, but high enough that the one client
 * address of the load generator is never refused.
 */
export const UI_RATE_LIMITS = { QUARRY_RATE_LIMIT_CLIENT: '100000000/1', QUARRY_RATE_LIMIT_UID: '100000000/1' };
export type Retrieval = 'hybrid' | 'keyword' | 'vector';

/** The configuration as the admin API returned it: the ranking settings measured are the defaults of the day. */
export interface UiConfiguration {
  uid: string;
  result_count: number;
  fusion: string;
  keyword_weight: number;
}

/** Creates the UI configuration through the admin API (master key), with the default ranking settings. */
export async function createUiConfiguration(admin: Target, index: string): Promise<UiConfiguration> {
  const c = await sendJson<UiConfiguration>(admin, 'POST', '/v1/admin/configurations', {
    variant: 'ui', name: 'bench', indexes: [index], result_count: UI_RESULT_COUNT,
  }, [201]);
  return { uid: c.uid, result_count: c.result_count, fusion: c.fusion, keyword_weight: c.keyword_weight };
}

/** Simulated users: search n is sent as session n mod `sessions`, so statistics see many visitors. */
export const sessionId = (n: number, sessions: number) => `bench-session-${n % sessions}`;

export function uiPath(uid: string, q: Query, session: string, retrieval: Retrieval = 'hybrid'): string {
  const p = new URLSearchParams({ uid, 'session-id': session, query: q.terms.join(' '), device: 'desktop' });
  // Only the evaluation extension is added when asked for: the default request is exactly a widget's.
  if (retrieval !== 'hybrid') p.set('retrieval', retrieval);
  return `/v1/ui/search?${p}`;
}

/** Counts every non-preview search the bench got a 200 for: each must be one recorded event. */
export class SearchTally {
  answered = 0;
  private sent = 0;
  /** The next session id, round-robin over `sessions`. */
  nextSession(sessions: number): string {
    return sessionId(this.sent++, sessions);
  }
}

interface UiAnswer {
  results: unknown[];
}

export interface UiWarmupFigures {
  queries: number;
  errors: number;
  errorSamples: string[];
  /**
   * The very first search. The embedder was loaded at start and the index is in memory since the
   * content warm-up, but from 20,000 vectors the first vector search trains the IVF lists (seconds).
   */
  firstSearchMs: number;
  /** Median latency of the sequential warm-up searches. */
  p50Ms: number;
  meanResults: number;
  /** Share of hybrid result lists with at least one result. */
  nonEmptyShare: number;
  /** `retrieval=vector` on a sample: how many result lists the vector leg alone fills (0 = vectors do nothing). */
  vectorSample: LegSample;
  /** Same sample, `retrieval=keyword`: the other leg, for comparison. */
  keywordSample: LegSample;
}

/** One leg alone on a sample of queries, sequentially; its median latency tells what the leg costs. */
export interface LegSample {
  queries: number;
  nonEmpty: number;
  meanResults: number;
  p50Ms: number;
}

/** One search; a 200's result count, or the error text. */
async function uiSearch(t: Target, path: string, tally: SearchTally): Promise<{ results: number } | { error: string }> {
  const r = await send(t, 'GET', path);
  if (r.status !== 200) return { error: `${r.status} ${r.body.slice(0, 300)}` };
  tally.answered++;
  return { results: (JSON.parse(r.body) as UiAnswer).results.length };
}

/** A leg alone on `n` queries: how many answers were non-empty, and the mean result count. */
async function legSample(t: Target, uid: string, queries: Query[], n: number, leg: Retrieval, sessions: number, tally: SearchTally): Promise<LegSample> {
  let nonEmpty = 0;
  let results = 0;
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await uiSearch(t, uiPath(uid, queries[i % queries.length], tally.nextSession(sessions), leg), tally);
    latencies.push(performance.now() - t0);
    if ('error' in r) throw new Error(`retrieval=${leg} search failed: ${r.error}`);
    results += r.results;
    if (r.results > 0) nonEmpty++;
  }
  return { queries: n, nonEmpty, meanResults: round(results / Math.max(1, n), 2), p50Ms: round(distribution(latencies).p50, 2) };
}

/**
 * Sequential warm-up over the first `n` queries (hybrid, as measured), then each leg alone on a
 * sample: a corpus whose words the embedder does not know would show up as vector results = 0.
 */
export async function uiWarmup(
  t: Target, uid: string, queries: Query[], n: number, opts: { sessions: number; legSample: number; tally: SearchTally },
): Promise<UiWarmupFigures> {
  let errors = 0;
  let results = 0;
  let nonEmpty = 0;
  const latencies: number[] = [];
  const samples = new Set<string>();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await uiSearch(t, uiPath(uid, queries[i % queries.length], opts.tally.nextSession(opts.sessions)), opts.tally);
    latencies.push(performance.now() - t0);
    if ('error' in r) {
      errors++;
      if (samples.size < 5) samples.add(r.error);
      continue;
    }
    results += r.results;
    if (r.results > 0) nonEmpty++;
  }
  if (n > 0 && errors === n) throw new Error(`every warm-up UI search failed; e.g. ${[...samples][0]}`);
  const ok = Math.max(1, n - errors);
  const k = Math.min(opts.legSample, queries.length);
  return {
    queries: n, errors, errorSamples: [...samples], firstSearchMs: round(latencies[0] ?? Number.NaN), p50Ms: round(distribution(latencies).p50, 2),
    meanResults: round(results / ok, 2), nonEmptyShare: round(nonEmpty / ok, 3),
    vectorSample: await legSample(t, uid, queries, k, 'vector', opts.sessions, opts.tally),
    keywordSample: await legSample(t, uid, queries, k, 'keyword', opts.sessions, opts.tally),
  };
}

/** Cycles through the query list from `offset`, each search under the next session. */
function uiSequence(uid: string, queries: Query[], offset: number, sessions: number, tally: SearchTally): () => PlannedRequest {
  let i = offset;
  return () => ({ method: 'GET', path: uiPath(uid, queries[i++ % queries.length], tally.nextSession(sessions)) });
}

/** A closed loop of UI searches at one concurrency. */
export async function uiRun(
  t: Target, stack: Stack, uid: string, queries: Query[],
  opts: { concurrency: number; durationMs: number; offset: number; sessions: number; tally: SearchTally },
): Promise<RunFigures> {
  // Redis too: the rate limits ask it on every request of the search interface.
  const meter = cpuMeter({ api: stack.api.pid, worker: stack.worker.pid, redis: stack.redisPid });
  const r = await closedLoop({
    target: t, concurrency: opts.concurrency, durationMs: opts.durationMs,
    next: uiSequence(uid, queries, opts.offset, opts.sessions, opts.tally), okStatus: [200],
  });
  const cpu = meter();
  stack.assertAlive();
  opts.tally.answered += r.ok;
  return {
    kind: 'ui', concurrency: opts.concurrency, requests: r.requests, errors: r.errors, errorSamples: r.errorSamples,
    qps: round(r.rps), latencyMs: roundDist(distribution(r.latenciesMs)), cpuPct: cpu,
  };
}

export interface EventFigures {
  /** `searches` of the configuration's insights over all time. */
  recorded: number;
  /** Searches the bench got a 200 for. */
  answered: number;
  equal: boolean;
  sessionsRecorded: number;
  sessionsExpected: number;
  noResultSearches: number;
  waitedMs: number;
}

/**
 * Reads the insights until they count every search answered, or until events had all the time they may
 * take: each session's latest search is held TYPING_SETTLE_MS (a refinement typed next replaces it), then
 * flushed within 200 ms. A short count after that means the recorder dropped or lost searches under load.
 */
export async function recordedEvents(admin: Target, uid: string, tally: SearchTally, sessions: number, maxWaitMs = TYPING_SETTLE_MS + 2000): Promise<EventFigures> {
  const start = performance.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const i = await sendJson<{ searches: number; sessions: number; no_result_searches: number }>(
      admin, 'GET', `/v1/admin/configurations/${encodeURIComponent(uid)}/insights?from=2000-01-01&to=2100-01-01`,
    );
    const waitedMs = Math.round(performance.now() - start);
    if (i.searches === tally.answered || waitedMs >= maxWaitMs) {
      return {
        recorded: i.searches, answered: tally.answered, equal: i.searches === tally.answered,
        sessionsRecorded: i.sessions, sessionsExpected: Math.min(sessions, tally.answered),
        noResultSearches: i.no_result_searches, waitedMs,
      };
    }
  }
}
