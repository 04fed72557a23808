import pg from 'pg';
import { DATABASE_TIMEOUT_S, GENERATION_TIMEOUT_S, type Cluster, type RunDatabase } from './cluster.js';
import { atMoments, sleep } from './moments.js';
import { ALL_KINDS } from './requests.js';
import type { FaultContext, Scenario } from './scenarios.js';

/**
 * Faults of PostgreSQL and of the connections to it. The machine's server is shared with other
 * users, so nothing here restarts or reconfigures it: a restart and a stall are played by the proxy
 * the service connects through, a killed backend and exhausted connections on the run's own
 * database and role only.
 */
const unavailable = (_cluster: Cluster, storage: 'sqlite' | 'postgres') => (storage === 'postgres' ? null : 'needs --storage postgres');

const db = (ctx: FaultContext): RunDatabase => ctx.cluster.pg!;

/**
 * Every request kind may fail while the database is away, and until a statement or connection
 * wait begun during it has timed out; an answer being generated may wait on it up to its timeout.
 */
function outage(ctx: FaultContext, what: string, from: number): void {
  const to = Date.now();
  ctx.outages.push({ what, from, to: to + 2 * DATABASE_TIMEOUT_S * 1000, kinds: ALL_KINDS });
  ctx.outages.push({ what, from, to: to + GENERATION_TIMEOUT_S * 1000, kinds: ['summary', 'chat'] });
}

/** The service's own sessions (not the runner's, which connect as the superuser). */
const SERVICE_SESSIONS = `FROM pg_stat_activity WHERE datname = $1 AND usename = $1 AND pid <> pg_backend_pid()`;

export const PG_SCENARIOS = {
  'pg-restart': {
    about: 'PostgreSQL restarts (through the proxy: every connection cut, new ones refused for a third of the outage)',
    unavailable,
    async inject(ctx) {
      const { proxy } = db(ctx);
      const downMs = Math.max(1000, ctx.outageMs / 3);
      await atMoments(ctx, ctx.kills, async () => {
        const from = Date.now();
        const cut = await proxy.down();
        ctx.say(`  PostgreSQL down (${cut} connections cut) for ${downMs} ms`);
        await sleep(downMs);
        await proxy.up();
        outage(ctx, 'PostgreSQL restarted', from);
      });
    },
  },
  'pg-stall': {
    about: 'every connection to PostgreSQL stalls (the proxy forwards nothing, new connections get no answer), then resumes',
    unavailable,
    async inject(ctx) {
      const { proxy } = db(ctx);
      await atMoments(ctx, 1, async () => {
        const from = Date.now();
        await proxy.stall();
        ctx.say(`  PostgreSQL connections stalled for ${ctx.outageMs} ms`);
        await sleep(ctx.outageMs);
        await proxy.resume();
        outage(ctx, 'PostgreSQL stalled', from);
      }, 0.1, 0.5);
    },
  },
  'pg-kill-backend': {
    about: 'pg_terminate_backend on every connection of the service (its backends die mid-statement)',
    unavailable,
    async inject(ctx) {
      const run = db(ctx);
      await atMoments(ctx, ctx.kills, async () => {
        const from = Date.now();
        const { rows } = await run.admin(`SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n ${SERVICE_SESSIONS}`, [run.database]);
        ctx.say(`  pg_terminate_backend: ${rows[0].n} backends`);
        outage(ctx, 'PostgreSQL backends killed', from);
      });
    },
  },
  'pg-exhausted': {
    about: 'no connection to be had: the run\'s database refuses new connections (CONNECTION LIMIT 0, idle ones killed) for the outage',
    unavailable,
    async inject(ctx) {
      const run = db(ctx);
      const id = pg.escapeIdentifier(run.database);
      await atMoments(ctx, 1, async () => {
        const from = Date.now();
        await run.admin(`ALTER DATABASE ${id} CONNECTION LIMIT 0`);
        try {
          // Pools that had to reconnect now, as after their idle connections timed out.
          const { rows } = await run.admin(`SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n ${SERVICE_SESSIONS} AND state = 'idle'`, [run.database]);
          ctx.say(`  connections exhausted for ${ctx.outageMs} ms (${rows[0].n} idle connections closed)`);
          await sleep(ctx.outageMs);
        } finally {
          await run.admin(`ALTER DATABASE ${id} CONNECTION LIMIT -1`);
        }
        outage(ctx, 'PostgreSQL connections exhausted', from);
      }, 0.1, 0.5);
    },
  },
} satisfies Record<string, Scenario>;
