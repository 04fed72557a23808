import robotsParserModule from 'robots-parser';
import { ROBOTS_AGENT } from './fetch-page.js';
import type { HostLimiter } from './host-limiter.js';
import { safeFetch, type SafeFetchOptions } from './safe-fetch.js';

// The package is CommonJS (module.exports is the function) but its types declare an ES default export.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** RFC 9309 asks crawlers to read at least 500 KiB of a robots.txt; the rest is ignored. */
const ROBOTS_MAX_BYTES = 500 * 1024;

export interface RobotsRules {
  /** 'parsed': the file's rules; 'missing': a 4xx, everything allowed; 'unreachable': 5xx or no answer, nothing allowed. */
  source: 'parsed' | 'missing' | 'unreachable';
  isAllowed(url: string): boolean;
  crawlDelaySeconds: number | null;
  sitemaps: string[];
}

const allowAll = (source: 'missing'): RobotsRules => ({ source, isAllowed: () => true, crawlDelaySeconds: null, sitemaps: [] });
const disallowAll: RobotsRules = { source: 'unreachable', isAllowed: () => false, crawlDelaySeconds: null, sitemaps: [] };

export type RobotsFetchOptions = Omit<SafeFetchOptions, 'headers' | 'acceptContentType' | 'truncate' | 'maxBytes'>;

/**
 * The robots.txt rules of each origin, fetched once per crawl (make one cache per crawl so a long-lived
 * worker sees a site's changes). A Crawl-delay is handed to the limiter, which the robots.txt request
 * itself also goes through.
 */
export class RobotsCache {
  private readonly origins = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly fetchOptions: RobotsFetchOptions,
    private readonly limiter?: HostLimiter,
    private readonly agent: string = ROBOTS_AGENT,
  ) {}

  rulesFor(url: string): Promise<RobotsRules> {
    const origin = new URL(url).origin;
    let rules = this.origins.get(origin);
    if (!rules) {
      rules = this.load(origin);
      this.origins.set(origin, rules);
    }
    return rules;
  }

  async isAllowed(url: string): Promise<boolean> {
    return (await this.rulesFor(url)).isAllowed(url);
  }

  private async load(origin: string): Promise<RobotsRules> {
    const robotsUrl = `${origin}/robots.txt`;
    const fetchRobots = () => safeFetch(robotsUrl, { ...this.fetchOptions, maxBytes: ROBOTS_MAX_BYTES, truncate: true });
    const result = await (this.limiter ? this.limiter.run(robotsUrl, fetchRobots) : fetchRobots());
    if (result.kind !== 'response' || result.status >= 500 || result.status === 429) return disallowAll;
    if (result.status >= 400) return allowAll('missing');
    if (result.status >= 300) return disallowAll;
    const robot = robotsParser(robotsUrl, result.body.toString('utf8'));
    const delay = robot.getCrawlDelay(this.agent);
    const crawlDelaySeconds = typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? delay : null;
    if (crawlDelaySeconds !== null) this.limiter?.setCrawlDelay(origin, crawlDelaySeconds);
    return {
      source: 'parsed',
      // Undefined means the url is not under this robots.txt's origin: not ours to allow.
      isAllowed: (pageUrl) => robot.isAllowed(pageUrl, this.agent) === true,
      crawlDelaySeconds,
      sitemaps: robot.getSitemaps(),
    };
  }
}
