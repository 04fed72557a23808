export const HOST_LIMIT_DEFAULTS = {
  /** Requests in flight to one host at a time. */
  concurrency: 2,
  /** Between the starts of two requests to one host. */
  minDelayMs: 250,
  /** A robots.txt Crawl-delay above this is held to it, so one line cannot stall a crawl for hours. */
  maxCrawlDelayMs: 30_000,
} as const;

export interface HostLimiterOptions {
  concurrency?: number;
  minDelayMs?: number;
  maxCrawlDelayMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface HostState {
  active: number;
  nextStart: number;
  delayMs: number;
  waiting: (() => void)[];
}

/**
 * Politeness per host (`host` of the url: name and port): at most `concurrency` requests at once and
 * at least the delay between request starts, the delay being the larger of ours and the host's
 * robots.txt Crawl-delay.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, HostState>();
  private readonly concurrency: number;
  private readonly minDelayMs: number;
  private readonly maxCrawlDelayMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: HostLimiterOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? HOST_LIMIT_DEFAULTS.concurrency);
    this.minDelayMs = Math.max(0, options.minDelayMs ?? HOST_LIMIT_DEFAULTS.minDelayMs);
    this.maxCrawlDelayMs = options.maxCrawlDelayMs ?? HOST_LIMIT_DEFAULTS.maxCrawlDelayMs;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private state(url: string): HostState {
    const host = new URL(url).host;
    let state = this.hosts.get(host);
    if (!state) {
      state = { active: 0, nextStart: 0, delayMs: this.minDelayMs, waiting: [] };
      this.hosts.set(host, state);
    }
    return state;
  }

  /** Applies a robots.txt Crawl-delay (seconds) to the url's host. */
  setCrawlDelay(url: string, seconds: number): void {
    const state = this.state(url);
    state.delayMs = Math.max(this.minDelayMs, Math.min(this.maxCrawlDelayMs, seconds * 1000));
  }

  delayFor(url: string): number {
    return this.state(url).delayMs;
  }

  async run<T>(url: string, task: () => Promise<T>): Promise<T> {
    const state = this.state(url);
    while (state.active >= this.concurrency) await new Promise<void>((resolve) => state.waiting.push(resolve));
    state.active++;
    try {
      const start = Math.max(this.now(), state.nextStart);
      // Reserved before sleeping, so the next caller queues behind this start rather than beside it.
      state.nextStart = start + state.delayMs;
      const wait = start - this.now();
      if (wait > 0) await this.sleep(wait);
      return await task();
    } finally {
      state.active--;
      state.waiting.shift()?.();
    }
  }
}
