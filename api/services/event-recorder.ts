import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventStore, SearchEvent } from '../../shared/storage/ports/event-store.js';

/** Id of a search, summary or chat event: what feedback_data points back to. */
export const newEventId = () => randomBytes(12).toString('base64url');

const FLUSH_MS = 200;
const MAX_BUFFER = 5000;
/** A search followed within this time by a refinement of it (same session) was a keystroke, not a search. */
export const TYPING_SETTLE_MS = 1500;
/** Sessions typing at once that are held back; beyond it the longest-held search is written as it is. */
const MAX_TYPING = 10_000;
/** Superseded keystroke searches remembered, so a late click on one still finds its search recorded. */
const MAX_SUPERSEDED = 2_000;

/** "pyt" → "pytho", or back with a backspace: the same search being typed. */
function refines(earlier: string, later: string): boolean {
  return earlier !== later && (later.startsWith(earlier) || earlier.startsWith(later));
}

/**
 * Search events are written in batches, off the request path: one transaction per 200 ms holds
 * hundreds of searches for the cost of one, so recording never slows the search box. What a crash
 * can lose is the last 200 ms of statistics (and searches still being typed), never a document.
 *
 * A search box that searches as the visitor types sends "p", "py", "pyt"… Each session's latest
 * search is held for 1.5 s: when the same session's next search refines it, the earlier one is
 * dropped, so insights and autocomplete count what visitors searched for, not their keystrokes.
 * Within one API process: keystrokes that a load balancer spreads over several are counted each.
 */
export class EventRecorder {
  private buffer: SearchEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly typing = new Map<string, { event: SearchEvent; timer: NodeJS.Timeout }>();
  private readonly typingKeyOf = new Map<string, string>();
  private readonly superseded = new Map<string, SearchEvent>();

  constructor(
    private readonly events: EventStore,
    private readonly log: Logger,
  ) {}

  search(event: SearchEvent): void {
    const key = `${event.configurationUid}\u0000${event.session}`;
    const earlier = this.typing.get(key);
    if (earlier) {
      this.release(key, earlier);
      if (refines(earlier.event.normalized, event.normalized)) this.supersede(earlier.event);
      else this.enqueue(earlier.event);
    }
    if (this.typing.size >= MAX_TYPING) this.settle(this.typing.keys().next().value!);
    const timer = setTimeout(() => this.settle(key), TYPING_SETTLE_MS);
    timer.unref();
    this.typing.set(key, { event, timer });
    this.typingKeyOf.set(event.id, key);
  }

  /** A click on a search's result: that search was real, whatever the visitor types next. */
  clicked(searchEventId: string): void {
    const key = this.typingKeyOf.get(searchEventId);
    if (key !== undefined) this.settle(key);
    const dropped = this.superseded.get(searchEventId);
    if (dropped) {
      this.superseded.delete(searchEventId);
      this.enqueue(dropped);
    }
  }

  /** Writes the buffer and every held search; resolves when it and every earlier batch are written (or given up). */
  flush(): Promise<void> {
    for (const key of [...this.typing.keys()]) this.settle(key, false);
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

  private settle(key: string, schedule = true): void {
    const held = this.typing.get(key);
    if (!held) return;
    this.release(key, held);
    this.enqueue(held.event, schedule);
  }

  private release(key: string, held: { event: SearchEvent; timer: NodeJS.Timeout }): void {
    clearTimeout(held.timer);
    this.typing.delete(key);
    this.typingKeyOf.delete(held.event.id);
  }

  private supersede(event: SearchEvent): void {
    this.superseded.set(event.id, event);
    if (this.superseded.size > MAX_SUPERSEDED) this.superseded.delete(this.superseded.keys().next().value!);
  }

  private enqueue(event: SearchEvent, schedule = true): void {
    this.buffer.push(event);
    if (!schedule) return;
    if (this.buffer.length >= MAX_BUFFER) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }
}
