import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../shared/config/config.js';
import { serveClusterMetrics } from '../shared/metrics/cluster-metrics.js';
import { createStorage } from '../shared/storage/create-storage.js';

/** Sent by the primary to every API process: stop taking connections, finish what is in flight, exit. */
export const SHUTDOWN_MESSAGE = 'quarry:shutdown';
/** The environment variable that tells an API process its slot among QUARRY_API_PROCESSES (set here, not by operators). */
export const API_SLOT_ENV = 'QUARRY_API_SLOT';
const REPLACE_AFTER_MS = 1000;
/** Past each process's own 9.5 s drain limit, so they exit on their own first; `npm start` allows 10 s. */
const DEADLINE_MS = 9_800;

/**
 * The primary of QUARRY_API_PROCESSES API processes sharing one port: node:cluster accepts each
 * connection here and hands it to the next process in turn. It serves nothing itself. It replaces a
 * process that dies, relays SIGTERM/SIGINT so that all of them drain, and sums their metrics.
 */
export async function superviseApiProcesses(config: Config, log: Logger): Promise<void> {
  const count = config.http.processes;
  // The store's migrations run here once, before the processes open it side by side.
  await (await createStorage(config.storage, { log })).close();
  // Round robin, not the OS's choice: that tends to put most keep-alive connections on one process.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  const live = new Set<Worker>();
  const serving = new Set<Worker>();
  serveClusterMetrics(() => [...serving]);
  let served = false;
  let stopping = false;
  let failed = false;

  // Each process has a slot that its replacement takes over (slot 0 writes the engine's snapshots).
  const slots = new Map<Worker, number>();
  const fork = (slot: number) => {
    const w = cluster.fork({ [API_SLOT_ENV]: String(slot) });
    slots.set(w, slot);
    live.add(w);
    w.once('listening', () => {
      served = true;
      serving.add(w);
    });
  };

  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: reason, processes: live.size }, 'shutting down: draining the API processes');
    for (const w of live) if (w.isConnected()) w.send(SHUTDOWN_MESSAGE);
    setTimeout(() => {
      for (const w of live) w.process.kill('SIGKILL');
      process.exit(1);
    }, DEADLINE_MS).unref();
    if (live.size === 0) process.exit(failed ? 1 : 0);
  };

  cluster.on('exit', (w, code, signal) => {
    live.delete(w);
    serving.delete(w);
    if (stopping) {
      if (code !== 0) failed = true;
      if (live.size === 0) process.exit(failed ? 1 : 0);
      return;
    }
    if (!served && code === 1) {
      // Failed before any has served: a start-up error (storage, port) that a replacement would only repeat.
      log.error({ apiPid: w.process.pid, code }, 'an API process failed to start; stopping');
      failed = true;
      stop('start-up failure');
      return;
    }
    log.warn({ apiPid: w.process.pid, code, signal }, `an API process exited; starting another in ${REPLACE_AFTER_MS / 1000} s`);
    const slot = slots.get(w) ?? 0;
    slots.delete(w);
    setTimeout(() => stopping || fork(slot), REPLACE_AFTER_MS);
  });

  // Further signals change nothing: Ctrl-C under `npm start` reaches this process twice (from the
  // terminal and relayed by start.mjs), and the deadline bounds the drain anyway.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  log.info({ processes: count }, `starting ${count} API processes (QUARRY_API_PROCESSES)`);
  for (let i = 0; i < count; i++) fork(i);
}
