// Token buckets per key (a credential, or a client address), in the memory of one process.
import type { RateLimit } from '../auth-options.js';

interface Bucket {
  /** Requests the key may still make now; fractions accrue between requests. */
  tokens: number;
  /** When `tokens` was last brought up to date, in ms of the limiter's clock. */
  refilledAt: number;
}

/** More keys than this and the full buckets (which hold nothing worth keeping) are swept. */
const SWEEP_AT = 50_000;

/** A TypeError unless `limit` is a usable {@link RateLimit}; `name` names the option. */
export function checkRateLimit(limit: RateLimit, name: string): RateLimit {
  if (
    limit === null ||
    typeof limit !== 'object' ||
    !Number.isSafeInteger(limit.requests) ||
    limit.requests < 1 ||
    typeof limit.seconds !== 'number' ||
    !(limit.seconds > 0 && limit.seconds <= 86_400)
  ) {
    throw new TypeError(`${name} must be { requests: a whole number, 1 or more, seconds: more than 0, at most 86400 }`);
  }
  return limit;
}

/**
 * Token buckets: a key starts with `requests` and gains them back at `requests / seconds` per second.
 * A burst of `requests` is allowed, then one request per `seconds / requests` on average.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #limit: RateLimit;
  readonly #now: () => number;
  /** Requests a bucket gains back per millisecond. */
  readonly #perMs: number;

  constructor(limit: RateLimit, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
    this.#perMs = limit.requests / (limit.seconds * 1000);
  }

  /** How many keys hold a bucket now: bounded, whatever keys come. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one request for `key`: 0 when allowed, otherwise the whole seconds until one is. */
  take(key: string): number {
    const bucket = this.#refilled(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return this.#wait(bucket);
  }

  /** 0 when `key` may make a request now, otherwise the whole seconds until it may; takes nothing. */
  peek(key: string): number {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return 0;
    this.#refill(bucket);
    return bucket.tokens >= 1 ? 0 : this.#wait(bucket);
  }

  #wait(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000));
  }

  #refill(bucket: Bucket): void {
    const now = this.#now();
    bucket.tokens = Math.min(this.#limit.requests, bucket.tokens + (now - bucket.refilledAt) * this.#perMs);
    bucket.refilledAt = now;
  }

  #refilled(key: string): Bucket {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= SWEEP_AT) this.#sweep();
      bucket = { tokens: this.#limit.requests, refilledAt: this.#now() };
      this.#buckets.set(key, bucket);
    } else {
      this.#refill(bucket);
    }
    return bucket;
  }

  /**
   * Drops the buckets that are full again (forgetting them changes nothing), then, if many keys are
   * still busy (a flood of client addresses), the oldest half: memory stays bounded whatever comes.
   */
  #sweep(): void {
    for (const [key, bucket] of this.#buckets) {
      this.#refill(bucket);
      if (bucket.tokens >= this.#limit.requests) this.#buckets.delete(key);
    }
    if (this.#buckets.size < SWEEP_AT / 2) return;
    let drop = this.#buckets.size / 2;
    for (const key of this.#buckets.keys()) {
      if (drop-- <= 0) break;
      this.#buckets.delete(key);
    }
  }
}
