import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorker, stopProcess } from '../helpers/worker-process.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { startSite, type TestSite } from '../unit/crawl-site.js';

const PAGES = 40;
/** Its first request is never answered: the page is certainly in flight when the worker is killed. */
const HELD = '/p/12';
const FAST_RECOVERY = { QUARRY_JOB_LOCK_SECONDS: '2', QUARRY_CRAWL_ALLOW_PRIVATE: 'true' };
let svc: TestService;
let site: TestSite;
const workers: ChildProcess[] = [];

/** A crawl-only worker process on the test service's data, Redis prefix and storage. */
function workerEnv(): Record<string, string> {
  const { storage, redis } = svc.config;
  const env: Record<string, string> = {
    QUARRY_DATA_DIR: svc.dataDir, QUARRY_REDIS_PREFIX: svc.prefix, REDIS_URL: redis.url, QUARRY_WORKER_QUEUES: 'crawl', ...FAST_RECOVERY,
  };
  if (storage.backend === 'postgres') Object.assign(env, { QUARRY_STORAGE: 'postgres', DATABASE_URL: storage.databaseUrl!, QUARRY_DATABASE_SCHEMA: storage.schema });
  return env;
}

beforeAll(async () => {
  svc = await startTestService({ env: FAST_RECOVERY });
  const page = (i: number) => `<title>Page ${i}</title><main><p>Page number ${i} about topic${i}</p></main>`;
  site = await startSite({
    '/': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' })
      .end(`<title>Home</title><main>${Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i}">${i}</a>`).join(' ')}</main>`),
  });
  for (let i = 0; i < PAGES; i++) {
    // Slow enough (with the default per-host delay) that the crawl is still running when its worker is killed.
    site.routes[`/p/${i}`] = (_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page(i)), 50);
  }
  const answer = site.routes[HELD];
  site.routes[HELD] = (req, res) => {
    if (site.log.filter((l) => l === `GET ${HELD}`).length > 1) answer(req, res);
  };
});
afterAll(async () => {
  for (const w of workers) await stopProcess(w, 'SIGKILL');
  await svc.close();
  await site.close();
});

describe('a crawl worker killed mid-crawl', () => {
  it('is finished by the next worker: every page indexed once, pages done before the kill not fetched again', async () => {
    expect((await svc.call('POST', '/v1/admin/sources', { uid: 'big', kind: 'website', start_urls: [site.url('/')] })).status).toBe(201);
    workers.push(await spawnWorker(workerEnv()));
    expect((await svc.call('POST', '/v1/admin/sources/big/crawl')).status).toBe(202);
    const frontier = () => svc.storage.sources.frontier('big');
    expect(await waitFor(() => site.log.includes(`GET ${HELD}`), 60_000)).toBe(true);
    await stopProcess(workers[0], 'SIGKILL');
    const doneAtKill = (await frontier()).filter((e) => e.done).map((e) => new URL(e.url).pathname);
    expect(doneAtKill.length).toBeGreaterThanOrEqual(8);
    expect(doneAtKill.length).toBeLessThan(PAGES + 1);
    expect(doneAtKill).not.toContain(HELD);
    expect((await svc.storage.sources.get('big'))!.crawl.state).toBe('running');
    const fetchedAtKill = site.log.length;

    workers.push(await spawnWorker(workerEnv()));
    expect(await waitFor(async () => (await svc.storage.sources.get('big'))!.crawl.state === 'done', 90_000, 200)).toBe(true);

    const expected = ['/', ...Array.from({ length: PAGES }, (_, i) => `/p/${i}`)].map((p) => site.url(p)).sort();
    const docs = (await svc.call('GET', '/v2/indexes/source-big/documents?limit=1000')).body.documents.map((d: { uid: string }) => d.uid).sort();
    expect(docs).toEqual(expected);
    const after = site.log.slice(fetchedAtKill);
    for (const path of doneAtKill) expect(after.includes(`GET ${path}`), path).toBe(false);
    // Each page reached at most twice: once before the kill, and again only if it was in flight then.
    for (let i = 0; i < PAGES; i++) expect(site.log.filter((l) => l === `GET /p/${i}`).length).toBeLessThanOrEqual(2);
    expect(site.log.filter((l) => l === `GET ${HELD}`)).toHaveLength(2);
    // Counters exact: pages in flight at the kill, fetched twice, count once.
    const { crawl } = (await svc.call('GET', '/v1/admin/sources/big')).body;
    expect(crawl).toMatchObject({ state: 'done', discovered: PAGES + 1, fetched: PAGES + 1, indexed: PAGES + 1, unchanged: 0, skipped: 0, failed: 0, removed: 0 });
    expect(await waitFor(async () => (await svc.keywordUids('source-big', `topic${PAGES - 1}`, ['title', 'content'])).length === 1, 60_000)).toBe(true);
  });
});
