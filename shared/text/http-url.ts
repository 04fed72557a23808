/**
 * The url if it is an absolute http(s) one, else undefined. Links in search-interface responses are
 * followed by browsers on other people's sites: a `javascript:`, `data:` or `vbscript:` url there runs
 * code, and a relative or protocol-relative one points wherever the host page is. Urls are parsed as
 * browsers parse them (so `java\tscript:` and ` JAVASCRIPT:` are caught); a clean url is kept as given.
 */
export function httpUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || url === '') return undefined;
  // Scheme and authority spelled out: without them ("/x", "//x", "http:x") a browser resolves the url
  // against the host page, which may send it anywhere.
  if (!/^[\x00-\x20]*https?:[/\\]{2}/i.test(url.replace(/[\t\n\r]/g, ''))) return undefined;
  try {
    const parsed = new URL(url);
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.host === '') return undefined;
    // Whitespace and control characters, which browsers strip, would only confuse a client's own checks.
    return /[\x00-\x20]/.test(url) ? parsed.href : url;
  } catch {
    return undefined;
  }
}
