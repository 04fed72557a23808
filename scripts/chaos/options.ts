import { z } from 'zod';

/** Every scenario the runner knows, in the order a full run plays them. */
export const SCENARIOS = [
  'kill-api', 'kill-index', 'kill-embed', 'kill-generator', 'kill-redis',
  'redis-stall', 'redis-empty', 'disk-full', 'model-slow', 'model-failing', 'model-garbage',
  'pg-restart', 'pg-stall', 'pg-kill-backend', 'pg-exhausted',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** What `--short` plays: a kill of the API, a worker and Redis, a stall, a full disk, failing and junk-answering models. */
export const SHORT_SCENARIOS: ScenarioName[] = ['kill-api', 'kill-embed', 'kill-redis', 'redis-stall', 'disk-full', 'model-failing', 'model-garbage'];

/** Faults of the PostgreSQL server and the connections to it: played only with `--storage postgres`. */
export const PG_ONLY: ScenarioName[] = ['pg-restart', 'pg-stall', 'pg-kill-backend', 'pg-exhausted'];

/**
 * The scenarios a run plays unless `--scenarios` names them. PostgreSQL mode adds the faults of
 * the database (`--short`: its restart and killed backends, which cost seconds) and drops the
 * full disk from `--short` (the data folder holds nothing durable there).
 */
function defaultScenarios(short: boolean, storage: 'sqlite' | 'postgres'): ScenarioName[] {
  if (storage === 'sqlite') return short ? SHORT_SCENARIOS : SCENARIOS.filter((s) => !PG_ONLY.includes(s));
  return short ? [...SHORT_SCENARIOS.filter((s) => s !== 'disk-full'), 'pg-restart', 'pg-kill-backend'] : [...SCENARIOS];
}

export interface ChaosOptions {
  short: boolean;
  seed: number;
  scenarios: ScenarioName[];
  storage: 'sqlite' | 'postgres';
  /** New documents over the whole run (each scenario pushes its share), besides updates and deletes. */
  docs: number;
  /** Seconds of load (and faults) per scenario. */
  seconds: number;
  /** Documents per batch request. */
  batch: number;
  /** Kills per kill scenario. */
  kills: number;
  /** Seconds a stall, a full disk or a model outage lasts. */
  outageSeconds: number;
  /** Widget searches per second (summaries and chats at a tenth of that each). */
  searchRate: number;
  /** Documents checked through the widget search for "exactly once" per scenario (all of them are checked through content search). */
  uiSample: number;
  /** Where the JSON goes; `bench-results/chaos.json` by default. */
  out: string | null;
  /** Prints progress lines. */
  verbose: boolean;
}

const scenarioList = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(z.enum(SCENARIOS, { error: `name scenarios from ${SCENARIOS.join(', ')}` })).min(1));

const argsSchema = z.strictObject({
  short: z.boolean().default(false),
  seed: z.coerce.number().int().min(0).optional(),
  scenarios: scenarioList.optional(),
  storage: z.enum(['sqlite', 'postgres']).default('sqlite'),
  docs: z.coerce.number().int().min(10).max(10_000_000).optional(),
  seconds: z.coerce.number().min(2).max(3600).optional(),
  batch: z.coerce.number().int().min(1).max(1000).optional(),
  kills: z.coerce.number().int().min(1).max(100).optional(),
  'outage-seconds': z.coerce.number().min(1).max(600).optional(),
  'search-rate': z.coerce.number().min(0).max(1000).optional(),
  'ui-sample': z.coerce.number().int().min(0).max(100_000).optional(),
  out: z.string().min(1).optional(),
  quiet: z.boolean().default(false),
});

/** `--name value`, `--name=value` and bare flags; unknown names are refused with the list of known ones. */
export function parseOptions(argv: string[]): ChaosOptions {
  const raw: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument "${a}"; options start with --`);
    const [name, inline] = a.slice(2).split('=', 2);
    if (name === 'short' || name === 'quiet') raw[name] = true;
    else raw[name] = inline ?? argv[++i] ?? '';
  }
  const parsed = argsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`chaos: ${parsed.error.issues.map((i) => `--${i.path.join('.') || '(options)'}: ${i.message}`).join('; ')}`);
  }
  const a = parsed.data;
  const short = a.short;
  return {
    short,
    seed: a.seed ?? Math.floor(Math.random() * 2 ** 31),
    scenarios: a.scenarios ?? defaultScenarios(short, a.storage),
    storage: a.storage,
    docs: a.docs ?? (short ? 1200 : 100_000),
    seconds: a.seconds ?? (short ? 8 : 60),
    batch: a.batch ?? (short ? 40 : 250),
    kills: a.kills ?? (short ? 1 : 3),
    outageSeconds: a['outage-seconds'] ?? (short ? 3 : 12),
    searchRate: a['search-rate'] ?? (short ? 5 : 10),
    uiSample: a['ui-sample'] ?? (short ? 30 : 300),
    out: a.out ?? null,
    verbose: !a.quiet,
  };
}
