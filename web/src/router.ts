// A small history router: the app lives under /app/, pages are matched by pattern, links are plain <a>.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/app';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(path: string, replace = false) {
  const url = path.startsWith(BASE) ? path : `${BASE}${path}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
}

/** The current path below /app (always starting with '/') and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname.slice(BASE.length) || '/', query: new URLSearchParams(location.search) });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const l = () => setLoc(read());
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return loc;
}

/** Matches '/indexes/:uid' against a path; the params are decoded. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.replace(/\/$/, '').split('/');
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) params[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** Same-app links navigate without a reload; modified clicks (new tab) keep the browser's behaviour. */
export function onLinkClick(e: MouseEvent) {
  const a = (e.target as HTMLElement).closest('a');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const href = a.getAttribute('href');
  if (!href || !href.startsWith(`${BASE}/`) || a.target || a.hasAttribute('download')) return;
  e.preventDefault();
  navigate(href);
}

export const href = (path: string) => `${BASE}${path}`;
