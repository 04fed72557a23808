import { parseArgs } from 'node:util';

/**
 * Command-line flags are sugar for environment variables, so config validation stays in one place:
 * `--queues embed,index --concurrency 8` becomes QUARRY_WORKER_QUEUES / QUARRY_WORKER_CONCURRENCY.
 */
export function envWithFlags(argv: string[], flags: Record<string, string>): Record<string, string | undefined> {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.keys(flags).map((f) => [f, { type: 'string' as const }])),
    strict: true,
  });
  const env: Record<string, string | undefined> = { ...process.env };
  for (const [flag, variable] of Object.entries(flags)) {
    const v = values[flag];
    if (typeof v === 'string') env[variable] = v;
  }
  return env;
}

/**
 * Returns a trigger that runs `stop` once, then exits (0, or 1 when it failed or took over 9.5 s); later
 * calls do nothing. For processes told to stop by something other than a signal (a cluster's primary).
 */
export function drainOnce(stop: () => Promise<void>, log: { info: (o: object, m: string) => void }): (reason: string) => void {
  let stopping = false;
  return (reason) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: reason }, 'shutting down: draining');
    setTimeout(() => process.exit(1), 9_500).unref();
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
}

/**
 * A second signal within this time is the same request arriving twice, not an impatient operator:
 * Ctrl-C in `npm start`'s terminal sends SIGINT to the whole process group, and npm start then sends
 * its children SIGTERM as well.
 */
const SAME_REQUEST_MS = 1000;

/** Runs `stop` once on SIGTERM/SIGINT, then exits; a second signal (a second after the first) or 9.5 s forces the exit. */
export function onShutdown(stop: () => Promise<void>, log: { info: (o: object, m: string) => void }): void {
  let signalledAt: number | null = null;
  const drain = drainOnce(stop, log);
  const handler = (signal: string) => {
    if (signalledAt !== null) {
      if (Date.now() - signalledAt >= SAME_REQUEST_MS) process.exit(1);
      return;
    }
    signalledAt = Date.now();
    drain(signal);
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}

/** Runs a process entry point; a configuration error prints its list of problems, anything else its stack. */
export function runMain(main: () => Promise<void>, isConfigError: (e: unknown) => boolean): void {
  main().catch((err) => {
    console.error(isConfigError(err) ? (err as Error).message : err);
    process.exit(1);
  });
}
