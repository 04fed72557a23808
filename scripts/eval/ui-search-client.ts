import { send, sendJson, type Target } from '../bench/http-load.js';
import type { Page } from './python-docs.js';
import { mapPool, waitIndexed } from './quarry-eval-client.js';

/** The search interface (GET /v1/ui/search) and document push (/v2) as the search-interface evaluations use them. */

export const SITE = 'https://docs.python.org/3.11/';
/** Fusions compared: reciprocal-rank and weighted scores, each with these keyword weights. */
const WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9];

export interface Ranker {
  name: string;
  uid: string;
  retrieval: 'hybrid' | 'keyword' | 'vector';
}

/**
 * One UI configuration per fusion setting over `index`, and the two legs alone (asked through the
 * `retrieval` parameter of a configuration).
 */
export async function createRankers(api: Target, index: string): Promise<Ranker[]> {
  const config = async (fusion: string, keywordWeight: number) =>
    (await sendJson<{ uid: string }>(api, 'POST', '/v1/admin/configurations', { variant: 'ui', name: `eval ${fusion} ${keywordWeight}`, indexes: [index], result_count: 10, fusion, keyword_weight: keywordWeight })).uid;
  const legs = await config('rrf', 0.5);
  const rankers: Ranker[] = [
    { name: 'keyword leg alone', uid: legs, retrieval: 'keyword' },
    { name: 'vector leg alone', uid: legs, retrieval: 'vector' },
  ];
  for (const fusion of ['rrf', 'weighted']) {
    for (const w of WEIGHTS) rankers.push({ name: `fused: ${fusion === 'rrf' ? 'reciprocal rank' : 'weighted scores'}, keyword ${w}`, uid: await config(fusion, w), retrieval: 'hybrid' });
  }
  return rankers;
}

/** The result urls of one preview search through GET /v1/ui/search, or null on an error status. */
export async function uiSearchUrls(api: Target, ranker: Ranker, query: string): Promise<string[] | null> {
  const qs = new URLSearchParams({ uid: ranker.uid, 'session-id': 'eval', query, preview: 'true', retrieval: ranker.retrieval });
  const r = await send(api, 'GET', `/v1/ui/search?${qs}`);
  if (r.status !== 200) return null;
  return (JSON.parse(r.body) as { results: { url?: string }[] }).results.map((x) => x.url ?? '');
}

/**
 * Pushes the pages into a new push index through PUT /v2 (source_url `site` + uid, so results name
 * their page) and waits until all are indexed.
 */
export async function pushPages(api: Target, index: string, pages: Pick<Page, 'uid' | 'title' | 'content'>[], assertAlive: () => void, say: (m: string) => void, site = SITE): Promise<void> {
  await sendJson(api, 'POST', '/v1/admin/indexes', { uid: index, language_code: 'en' }, [200, 201]);
  await mapPool(pages, 8, async (p) => {
    const r = await send(api, 'PUT', `/v2/indexes/${index}/documents/${encodeURIComponent(p.uid)}`, JSON.stringify({ title: p.title, content: p.content, source_url: site + p.uid }));
    if (r.status !== 204) throw new Error(`PUT ${p.uid} -> ${r.status}: ${r.body.slice(0, 300)}`);
  });
  await waitIndexed(api, index, pages.length, { assertAlive, onPoll: (p) => say(`  indexed ${p.indexed} of ${pages.length}`) });
  // The API trains an index's vector lists in the background, again on the whole set once nothing more
  // arrives (docs/search-interface.md, "Vector search"): the questions are asked of the settled index, as
  // visitors coming later find it, not of lists trained while the pages were still streaming in.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
}

/** Enough for two background passes and the training of ~20,000 vectors on this machine. */
const SETTLE_MS = 3000;

/** The pushed page a result url names (its uid), or null for a url outside `site`. */
export const pageOf = (url: string | undefined, site = SITE) => (url?.startsWith(site) ? url.slice(site.length).replace(/#.*$/, '') : null);

