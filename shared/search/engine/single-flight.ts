/**
 * Runs an async task for many callers at once. A caller that arrives while a run is under way waits
 * for a fresh run after it (the one under way may have started before what the caller must see),
 * and every caller arriving meanwhile shares that fresh run.
 */
export class SingleFlight {
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly task: () => Promise<void>) {}

  run(): Promise<void> {
    if (!this.running) return this.start();
    // Never two runs at once: when the queued callers' turn comes, a run started after they
    // arrived (by a newer caller) serves them as well as a new one would.
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = null;
        return this.running ?? this.start();
      });
    return this.queued;
  }

  private start(): Promise<void> {
    const p = this.task().finally(() => {
      if (this.running === p) this.running = null;
    });
    this.running = p;
    return p;
  }
}
