// Runs a fuzz target over a range of input numbers and reports what `npm run fuzz` prints and the tests
// assert: inputs tried, crashes, 5xx, malformed errors, the slowest input and its time, the seed.
import { performance } from 'node:perf_hooks';
import { inputRand } from '../../test/helpers/prng.js';
import { judgeAnswer, type HttpFuzzContext, type HttpTarget, type Outcome, type PureTarget } from './targets.js';

export interface FuzzReport {
  target: string;
  what: string;
  seed: number;
  /** Input numbers from..from+inputs-1 of the seed were tried. */
  from: number;
  inputs: number;
  crashes: number;
  fiveXX: number;
  malformed: number;
  /** How many inputs ended in each accepted way (parsed, FilterSyntaxError, 200, 400...). */
  outcomes: Record<string, number>;
  /** In process, `retimedMs` is the slowest input's best of 5 runs alone: a GC pause or a busy machine shows as ms ≫ retimedMs. */
  slowest: { index: number; ms: number; input: string; retimedMs?: number };
  seconds: number;
  perSecond: number;
  /** The first failures: input number, what was sent, what went wrong. */
  failures: string[];
  /** HTTP targets: how the server ran. */
  server?: string;
}

export interface RunOptions {
  seed: number;
  from?: number;
  count: number;
  /** Called every `progressEvery` inputs with the report so far. */
  onProgress?: (r: FuzzReport) => void;
  progressEvery?: number;
  /** Stop early after this many failures (default 20). */
  maxFailures?: number;
  /** Stop early at this time (Date.now()); the report says how far it got, `from` + `inputs` resumes. */
  stopAt?: number;
}

function newReport(t: { name: string; what: string }, o: RunOptions): FuzzReport {
  return {
    target: t.name, what: t.what, seed: o.seed, from: o.from ?? 0, inputs: 0, crashes: 0, fiveXX: 0, malformed: 0, outcomes: {},
    slowest: { index: -1, ms: 0, input: '' }, seconds: 0, perSecond: 0, failures: [],
  };
}

function record(r: FuzzReport, index: number, outcome: Outcome, ms: number, show: () => string): void {
  r.inputs++;
  if ('label' in outcome) r.outcomes[outcome.label] = (r.outcomes[outcome.label] ?? 0) + 1;
  else {
    if (outcome.fail === 'crash') r.crashes++;
    else if (outcome.fail === '5xx') r.fiveXX++;
    else r.malformed++;
    if (r.failures.length < 20) r.failures.push(`#${index} ${show()}: ${outcome.fail} ${outcome.detail}`);
  }
  if (ms > r.slowest.ms) r.slowest = { index, ms: Math.round(ms * 100) / 100, input: show() };
}

function finish(r: FuzzReport, started: number): FuzzReport {
  r.seconds = Math.round((performance.now() - started) / 10) / 100;
  r.perSecond = Math.round(r.inputs / Math.max(r.seconds, 0.001));
  return r;
}

const failed = (r: FuzzReport) => r.crashes + r.fiveXX + r.malformed;
const goOn = (r: FuzzReport, o: RunOptions) => failed(r) < (o.maxFailures ?? 20) && (o.stopAt === undefined || Date.now() < o.stopAt);

/** A pure target in this process, one input at a time. */
export function runPure<I>(target: PureTarget<I>, o: RunOptions): FuzzReport {
  const r = newReport(target, o);
  const from = o.from ?? 0;
  const every = o.progressEvery ?? 100_000;
  const started = performance.now();
  for (let i = from; i < from + o.count && goOn(r, o); i++) {
    const input = target.input(inputRand(o.seed, i), i);
    const t0 = performance.now();
    const outcome = target.check(input);
    record(r, i, outcome, performance.now() - t0, () => target.show(input));
    if (o.onProgress && r.inputs % every === 0) o.onProgress(finish(r, started));
  }
  finish(r, started);
  if (r.slowest.index >= 0) {
    const input = target.input(inputRand(o.seed, r.slowest.index), r.slowest.index);
    const times = Array.from({ length: 5 }, () => {
      const t0 = performance.now();
      target.check(input);
      return performance.now() - t0;
    });
    r.slowest.retimedMs = Math.round(Math.min(...times) * 100) / 100;
  }
  return r;
}

/**
 * An HTTP target against a running service, `concurrency` requests in flight. A request without an
 * answer (connection reset, refused, or no answer within `requestTimeoutMs`) is a crash.
 */
export async function runHttp(
  target: HttpTarget, baseUrl: string, ctx: HttpFuzzContext, o: RunOptions & { concurrency?: number; requestTimeoutMs?: number },
): Promise<FuzzReport> {
  const r = newReport(target, o);
  const from = o.from ?? 0;
  const every = o.progressEvery ?? 10_000;
  const started = performance.now();
  let next = from;
  const worker = async () => {
    while (next < from + o.count && goOn(r, o)) {
      const i = next++;
      const req = target.request(inputRand(o.seed, i), i, ctx);
      const t0 = performance.now();
      let outcome: Outcome;
      try {
        const res = await fetch(baseUrl + req.path, {
          method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(o.requestTimeoutMs ?? 120_000),
        });
        const text = await res.text();
        outcome = judgeAnswer(res.status, res.headers.get('content-type') ?? '', text);
        const broken = 'label' in outcome ? req.invariant?.(res.status, text) : null;
        if (broken) outcome = { fail: 'crash', detail: broken };
      } catch (err) {
        outcome = { fail: 'crash', detail: `no answer: ${(err as Error).message} ${(err as { cause?: Error }).cause?.message ?? ''}` };
      }
      record(r, i, outcome, performance.now() - t0, () => req.describe);
      if (o.onProgress && r.inputs % every === 0) o.onProgress(finish(r, started));
    }
  };
  await Promise.all(Array.from({ length: o.concurrency ?? 16 }, worker));
  return finish(r, started);
}
