// The one way the app talks to the server: same-origin JSON with the session cookie, the CSRF token on
// every state-changing request, and errors as ApiError carrying the server's own message.

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

let csrfToken: string | null = null;
const signedOutListeners = new Set<() => void>();

export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

/** Called when the server says the session is gone (expired, revoked, signed out elsewhere). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The server did not answer: check that Quarry is running and your network is up.');
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const message = (data as { message?: unknown } | null)?.message;
    if (res.status === 401 && !path.endsWith('/v1/admin/session')) signedOutListeners.forEach((l) => l());
    throw new ApiError(res.status, typeof message === 'string' ? message : `The server answered ${res.status} ${res.statusText}`.trim());
  }
  return data as T;
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, body ?? {}),
  delete: <T = null>(path: string) => request<T>('DELETE', path),
  /**
   * A whole admin listing: the server answers in pages (at most 1000 items and a next_cursor), and the app
   * shows everything an operator has, so this follows next_cursor to the last page and returns `field` whole.
   */
  async all<T extends object>(path: string, field: keyof T & string, signal?: AbortSignal): Promise<T> {
    const items: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: Record<string, unknown> = await request('GET', cursor ? `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : path, undefined, signal);
      items.push(...(page[field] as unknown[]));
      cursor = typeof page.next_cursor === 'string' ? page.next_cursor : null;
    } while (cursor);
    return { [field]: items } as T;
  },
};

/** Encodes one path segment (uids may hold characters that are special in urls). */
export const seg = (s: string) => encodeURIComponent(s);

/** A query string from the defined values only. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
