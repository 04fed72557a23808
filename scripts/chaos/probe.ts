import os from 'node:os';

export interface HealthFigures {
  /** GET /healthz every 500 ms: answers, their median and slowest time, how many took over a second. */
  samples: number;
  p50Ms: number;
  maxMs: number;
  over1s: number;
  /** 1-minute load average of the machine at the start and end of the scenario (2 cores here: above 2 means others wait too). */
  loadAvg: [number, number];
}

/**
 * How responsive the API's event loop was, and how busy the machine, while a scenario ran: a hung
 * search beside a slow /healthz and a load average of 15 points at CPU starvation (the machine is
 * shared), a hung search beside a quick /healthz at the search itself.
 */
export function startHealthProbe(baseUrl: string): { stop(): Promise<HealthFigures> } {
  const times: number[] = [];
  const load0 = os.loadavg()[0];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = Date.now();
      try {
        const r = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(30_000) });
        await r.arrayBuffer();
        if (r.ok) times.push(Date.now() - t0);
      } catch {
        // the API is down (a kill scenario): no sample
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 500 - (Date.now() - t0))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...times].sort((a, b) => a - b);
      return {
        samples: sorted.length,
        p50Ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
        maxMs: sorted[sorted.length - 1] ?? 0,
        over1s: sorted.filter((t) => t > 1000).length,
        loadAvg: [Number(load0.toFixed(1)), Number(os.loadavg()[0].toFixed(1))],
      };
    },
  };
}
