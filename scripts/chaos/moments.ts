export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Random moments within the load (by default 10 % to 75 % of it), sorted. */
function moments(rand: () => number, durationMs: number, n: number, from: number, to: number): number[] {
  return Array.from({ length: n }, () => (from + (to - from) * rand()) * durationMs).sort((a, b) => a - b);
}

/** Runs `fn` at `n` random moments of the load, one after another. */
export async function atMoments(ctx: { rand: () => number; durationMs: number }, n: number, fn: () => Promise<void>, from = 0.1, to = 0.75) {
  const start = Date.now();
  for (const at of moments(ctx.rand, ctx.durationMs, n, from, to)) {
    const wait = start + at - Date.now();
    if (wait > 0) await sleep(wait);
    await fn();
  }
}
