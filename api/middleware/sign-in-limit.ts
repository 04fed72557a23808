import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../../shared/errors/app-error.js';
import { refuseUnread } from './json-body.js';

/** Failed sign-ins a client address may make in a window before it must wait. */
export const SIGN_IN_FAILURES = { points: 10, seconds: 15 * 60 };

/**
 * Counts failed sign-ins per client address in Redis, so guessing keys through several API
 * processes is limited as one; while Redis is away each process counts in its own memory instead.
 */
export class SignInLimiter {
  private readonly limiter: RateLimiterAbstract;

  constructor(redis: Redis, prefix: string, private readonly budget = SIGN_IN_FAILURES) {
    const common = { keyPrefix: `${prefix}:signin`, points: budget.points, duration: budget.seconds };
    this.limiter = new RateLimiterRedis({
      ...common,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(common),
    });
  }

  /** Throws 429 when the address has used up its failures. */
  async check(client: string): Promise<void> {
    const res = await this.limiter.get(client);
    if (!res || res.consumedPoints < this.budget.points) return;
    const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    throw new AppError(
      'rate_limited',
      `Too many failed sign-ins from this address (${this.budget.points} in ${this.budget.seconds / 60} minutes): wait ${retryAfter} seconds, then paste the key again`,
      undefined,
      { 'Retry-After': String(retryAfter) },
    );
  }

  /** The check as middleware, so an address out of failures is refused before its body is read. */
  gate(): RequestHandler {
    return async (req, res, next) => {
      try {
        await this.check(req.ip ?? 'unknown');
        next();
      } catch (err) {
        refuseUnread(req, res, next, err);
      }
    };
  }

  async fail(client: string): Promise<void> {
    try {
      await this.limiter.consume(client);
    } catch (err) {
      // Over the budget is what check() reports next time; anything else is a real failure.
      if (!(err instanceof RateLimiterRes)) throw err;
    }
  }
}
