// What the attacks run against, created through the API: a pushed index searched by a widget
// configuration of each variant, and a content index with a string field holding an 80-character url
// (the wildcard case).
import { api, until } from '../fuzz/fixtures.js';

export interface AbuseTarget {
  url: string;
  /** The master key: keyed attacks use it, so they get past authentication to the code under attack. */
  key: string;
  /** Configuration uids of the ui and tool variants, both over the `abuse` index. */
  uid: string;
  toolUid: string;
}

export const URL_80 = `https://shop.example.com/catalogue/outdoor/footwear/trail-running/${'x'.repeat(15)}`;
export const CONTENT_SCHEMA = { fields: { title: { type: 'text' }, body: { type: 'text' }, u: { type: 'string' }, n: { type: 'int' } } };

export async function prepareAbuseTarget(url: string, key: string): Promise<AbuseTarget> {
  await api(url, key, 'POST', '/v1/admin/indexes', { uid: 'abuse' });
  const pages = [
    ['lists', 'Python lists', '<h2>Lists</h2><p>Python lists hold items. Append to a list with append.</p>'],
    ['refunds', 'Refunds', '<h2>Refunds</h2><p>Ask for a refund within 30 days of your purchase.</p>'],
    ['shipping', 'Shipping', '<h2>Shipping</h2><p>Orders ship within two days. Tracking numbers come by mail.</p>'],
  ];
  for (const [uid, title, content] of pages) await api(url, key, 'PUT', `/v2/indexes/abuse/documents/${uid}`, { title, content });
  await api(url, key, 'POST', '/v1/content/indexes', { uid: 'abuse-content', language_code: 'en', schema: CONTENT_SCHEMA });
  await api(url, key, 'POST', '/v1/content/indexes/abuse-content/documents', { uid: 'url', fields: { title: 'A shoe page', body: 'trail shoes', u: URL_80, n: 1 } });
  await until('abuse indexes indexed', async () => {
    const [a, c] = await Promise.all(['abuse', 'abuse-content'].map((i) => api(url, key, 'GET', `/v1/admin/indexes/${i}`)));
    return a.progress.indexed === pages.length && c.progress.indexed === 1;
  });
  const [uid, toolUid] = await Promise.all((['ui', 'tool'] as const).map(async (variant) =>
    (await api(url, key, 'POST', '/v1/admin/configurations', { variant, name: `abuse ${variant}`, indexes: ['abuse'], autocomplete_min_queries: 0 })).uid as string));
  return { url, key, uid, toolUid };
}
