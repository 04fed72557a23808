import { performance } from 'node:perf_hooks';

/** A search that ran out of its time: the API answers 504. `message` says which limit it hit. */
export class SearchTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchTimeoutError';
  }
}

/** Work between two looks at the clock: one `performance.now()` per this many steps. */
const CHECK_EVERY = 4096;
/** Longest run of work before other requests get the event loop, where the work can pause. */
const SLICE_MS = 10;
/**
 * Longest run of work without a pause at all (one document whose check alone takes this long):
 * past it the search is stopped, so no search holds the event loop longer, whatever its budget.
 */
export const MAX_HOLD_MS = 1000;

/**
 * The time a search may take, and the means to keep it from holding the event loop: search runs on
 * the API's thread, so a costly filter would otherwise stop every other route of the process.
 * Loops report their work with `spend`, which throws SearchTimeoutError past the deadline; long
 * loops go through `forEach`, which also hands the event loop over every few milliseconds.
 */
export class SearchBudget {
  private readonly deadline: number;
  private readonly holdMs: number;
  /** When the event loop was last handed over (or the search began). */
  private sliceStart: number;
  private steps = 0;
  /** Work was reported since forEach last looked at the clock. */
  private busy = false;

  constructor(readonly budgetMs: number) {
    this.sliceStart = performance.now();
    this.deadline = this.sliceStart + budgetMs;
    this.holdMs = Math.min(budgetMs, MAX_HOLD_MS);
  }

  /** Records `n` steps of work; throws SearchTimeoutError once the deadline has passed. */
  spend(n = 1): void {
    this.steps += n;
    if (this.steps < CHECK_EVERY) return;
    this.steps = 0;
    this.busy = true;
    this.check();
  }

  check(now = performance.now()): void {
    if (now > this.deadline) throw new SearchTimeoutError(`it took longer than ${this.budgetMs} ms`);
    if (now - this.sliceStart > this.holdMs) throw new SearchTimeoutError(`it ran ${this.holdMs} ms without a pause`);
  }

  /**
   * Runs `fn` on every item, yielding to other work between slices of about SLICE_MS and stopping
   * with SearchTimeoutError at the deadline.
   */
  async forEach<T>(items: Iterable<T>, fn: (item: T) => void): Promise<void> {
    const slice = { end: this.sliceStart + SLICE_MS, n: 0 };
    for (const item of items) {
      fn(item);
      if (this.sliceOver(slice)) await this.handOver(slice);
    }
    this.check();
  }

  /** forEach over the first `length` numbers of each list (posting lists), without an iterator per item. */
  async forEachIn(lists: readonly { values: ArrayLike<number>; length: number }[], fn: (item: number) => void): Promise<void> {
    const slice = { end: this.sliceStart + SLICE_MS, n: 0 };
    for (const { values, length } of lists) {
      for (let i = 0; i < length; i++) {
        fn(values[i]);
        if (this.sliceOver(slice)) await this.handOver(slice);
      }
    }
    this.check();
  }

  /** Whether the current slice is used up (throws past the deadline). Cheap items are timed in groups; an item that reported much work at once. */
  private sliceOver(slice: { end: number; n: number }): boolean {
    if (++slice.n % 64 !== 0 && !this.busy) return false;
    this.busy = false;
    const now = performance.now();
    this.check(now);
    return now > slice.end;
  }

  private async handOver(slice: { end: number; n: number }): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
    this.sliceStart = performance.now();
    slice.end = this.sliceStart + SLICE_MS;
  }
}
