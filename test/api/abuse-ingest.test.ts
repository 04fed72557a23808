import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logging/create-logger.js';
import type { RunningWorkers } from '../../workers/registry.js';
import { startCrawlWorker } from '../helpers/crawl-worker.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { html, startSite, type TestSite } from '../unit/crawl-site.js';

// Documents sized to hurt the ingest path, pushed (and crawled) through the real app into the real
// section, embed and index workers: before the fixes each one blocked a worker for minutes (and a
// job blocked past its lock stalls and is retried), or overflowed the stack and failed.
let svc: TestService;
let site: TestSite;
let crawler: RunningWorkers;
const MB5 = 5 * 1024 * 1024;
const deep = (n: number) =>
  `<title>Deep page</title><main><h1>Deep page</h1>${'<div>'.repeat(n)}<h2 id="inner">Inner heading</h2><p>marmalade at the bottom</p>${'</div>'.repeat(n)}<p>porridge after the nesting</p></main>`;

const progress = async (index: string) => (await svc.call('GET', `/v1/admin/indexes/${index}`)).body.progress;
const settled = async (index: string) => {
  await waitFor(async () => (await progress(index)).pending === 0, 150_000, 200);
  return progress(index);
};

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_CRAWL_ALLOW_PRIVATE: 'true' } });
  site = await startSite({ '/deep': html(deep(100_000)) });
  crawler = await startCrawlWorker(svc, createLogger('silent', 'test'), { hostLimits: { minDelayMs: 0 }, timeoutMs: 10_000 });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'big', language_code: 'en' })).status).toBe(201);
});
afterAll(async () => {
  await crawler?.close();
  await svc?.close();
  await site?.close();
});

describe('pushed documents that cost super-linear time', () => {
  // Before: the section worker's splitter scanned back to the start of the text at every cut (minutes).
  it('5 MB of content without a space or line break is sectioned and indexed', async () => {
    const content = `${'q'.repeat(MB5)} tapioca`;
    expect((await svc.call('PUT', '/v2/indexes/big/documents/flat', { title: 'Flat', content })).status).toBe(204);
    expect(await settled('big')).toMatchObject({ pending: 0, failed: 0 });
    expect(await svc.keywordUids('big', 'tapioca', ['content'])).toEqual(['flat']);
  }, 200_000);

  it('a 5 MB text field without breaks through the content documents API', async () => {
    const schema = { fields: { title: { type: 'text' }, notes: { type: 'text' } } };
    expect((await svc.call('POST', '/v1/content/indexes', { uid: 'notes', language_code: 'en', schema })).status).toBe(200);
    const doc = { uid: 'n1', fields: { title: 'Notes', notes: `${'r'.repeat(MB5)} semolina` } };
    expect((await svc.call('POST', '/v1/content/indexes/notes/documents', doc)).status).toBe(204);
    expect(await settled('notes')).toMatchObject({ pending: 0, failed: 0 });
    expect(await svc.keywordUids('notes', 'semolina', ['notes'])).toEqual(['n1']);
  }, 200_000);

  // Before: htmlparser2's front-shifted stack made each tag cost the depth (tens of seconds here).
  it('100,000 nested divs pushed as html content are indexed with the text at the bottom', async () => {
    expect((await svc.call('PUT', '/v2/indexes/big/documents/deep', { title: 'Deep', content: deep(100_000) })).status).toBe(204);
    expect(await settled('big')).toMatchObject({ pending: 0, failed: 0 });
    expect(await svc.keywordUids('big', 'marmalade', ['content'])).toEqual(['deep']);
    expect(await svc.keywordUids('big', 'porridge', ['content'])).toEqual(['deep']);
  }, 200_000);
});

describe('a crawled page nested 100,000 deep', () => {
  // Before: the page failed with "Maximum call stack size exceeded" after minutes of parsing.
  it('is extracted, indexed and searchable', async () => {
    const created = await svc.call('POST', '/v1/admin/sources', { uid: 'deep', kind: 'website', start_urls: [site.url('/deep')] });
    expect(created.status).toBe(201);
    expect((await svc.call('POST', '/v1/admin/sources/deep/crawl')).status).toBe(202);
    const source = async () => (await svc.call('GET', '/v1/admin/sources/deep')).body;
    expect(await waitFor(async () => ['done', 'failed'].includes((await source()).crawl.state), 150_000, 200)).toBe(true);
    const view = await source();
    expect(view.crawl).toMatchObject({ state: 'done', indexed: 1, failed: 0 });
    expect(await settled('source-deep')).toMatchObject({ pending: 0, failed: 0 });
    expect(await svc.keywordUids('source-deep', 'marmalade', ['title', 'content'])).toEqual([site.url('/deep')]);
  }, 200_000);
});
