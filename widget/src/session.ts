const KEY = 'quarry-session-id';
let fallback: string | undefined;

/**
 * The visitor's session: a random id made on the first page load of the tab and kept in sessionStorage, so
 * searches on later pages of the same visit group together. Never a cookie, never anything identifying; where
 * storage is blocked (sandboxed frames, privacy modes) it lives as long as the page.
 */
export function sessionId(): string {
  try {
    let id = sessionStorage.getItem(KEY);
    if (!id) sessionStorage.setItem(KEY, (id = randomId()));
    return id;
  } catch {
    return (fallback ??= randomId());
  }
}

// crypto.randomUUID exists only in secure contexts; host pages may be plain http.
function randomId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The search interface accepts desktop, mobile or unknown; the viewport decides. */
export function device(): 'desktop' | 'mobile' {
  return innerWidth < 768 ? 'mobile' : 'desktop';
}
