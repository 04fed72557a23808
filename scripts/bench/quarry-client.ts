import { performance } from 'node:perf_hooks';
import type { DbProbe } from './db-probe.js';
import { sendJson, type Target } from './http-load.js';
import { distribution, round } from './stats.js';

export interface IndexStatus {
  documents: number;
  indexed: number;
  pending: number;
  failed: number;
  pending_deletes: number;
  last_error: { uid: string; message: string; at: string } | null;
}

export const indexStatus = (t: Target, index: string) => sendJson<IndexStatus>(t, 'GET', `/v2/indexes/${index}/status`);

export async function createPushIndex(t: Target, uid: string): Promise<void> {
  await sendJson(t, 'POST', '/v1/admin/indexes', { uid, language_code: 'en' }, [200, 201]);
}

/**
 * Waits until the index has no pending document: polls the database every `pollMs` (cheap, see
 * DbProbe), then confirms with GET /status (pending = 0 and, when given, `documents` reached the
 * expected count). Fails when the pending count did not move for `stallMs`, or a process died.
 * Returns performance.now() of the poll that first saw pending = 0 (error: at most one interval).
 */
export async function waitDrained(
  t: Target,
  probe: DbProbe,
  index: string,
  opts: { expectDocuments?: number; pollMs?: number; stallMs?: number; assertAlive: () => void },
): Promise<{ at: number; status: IndexStatus }> {
  const pollMs = opts.pollMs ?? 20;
  const stallMs = opts.stallMs ?? 60_000;
  const id = probe.indexId(index);
  let lastProgress = performance.now();
  let last = -1;
  for (;;) {
    opts.assertAlive();
    const pending = probe.pending(id);
    const at = performance.now();
    if (pending === 0) {
      const s = await indexStatus(t, index);
      if (s.pending === 0 && (opts.expectDocuments === undefined || s.documents >= opts.expectDocuments)) return { at, status: s };
    }
    if (pending !== last) {
      last = pending;
      lastProgress = at;
    } else if (at - lastProgress > stallMs) {
      throw new Error(`index ${index} stalled for ${stallMs / 1000} s with ${pending} pending: ${JSON.stringify(await indexStatus(t, index))}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** How long GET /status takes on an index (median and max of `n` sequential calls, ms). */
export async function statusCost(t: Target, index: string, n = 5): Promise<{ documents: number; medianMs: number; maxMs: number }> {
  const times: number[] = [];
  let documents = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    documents = (await indexStatus(t, index)).documents;
    times.push(performance.now() - t0);
  }
  const d = distribution(times);
  return { documents, medianMs: round(d.p50, 1), maxMs: round(d.max, 1) };
}
