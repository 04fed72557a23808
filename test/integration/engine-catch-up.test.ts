// Loading or catching up with thousands of changed documents is CPU work on the API's event loop:
// it must leave turns of the loop to other requests instead of holding them until it is done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentEngine } from '../../shared/search/engine/content-engine.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
const DOCS = 1500;

beforeAll(async () => {
  svc = await startTestService();
  const documents = Array.from({ length: DOCS }, (_, i) => ({
    uid: `d${i}`, title: `Document ${i}`, content: `Paragraph ${i} about lanterns, kites and ferries in the harbour of town ${i % 37}.`,
    source_url: `https://example.com/d${i}`,
  }));
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'bulk' })).status).toBe(201);
  for (let i = 0; i < DOCS; i += 500) {
    expect((await svc.call('POST', '/v2/indexes/bulk/documents', { documents: documents.slice(i, i + 500) })).status).toBe(200);
  }
  expect(await waitFor(async () => (await svc.call('GET', '/v2/indexes/bulk/status')).body.indexed === DOCS, 120_000)).toBe(true);
}, 180_000);
afterAll(async () => svc.close());

describe('the content engine on the event loop', () => {
  it('loading an index of many documents lets other work run in between', async () => {
    const engine = new ContentEngine(svc.storage);
    let turnsBeforeLoaded = 0;
    let loaded = false;
    const probe = () => {
      if (loaded) return;
      turnsBeforeLoaded++;
      setImmediate(probe);
    };
    setImmediate(probe);
    const state = await engine.state('bulk');
    loaded = true;
    expect(state?.docUnits.size).toBe(DOCS);
    // One turn at most passes before a load that never yields finishes; each 100 documents give one.
    expect(turnsBeforeLoaded).toBeGreaterThanOrEqual(DOCS / 100 - 1);
  }, 60_000);
});
