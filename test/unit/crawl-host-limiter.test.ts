import { describe, expect, it } from 'vitest';
import { HostLimiter } from '../../shared/crawl/host-limiter.js';

/** A clock that moves only when the limiter sleeps, so the test sees exactly the starts it scheduled. */
function fakeClock() {
  let time = 0;
  return {
    now: () => time,
    sleep: async (ms: number) => {
      time += ms;
    },
  };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('HostLimiter', () => {
  it('spaces the starts of requests to one host by the minimum delay', async () => {
    const clock = fakeClock();
    const limiter = new HostLimiter({ concurrency: 1, minDelayMs: 100, ...clock });
    const starts: number[] = [];
    await Promise.all([1, 2, 3].map(() => limiter.run('http://a.test/x', async () => void starts.push(clock.now()))));
    expect(starts).toEqual([0, 100, 200]);
  });

  it('keeps hosts apart: another host does not wait', async () => {
    const clock = fakeClock();
    const limiter = new HostLimiter({ concurrency: 1, minDelayMs: 100, ...clock });
    const starts: string[] = [];
    await Promise.all(
      ['http://a.test/1', 'http://a.test/2', 'http://b.test/1'].map((url) =>
        limiter.run(url, async () => void starts.push(`${url}@${clock.now()}`)),
      ),
    );
    expect(starts).toContain('http://b.test/1@0');
    expect(starts).toContain('http://a.test/1@0');
  });

  it('never runs more than the concurrency at once for one host', async () => {
    const limiter = new HostLimiter({ concurrency: 2, minDelayMs: 0 });
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 5 }, deferred);
    const runs = gates.map((gate) =>
      limiter.run('http://a.test/', async () => {
        running++;
        peak = Math.max(peak, running);
        await gate.promise;
        running--;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(2);
    for (const gate of gates) gate.resolve();
    await Promise.all(runs);
    expect(peak).toBe(2);
  });

  it('honours a robots Crawl-delay above its own delay, capped', async () => {
    const clock = fakeClock();
    const limiter = new HostLimiter({ concurrency: 1, minDelayMs: 100, maxCrawlDelayMs: 5000, ...clock });
    limiter.setCrawlDelay('http://a.test/', 2);
    expect(limiter.delayFor('http://a.test/page')).toBe(2000);
    const starts: number[] = [];
    await Promise.all([1, 2].map(() => limiter.run('http://a.test/', async () => void starts.push(clock.now()))));
    expect(starts).toEqual([0, 2000]);
    limiter.setCrawlDelay('http://a.test/', 3600);
    expect(limiter.delayFor('http://a.test/')).toBe(5000);
    limiter.setCrawlDelay('http://a.test/', 0);
    expect(limiter.delayFor('http://a.test/')).toBe(100);
  });

  it('releases its slot when a task throws', async () => {
    const limiter = new HostLimiter({ concurrency: 1, minDelayMs: 0 });
    await expect(limiter.run('http://a.test/', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run('http://a.test/', async () => 'ok')).resolves.toBe('ok');
  });
});
