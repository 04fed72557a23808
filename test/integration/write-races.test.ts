import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await svc.call('POST', '/v1/admin/indexes', { uid: 'race', language_code: 'en' });
});
afterAll(() => svc.close());

type Op = { kind: 'put'; token: string } | { kind: 'delete' };

async function send(uid: string, op: Op) {
  const path = `/v2/indexes/race/documents/${uid}`;
  const r = op.kind === 'put'
    ? await svc.call('PUT', path, { title: `Title ${op.token}`, content: `<p>Body ${op.token} text</p>` })
    : await svc.call('DELETE', path);
  expect(r.status).toBe(204);
  const v = r.headers.get('x-quarry-version');
  return { op, version: v === null ? null : Number(v) };
}

describe('racing upserts and deletes of one document', () => {
  it('ends in the state of the last accepted write: in the store, the keyword index and the vector index', { timeout: 120_000 }, async () => {
    const index = (await svc.storage.indexes.get('race'))!;
    for (let round = 0; round < 12; round++) {
      const uid = `doc${round % 2}`;
      const ops: Op[] = Array.from({ length: 30 }, (_, i) =>
        i % 3 === 1 ? { kind: 'delete' } : { kind: 'put', token: `r${round}x${i}` });
      const results = await Promise.all(ops.map((op) => send(uid, op)));
      const accepted = results.filter((r) => r.version !== null).sort((a, b) => b.version! - a.version!);
      expect(accepted.length).toBeGreaterThan(0);
      const winner = accepted[0].op;

      await waitFor(async () => {
        const d = await svc.storage.documents.get(index.id, uid);
        return d === null || d.status === 'indexed';
      }, 30_000);

      const stored = await svc.call('GET', `/v2/indexes/race/documents/${uid}`);
      const puts = ops.filter((o): o is Extract<Op, { kind: 'put' }> => o.kind === 'put');
      const found = await Promise.all(puts.map((o) => svc.keywordUids('race', o.token, ['title', 'content'], 5)));
      const live = puts.filter((_, i) => found[i].includes(uid));
      const [probe] = await svc.embedder.embed(['body text title']);
      const vectorHits = (await svc.vectorHits('race', probe, 100)).filter((h) => h.uid === uid);
      if (winner.kind === 'delete') {
        expect(stored.status).toBe(404);
        expect(live).toEqual([]);
        expect(vectorHits).toEqual([]);
      } else {
        expect(stored.body.title).toBe(`Title ${winner.token}`);
        expect(live.map((o) => o.token)).toEqual([winner.token]);
        expect(vectorHits).toHaveLength(1);
        expect(vectorHits[0].title).toBe(`Title ${winner.token}`);
      }
    }
  });
});
