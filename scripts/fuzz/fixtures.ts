// The data the HTTP fuzz targets run against, created through the API itself (the tests' service and the
// script's processes alike): a pushed page searched by a widget configuration, and a content index
// holding one document of every field type.
import { CONTENT_FUZZ_DOCUMENT, CONTENT_FUZZ_SCHEMA } from './generators.js';
import type { HttpFuzzContext } from './targets.js';

/** A JSON request with a key; throws unless the status is one of `ok`. */
export async function api(baseUrl: string, key: string, method: string, path: string, body?: unknown, ok = [200, 201, 204]): Promise<any> {
  const res = await fetch(baseUrl + path, {
    method, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!ok.includes(res.status)) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Polls until `fn` is truthy; throws after `timeoutMs`. */
export async function until<T>(what: string, fn: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function prepareFuzzData(baseUrl: string, key: string): Promise<HttpFuzzContext> {
  await api(baseUrl, key, 'POST', '/v1/admin/indexes', { uid: 'kb' });
  await api(baseUrl, key, 'PUT', '/v2/indexes/kb/documents/a', {
    title: 'Python tutorial', content: '<h2>Lists</h2><p>Python lists hold items. Append to a list with append.</p>',
  });
  await api(baseUrl, key, 'POST', '/v1/content/indexes', { uid: 'fuzz', language_code: 'en', schema: CONTENT_FUZZ_SCHEMA });
  await api(baseUrl, key, 'POST', '/v1/content/indexes/fuzz/documents', CONTENT_FUZZ_DOCUMENT);
  for (const index of ['kb', 'fuzz']) {
    await until(`index ${index} indexed`, async () => (await api(baseUrl, key, 'GET', `/v1/admin/indexes/${index}`)).progress.indexed === 1);
  }
  const uid = (await api(baseUrl, key, 'POST', '/v1/admin/configurations', { variant: 'ui', name: 'fuzz', indexes: ['kb'], autocomplete_min_queries: 0 })).uid as string;
  const search = await api(baseUrl, key, 'GET', `/v1/ui/search?uid=${uid}&session-id=s&query=python`);
  return { uid, feedback: search.results[0].feedback_data as string, key };
}
