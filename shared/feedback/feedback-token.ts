import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Variant } from '../storage/ports/configuration-store.js';

/** What a click needs to be matched to its search and learnt from, carried by the result itself. */
export interface FeedbackPayload {
  /** Search event id. */
  e: string;
  /** Configuration uid and variant. */
  c: string;
  v: Variant;
  /** Position of the result, 1-based. */
  p: number;
  /** Index uid and document uid of a paragraph, or the instant answer id (i = ''). */
  i: string;
  d: string;
  /** Section id within the search store, 0 for instant answers. */
  s: number;
  /** Normalized query. */
  q: string;
  /** Keyed session hash. */
  h: string;
  /** 1 when the search was a preview: its clicks are accepted and dropped. */
  x?: 1;
}

const VERSION = 1;
const MAC_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export class FeedbackDataError extends Error {}

/**
 * Signs and verifies `feedback_data`: base64 of a version byte, the JSON payload and a truncated
 * HMAC-SHA256 over both. Any change (a flipped bit, truncation, lower-casing, a forged payload)
 * fails the MAC, so a click can only be recorded for a result this service really returned.
 */
export class FeedbackSigner {
  constructor(private readonly secret: string) {}

  sign(payload: FeedbackPayload): string {
    const body = Buffer.concat([Buffer.from([VERSION]), Buffer.from(JSON.stringify(payload), 'utf8')]);
    return Buffer.concat([body, this.mac(body)]).toString('base64');
  }

  verify(data: string): FeedbackPayload {
    if (typeof data !== 'string' || data.length === 0 || data.length > 8192 || !BASE64.test(data)) {
      throw new FeedbackDataError('feedback_data is not the base64 this service issued; send it back exactly as received with the result');
    }
    const raw = Buffer.from(data, 'base64');
    if (raw.length <= 1 + MAC_BYTES || raw[0] !== VERSION) throw new FeedbackDataError('feedback_data is garbled or truncated; send it back exactly as received');
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    if (!timingSafeEqual(raw.subarray(raw.length - MAC_BYTES), this.mac(body))) {
      throw new FeedbackDataError('feedback_data failed its signature check: it was altered or did not come from this service');
    }
    return JSON.parse(body.subarray(1).toString('utf8')) as FeedbackPayload;
  }

  /**
   * Whether the token says it came from a preview, without checking its signature: only for
   * routing the request to the preview rate limiter before the real check rejects forgeries.
   */
  static claimsPreview(data: unknown): boolean {
    if (typeof data !== 'string' || data.length > 8192) return false;
    return Buffer.from(data, 'base64').includes('"x":1');
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.secret).update('feedback\u0000').update(body).digest().subarray(0, MAC_BYTES);
  }
}
