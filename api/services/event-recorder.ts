import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventStore, SearchEvent } from '../../shared/storage/ports/event-store.js';

/** Id of a search, summary or chat event: what feedback_data points back to. */
export const newEventId = () => randomBytes(12).toString('base64url');

const FLUSH_MS = 200;
const MAX_BUFFER = 5000;

/**
 * Search events are written in batches, off the request path: one transaction per 200 ms holds
 * hundreds of searches for the cost of one, so recording never slows the search box. What a crash
 * can lose is the last 200 ms of statistics, never a document.
 */
export class EventRecorder {
  private buffer: SearchEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: EventStore,
    private readonly log: Logger,
  ) {}

  search(event: SearchEvent): void {
    this.buffer.push(event);
    if (this.buffer.length >= MAX_BUFFER) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes the buffer; resolves when it and every earlier batch are written (or given up). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    // One batch at a time, in order: a slow store queues batches instead of racing them.
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.events.recordSearches(batch);
      } catch (err) {
        // Statistics must never take the search box down; the loss is logged for the operator.
        this.log.error({ err, lost: batch.length }, 'could not record search events');
      }
    });
    return this.writing;
  }
}
