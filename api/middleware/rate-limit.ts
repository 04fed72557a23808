import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../../shared/errors/app-error.js';
import { clientOf } from './client.js';

export interface RateLimitBudget {
  points: number;
  seconds: number;
}

export interface RateLimitOptions {
  /** null counts in this process's memory only (used for previews, which must leave no key in Redis). */
  redis: Redis | null;
  /** Redis key prefix, e.g. `${config.redis.prefix}:rl`. */
  prefix: string;
  perClient: RateLimitBudget;
  perUid: RateLimitBudget;
  uidOf: (req: Request) => string | undefined;
  /** Told about every Redis failure; the request goes through regardless. */
  onError?: (err: unknown) => void;
  /** How long a request waits for Redis before it goes through unlimited (default 250 ms). */
  timeoutMs?: number;
  /**
   * Requests whose count runs beside their work instead of before it (the search interface's search and
   * autocomplete): the route answers only once `admission(req)` has settled, with its 429 when refused. A key
   * this process knows to be over its limit is still refused before any work.
   */
  overlaps?: (req: Request) => boolean;
}

const admissions = new WeakMap<Request, Promise<AppError | null>>();
const ADMITTED: Promise<AppError | null> = Promise.resolve(null);

/**
 * For a request counted beside its work (RateLimitOptions.overlaps): its refusal once the count is in,
 * or null; null at once for any other request (counted before it reached the route).
 */
export function admission(req: Request): Promise<AppError | null> {
  return admissions.get(req) ?? ADMITTED;
}

type Outcome =
  | { kind: 'passed'; res: RateLimiterRes }
  | { kind: 'limited'; res: RateLimiterRes }
  | { kind: 'failed'; err: unknown };

const seconds = (ms: number) => Math.ceil(ms / 1000);

// A uid can come from a 20 MB JSON body; it must not become a 20 MB Redis key.
const keyOf = (value: string) => (value.length <= 128 ? value : `sha256:${createHash('sha256').update(value).digest('hex')}`);

class Limit {
  private readonly limiter: RateLimiterAbstract;
  /** Keys this process saw go over the limit, until their window ends: answered before their body is read. */
  private readonly blocked = new Map<string, number>();

  constructor(
    readonly scope: string,
    readonly budget: RateLimitBudget,
    redis: Redis | null,
    keyPrefix: string,
    private readonly timeoutMs: number,
  ) {
    if (!redis) {
      this.limiter = new RateLimiterMemory({ keyPrefix, points: budget.points, duration: budget.seconds });
      return;
    }
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: budget.points,
      duration: budget.seconds,
      // The app's client queues commands while Redis is away (BullMQ needs that); a search must not wait with them.
      rejectIfRedisNotReady: true,
      // Once a key is over its fixed window it stays rejected until the window ends, so this process answers
      // a flood from memory instead of a Redis round trip per request; the outcome is the same.
      inMemoryBlockOnConsumed: budget.points + 1,
    });
  }

  async take(key: string): Promise<Outcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer the rate limiter within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      // race() subscribes to both, so a consume that fails after the timeout is not an unhandled rejection.
      return { kind: 'passed', res: await Promise.race([this.limiter.consume(keyOf(key)), timeout]) };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return { kind: 'failed', err };
      this.remember(key, err.msBeforeNext);
      return { kind: 'limited', res: err };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Returns the point a request took (it was refused by another limit); a failure only costs the point. */
  giveBack(key: string): void {
    this.limiter.reward(keyOf(key), 1).catch(() => {});
  }

  /** The 429 for a key known to be over its limit, from memory alone (no count, no Redis); null otherwise. */
  knownBlocked(key: string): AppError | null {
    const until = this.blocked.get(keyOf(key));
    if (until === undefined) return null;
    const ms = until - Date.now();
    if (ms > 0) return this.exceeded(new RateLimiterRes(0, ms, this.budget.points + 1, false));
    this.blocked.delete(keyOf(key));
    return null;
  }

  private remember(key: string, ms: number): void {
    const now = Date.now();
    // A flood from many addresses must not grow the map without end: expired entries go first.
    if (this.blocked.size >= 10_000) for (const [k, until] of this.blocked) if (until <= now) this.blocked.delete(k);
    if (this.blocked.size < 10_000) this.blocked.set(keyOf(key), now + ms);
  }

  headers(res: RateLimiterRes): Record<string, string> {
    return {
      'RateLimit-Limit': String(this.budget.points),
      'RateLimit-Remaining': String(res.remainingPoints),
      'RateLimit-Reset': String(seconds(res.msBeforeNext)),
    };
  }

  exceeded(res: RateLimiterRes): AppError {
    const retryAfter = Math.max(1, seconds(res.msBeforeNext));
    const { points, seconds: window } = this.budget;
    return new AppError(
      'rate_limited',
      `Rate limit per ${this.scope} exceeded (${points} requests per ${window} seconds); retry in ${retryAfter} seconds`,
      undefined,
      { ...this.headers(res), 'Retry-After': String(retryAfter) },
    );
  }
}

export type SearchRateLimit = RequestHandler & {
  /**
   * The 429 for a client this process already saw go over its limit (until the window ends),
   * decided from memory without counting: lets a request be refused before its body is read.
   */
  knownBlocked(req: Request): AppError | null;
  /** The handler's work for a request answered before Express (api/routes/direct-search-interface.ts). */
  take: TakeCount;
};

/** How a request's count went: refused before any work, or admitted with the count still under way. */
export interface Counted {
  /** Refused now (the count is in, or this process knows the key is over its limit). */
  refused: AppError | null;
  /** For a request counted beside its work: its refusal once the count is in, or null (else ADMITTED). */
  admission: Promise<AppError | null>;
}

/** Counts one request of `client` (and of the configuration `uid`), setting the passing limits' headers on `res`. */
export type TakeCount = (client: string, uid: string | undefined, overlaps: boolean, res: ServerResponse) => Promise<Counted>;

/**
 * Limits the public search routes per client (its address, an IPv6 /64: api/middleware/client.ts) and per configuration uid, in Redis so the limits
 * hold across API processes. Redis trouble lets requests through: a search box must outlive a Redis blip.
 */
export function searchRateLimit(o: RateLimitOptions): SearchRateLimit {
  const timeoutMs = o.timeoutMs ?? 250;
  const perClient = new Limit('client address', o.perClient, o.redis, `${o.prefix}:client`, timeoutMs);
  const perUid = new Limit('configuration uid', o.perUid, o.redis, `${o.prefix}:uid`, timeoutMs);
  const onError = o.onError ?? (() => {});

  /** Counts the request against both limits: its refusal, or null (the passing limits' headers set). */
  const count = async (steps: Array<[Limit, string]>, res: ServerResponse): Promise<AppError | null> => {
    // Both counted at once: one Redis round trip a search instead of two (~0.25 ms each in bench:capacity's
    // probe at 1M sections). The counts stay those of counting one after the other: a request refused by the
    // client limit gives back what it took from the uid's, so a client over its limit never uses up a uid's.
    const outcomes = await Promise.all(steps.map(([limit, key]) => limit.take(key)));
    const passed: Array<{ limit: Limit; res: RateLimiterRes }> = [];
    for (const [i, outcome] of outcomes.entries()) {
      const [limit] = steps[i];
      if (outcome.kind === 'limited') {
        for (let j = i + 1; j < steps.length; j++) if (outcomes[j].kind === 'passed') steps[j][0].giveBack(steps[j][1]);
        return limit.exceeded(outcome.res);
      }
      if (outcome.kind === 'failed') {
        // Redis is most likely down for both limits: one warning is enough.
        onError(outcome.err);
        break;
      }
      passed.push({ limit, res: outcome.res });
    }
    setTightest(res, passed);
    return null;
  };

  /** Requests of this process being worked on while their count is under way. */
  let overlapping = 0;
  const take: TakeCount = async (client, uid, overlaps, res) => {
    const steps: Array<[Limit, string]> = [[perClient, client]];
    if (uid !== undefined) steps.push([perUid, uid]);
    // Only while no other such request is in flight here: under load the overlap gained no latency and cost
    // throughput (bench:search at 100k, c=16: 689 against 786 searches/s), requests that started early holding
    // their memory through the others' work.
    if (overlaps && overlapping === 0) {
      // The Redis round trip overlaps the search (~0.25 ms of its latency otherwise). Only requests in flight
      // while a key crosses its limit do work that is then refused: from then on it is known here.
      for (const [limit, key] of steps) {
        const known = limit.knownBlocked(key);
        if (known) return { refused: known, admission: ADMITTED };
      }
      overlapping++;
      res.once('close', () => overlapping--);
      return { refused: null, admission: count(steps, res) };
    }
    return { refused: await count(steps, res), admission: ADMITTED };
  };
  const handler: RequestHandler = async (req, res, next) => {
    const { refused, admission } = await take(clientOf(req), o.uidOf(req), o.overlaps?.(req) ?? false, res);
    if (refused) return next(refused);
    if (admission !== ADMITTED) admissions.set(req, admission);
    next();
  };
  return Object.assign(handler, { knownBlocked: (req: Request) => perClient.knownBlocked(clientOf(req)), take });
}

/** The IETF RateLimit headers describe one policy: the one closest to running out. */
function setTightest(res: ServerResponse, passed: Array<{ limit: Limit; res: RateLimiterRes }>): void {
  const tightest = passed.reduce<(typeof passed)[number] | undefined>(
    (a, b) => (a === undefined || b.res.remainingPoints < a.res.remainingPoints ? b : a),
    undefined,
  );
  if (tightest) for (const [name, value] of Object.entries(tightest.limit.headers(tightest.res))) res.setHeader(name, value);
}
