import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../../shared/errors/app-error.js';
import { withTimeout } from '../../shared/jobs/queue-status.js';
import { clientOf } from './client.js';

/** Wrong keys a client may send in a window (at sign-in and on every keyed route together) before it must wait. */
export const KEY_FAILURES = { points: 10, seconds: 15 * 60 };

/** As for the rate limits: a keyed request waits no longer than this for Redis, then this process's count decides. */
const REDIS_WAIT_MS = 250;

/** Clients remembered as out of failures, at most: a flood from many networks must not grow the map without end. */
const MAX_REMEMBERED = 10_000;

/**
 * Counts wrong API keys per client (api/middleware/client.ts), wherever they are tried: the web app's sign-in,
 * X-API-Key, Basic or Bearer on any keyed route. Once a client is out of failures every key it sends is refused
 * with 429 until its window ends, the right one too: otherwise the 429s would tell a guesser which key is right.
 * Counted in Redis, so guessing through several API processes is limited as one (a process asks Redis once it
 * has seen a wrong key from the client itself, so each process allows at most one try more per window); when Redis
 * does not answer in time each process counts in its own memory instead (it counts there all along).
 */
export class KeyFailureLimiter {
  private readonly shared: RateLimiterRedis;
  private readonly local: RateLimiterMemory;
  /** Clients this process saw out of failures, until their window ends: refused without asking Redis. */
  private readonly blocked = new Map<string, number>();

  constructor(
    redis: Redis,
    prefix: string,
    private readonly budget = KEY_FAILURES,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    const common = { keyPrefix: `${prefix}:keyfail`, points: budget.points, duration: budget.seconds };
    this.shared = new RateLimiterRedis({ ...common, storeClient: redis, rejectIfRedisNotReady: true });
    this.local = new RateLimiterMemory(common);
  }

  /** Throws 429 with Retry-After when the client has used up its failures. */
  async check(client: string): Promise<void> {
    const until = this.blocked.get(client);
    let ms = until === undefined ? 0 : until - Date.now();
    if (ms <= 0) {
      if (until !== undefined) this.blocked.delete(client);
      // Keyed requests carry the traffic: Redis is asked only about clients this process saw send a wrong key in
      // the window. A client out of failures elsewhere gets one more try in each process that has not seen it yet.
      if (!(await this.local.get(client))) return;
      const res = await this.read(client);
      if (!res || res.consumedPoints < this.budget.points) return;
      ms = res.msBeforeNext;
      this.remember(client, ms);
    }
    const retryAfter = Math.max(1, Math.ceil(ms / 1000));
    throw new AppError(
      'rate_limited',
      `Too many failed sign-ins or wrong API keys from this address (${this.budget.points} in ${this.budget.seconds / 60} minutes): ` +
        `wait ${retryAfter} seconds, then try again with the right key`,
      undefined,
      { 'Retry-After': String(retryAfter) },
    );
  }

  /** Counts one wrong key from the client. */
  async fail(client: string): Promise<void> {
    await this.local.consume(client).catch(overBudgetIsFine);
    try {
      await withTimeout(this.shared.consume(client), REDIS_WAIT_MS);
    } catch (err) {
      // Over the budget is what check() reports next time; anything else means Redis is away.
      if (!(err instanceof RateLimiterRes)) this.onError(err);
    }
  }

  /** The check as middleware (before the body is read): for a route that takes the key in its body. */
  gate(): RequestHandler {
    return async (req, _res, next) => {
      await this.check(clientOf(req));
      next();
    };
  }

  private async read(client: string): Promise<RateLimiterRes | null> {
    try {
      return await withTimeout(this.shared.get(client), REDIS_WAIT_MS);
    } catch (err) {
      this.onError(err);
      return this.local.get(client);
    }
  }

  private remember(client: string, ms: number): void {
    const now = Date.now();
    if (this.blocked.size >= MAX_REMEMBERED) for (const [c, until] of this.blocked) if (until <= now) this.blocked.delete(c);
    if (this.blocked.size < MAX_REMEMBERED) this.blocked.set(client, now + ms);
  }
}

function overBudgetIsFine(err: unknown): void {
  if (!(err instanceof RateLimiterRes)) throw err;
}
