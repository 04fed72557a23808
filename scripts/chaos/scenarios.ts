import type { Cluster } from './cluster.js';
import { GENERATION_TIMEOUT_S } from './cluster.js';
import { fillDisk, freeBytes } from './disk.js';
import type { ModelMode } from './model-stub.js';
import { atMoments, sleep } from './moments.js';
import { PG_SCENARIOS } from './pg-scenarios.js';
import type { ScenarioName } from './options.js';
import { ALL_KINDS, type RequestKind } from './requests.js';
import type { ProcessKind } from './supervisor.js';

const ALL: RequestKind[] = ALL_KINDS;
const GENERATION: RequestKind[] = ['summary', 'chat'];

/**
 * A stretch of time in which a dependency of some request kinds was away: their 5xx answers then
 * count as "during an outage" (they must still be the spec's bodies), not as failures of the service.
 */
export interface Outage {
  what: string;
  from: number;
  to: number;
  kinds: RequestKind[];
}

export interface FaultContext {
  cluster: Cluster;
  rand: () => number;
  durationMs: number;
  outageMs: number;
  kills: number;
  outages: Outage[];
  say: (m: string) => void;
}

export interface Scenario {
  /** What it does, for the table and docs. */
  about: string;
  /** Runs the faults during the load; resolves once everything it broke is restored. */
  inject(ctx: FaultContext): Promise<void>;
  /** The load lasts at least this long, so it runs through the whole fault. */
  minDurationMs?: number;
  /** Why it cannot run on this machine or in this mode (then it is reported, not run). */
  unavailable?(cluster: Cluster, storage: 'sqlite' | 'postgres'): string | null;
}

/**
 * Which request kinds lose a dependency when a process kind dies. Push and search must not depend
 * on Redis or on any worker (the store holds every write; the reconciler enqueues later);
 * summaries and chats need Redis and the generator. A dead API takes everything.
 */
const KILL_AFFECTS: Record<ProcessKind, RequestKind[]> = {
  api: ALL, index: [], embed: [], generator: GENERATION, redis: GENERATION,
};

function killScenario(kind: ProcessKind, about: string): Scenario {
  return {
    about,
    async inject(ctx) {
      const p = ctx.cluster.byKind(kind);
      await atMoments(ctx, ctx.kills, async () => {
        // A process still coming back from the previous kill is left to finish starting.
        await p.waitUp(60_000);
        const from = Date.now();
        p.kill();
        ctx.say(`  SIGKILL ${p.name}`);
        const back = await p.waitUp(90_000);
        // A generation in flight at the kill is only given up at its timeout.
        const tail = kind === 'generator' || kind === 'redis' ? GENERATION_TIMEOUT_S * 1000 : 0;
        ctx.outages.push({ what: `${p.name} killed`, from, to: Date.now() + tail, kinds: KILL_AFFECTS[kind] });
        if (!back) ctx.say(`  ${p.name} did not come back within 90 s`);
      });
    },
  };
}

function modelScenario(mode: ModelMode, about: string): Scenario {
  return {
    about,
    async inject(ctx) {
      const stub = ctx.cluster.stub.state;
      await atMoments(ctx, 1, async () => {
        const from = Date.now();
        stub.embeddings = mode;
        stub.chat = mode;
        ctx.say(`  model endpoints ${mode}`);
        await sleep(ctx.outageMs);
        stub.embeddings = 'ok';
        stub.chat = 'ok';
        // Answers already waiting on a slow model finish (or time out) after it recovers.
        ctx.outages.push({ what: `model ${mode}`, from, to: Date.now() + (mode === 'slow' ? GENERATION_TIMEOUT_S * 1000 : 0), kinds: GENERATION });
      });
    },
  };
}

export const SCENARIO_TABLE: Record<ScenarioName, Scenario> = {
  'kill-api': killScenario('api', 'SIGKILL the API at random moments; restarted a second later'),
  'kill-index': killScenario('index', 'SIGKILL the index worker (--queues index: claims, sections)'),
  'kill-embed': killScenario('embed', 'SIGKILL the embed worker (--queues embed: embeds, publishes)'),
  'kill-generator': killScenario('generator', 'SIGKILL the generation worker'),
  'kill-redis': killScenario('redis', 'SIGKILL the embedded redis-server; restarted on its append-only file'),
  'redis-stall': {
    about: 'SIGSTOP redis-server (connections open, no answers) for longer than the generation timeout, then SIGCONT',
    minDurationMs: ((GENERATION_TIMEOUT_S + 3) * 1000) / 0.7,
    async inject(ctx) {
      const redis = ctx.cluster.byKind('redis');
      // Longer than the generation timeout: an answer's timer fires while its enqueue still hangs.
      const stallMs = Math.max(ctx.outageMs, (GENERATION_TIMEOUT_S + 3) * 1000);
      await atMoments(ctx, 1, async () => {
        const from = Date.now();
        redis.pause();
        ctx.say(`  SIGSTOP redis for ${stallMs} ms`);
        await sleep(stallMs);
        redis.resume();
        ctx.outages.push({ what: 'redis stalled', from, to: Date.now() + GENERATION_TIMEOUT_S * 1000, kinds: GENERATION });
      }, 0.1, 0.2);
    },
  },
  'redis-empty': {
    about: 'SIGKILL redis-server and restart it on an empty folder (every queued job gone)',
    async inject(ctx) {
      const redis = ctx.cluster.byKind('redis');
      await atMoments(ctx, 1, async () => {
        const from = Date.now();
        ctx.cluster.emptyRedisOnRestart();
        redis.kill();
        ctx.say('  SIGKILL redis, back empty');
        await redis.waitUp(60_000);
        ctx.outages.push({ what: 'redis restarted empty', from, to: Date.now() + GENERATION_TIMEOUT_S * 1000, kinds: GENERATION });
      });
    },
  },
  'disk-full': {
    about: 'fill the data folder\'s file system (a tmpfs) to the last block, free it after the outage',
    unavailable: (cluster, storage) =>
      storage === 'postgres' ? 'PostgreSQL mode keeps nothing durable in the data folder (the database\'s disk is not ours to fill)'
      : cluster.disk ? null : `no size-limited file system could be mounted: ${cluster.diskUnavailable}`,
    async inject(ctx) {
      await atMoments(ctx, 1, async () => {
        const from = Date.now();
        const { filled, release } = fillDisk(ctx.cluster.dataDir);
        ctx.say(`  disk full (${Math.round(filled / 2 ** 20)} MB filler, ${freeBytes(ctx.cluster.dataDir)} bytes free)`);
        await sleep(ctx.outageMs);
        release();
        ctx.outages.push({ what: 'disk full', from, to: Date.now() + 2000, kinds: ALL });
      });
    },
  },
  'model-slow': modelScenario('slow', 'embedding and chat endpoints answer 4 s late'),
  'model-failing': modelScenario('failing', 'embedding and chat endpoints answer 503'),
  'model-garbage': modelScenario('garbage', 'embedding and chat endpoints answer 200 with junk (HTML, wrong shapes)'),
  ...PG_SCENARIOS,
};
