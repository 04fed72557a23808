import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventRecorder, TYPING_SETTLE_MS } from '../../api/services/event-recorder.js';
import type { EventStore, SearchEvent } from '../../shared/storage/ports/event-store.js';

/** Only recordSearches is used by the recorder; the store's own behaviour has its contract suite. */
function capturingStore() {
  const written: SearchEvent[] = [];
  return { written, store: { recordSearches: async (events: SearchEvent[]) => void written.push(...events) } as unknown as EventStore };
}

let n = 0;
const event = (normalized: string, session = 's1', configurationUid = 'c1'): SearchEvent => ({
  id: `e${++n}`, at: Date.now(), configurationUid, variant: 'ui', session, device: 'desktop', query: normalized, normalized, resultCount: 1,
});

describe('EventRecorder: searches typed keystroke by keystroke', () => {
  let written: SearchEvent[];
  let recorder: EventRecorder;
  beforeEach(() => {
    const s = capturingStore();
    written = s.written;
    recorder = new EventRecorder(s.store, pino({ level: 'silent' }));
  });
  afterEach(() => vi.useRealTimers());

  const queries = () => written.map((e) => e.normalized);

  it('keeps only the last of a session’s refinements, forwards and backwards', async () => {
    for (const q of ['p', 'py', 'pyt', 'pyth', 'pythn', 'pyth', 'python']) recorder.search(event(q));
    await recorder.flush();
    expect(queries()).toEqual(['python']);
  });

  it('keeps searches that are not refinements, repeats, and other sessions’ and configurations’ searches', async () => {
    recorder.search(event('python'));
    recorder.search(event('java'));
    recorder.search(event('java'));
    recorder.search(event('py', 's2'));
    recorder.search(event('py', 's1', 'c2'));
    recorder.search(event('pyth', 's3'));
    await recorder.flush();
    expect(queries().sort()).toEqual(['java', 'java', 'py', 'py', 'python', 'pyth'].sort());
  });

  it('keeps a search whose result was clicked, even if the visitor types on', async () => {
    const clicked = event('pyt');
    recorder.search(clicked);
    recorder.clicked(clicked.id);
    recorder.search(event('python'));
    await recorder.flush();
    expect(queries()).toEqual(['pyt', 'python']);
  });

  it('brings back a superseded search when a late click lands on its result', async () => {
    const early = event('pyt');
    recorder.search(early);
    recorder.search(event('python'));
    recorder.clicked(early.id);
    await recorder.flush();
    expect(queries().sort()).toEqual(['pyt', 'python']);
  });

  it('writes a held search once the visitor has stopped typing, without a flush', async () => {
    vi.useFakeTimers();
    recorder.search(event('py'));
    recorder.search(event('python'));
    await vi.advanceTimersByTimeAsync(TYPING_SETTLE_MS - 10);
    expect(written).toEqual([]);
    await vi.advanceTimersByTimeAsync(500);
    expect(queries()).toEqual(['python']);
    // A refinement after the pause is a new search.
    recorder.search(event('python tutorial'));
    await vi.advanceTimersByTimeAsync(TYPING_SETTLE_MS + 500);
    expect(queries()).toEqual(['python', 'python tutorial']);
  });
});
