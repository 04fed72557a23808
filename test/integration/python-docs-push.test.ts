import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPythonDocs, pool, type Page } from '../helpers/python-docs.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let pages: Page[];

beforeAll(async () => {
  pages = loadPythonDocs();
  svc = await startTestService();
  await svc.call('POST', '/v1/admin/indexes', { uid: 'python', language_code: 'en' });
});
afterAll(() => svc.close());

describe('pushing the 530 pages of the Python docs through PUT /v2', () => {
  it('stores, lists and indexes every page exactly once', { timeout: 180_000 }, async () => {
    expect(pages.length).toBe(530);
    const statuses = await pool(pages, 8, async (p) =>
      (await svc.call('PUT', `/v2/indexes/python/documents/${encodeURIComponent(p.uid)}`, { title: p.title, content: p.content })).status);
    expect(statuses.every((s) => s === 204)).toBe(true);

    const expected = pages.map((p) => p.uid).sort();
    for (const limit of [1, 7, 20, 100, 1000]) {
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const q: string = `limit=${limit}${after === null ? '' : `&after-uid=${encodeURIComponent(after)}`}`;
        const r = await svc.call('GET', `/v2/indexes/python/documents?${q}`);
        expect(r.status).toBe(200);
        const docs = r.body.documents as { uid: string }[];
        expect(docs.length).toBeLessThanOrEqual(limit);
        seen.push(...docs.map((d) => d.uid));
        if (docs.length < limit) break;
        after = docs[docs.length - 1].uid;
      }
      expect(seen, `page size ${limit}`).toEqual(expected);
    }

    const done = await waitFor(async () => {
      const s = (await svc.call('GET', '/v2/indexes/python/status')).body;
      return s.indexed === 530 && s.pending === 0 ? s : null;
    }, 150_000, 250);
    expect(done).toMatchObject({ documents: 530, indexed: 530, pending: 0, failed: 0 });

    // Searchable, and each page's sections present once (a double publish would duplicate them).
    expect(await svc.keywordUids('python', 'indentation grouping statements', ['title', 'content'], 20)).toContain('faq/design.html');
    const [v] = await svc.embedder.embed(['Why does Python use indentation for grouping of statements?']);
    expect((await svc.vectorHits('python', v, 50)).map((h) => h.uid)).toContain('faq/design.html');
  });
});
