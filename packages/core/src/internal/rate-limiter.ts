// Token buckets per key (a credential, or a client address), in the memory of one process.

/** A limit: at most `requests` per `seconds`, as a bucket of `requests` refilled evenly over `seconds`. */
export interface RateLimit {
  readonly requests: number;
  readonly seconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
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
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = limit.requests / (limit.seconds * 1000);
  }

  /** Takes one request for `key`: 0 when allowed, otherwise the whole seconds until one is. */
  take(key: string): number {
    const bucket = this.refilled(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return this.wait(bucket);
  }

  /** 0 when `key` may make a request now, otherwise the whole seconds until it may; takes nothing. */
  peek(key: string): number {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return 0;
    this.refill(bucket);
    return bucket.tokens >= 1 ? 0 : this.wait(bucket);
  }

  private wait(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  private refill(bucket: Bucket): void {
    const now = this.now();
    bucket.tokens = Math.min(this.limit.requests, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
  }

  private refilled(key: string): Bucket {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= SWEEP_AT) this.sweep();
      bucket = { tokens: this.limit.requests, at: this.now() };
      this.buckets.set(key, bucket);
    } else {
      this.refill(bucket);
    }
    return bucket;
  }

  /**
   * Drops the buckets that are full again (forgetting them changes nothing), then, if many keys are
   * still busy (a flood of client addresses), the oldest half: memory stays bounded whatever comes.
   */
  private sweep(): void {
    for (const [key, bucket] of this.buckets) {
      this.refill(bucket);
      if (bucket.tokens >= this.limit.requests) this.buckets.delete(key);
    }
    if (this.buckets.size < SWEEP_AT / 2) return;
    let drop = this.buckets.size / 2;
    for (const key of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(key);
    }
  }
}
