/**
 * A signal that aborts with a TimeoutError after `ms`, and `clear()` for when the work is done.
 * Not AbortSignal.timeout: its timer outlives the work and, when it fires, builds a DOMException with a
 * stack trace and dispatches an abort nobody listens to any more; per search (a query's embedding) that
 * was about 1% of an API process's CPU in a profile of search-interface searches at c=1.
 */
export function timeoutSignal(ms: number, what: string): { signal: AbortSignal; clear: () => void } {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(new DOMException(`${what} took longer than ${ms} ms`, 'TimeoutError')), ms);
  return { signal: ctrl.signal, clear: () => clearTimeout(timer) };
}
