import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentWriter } from '../../shared/documents/document-writer.js';
import { PushService } from '../../api/services/push-service.js';
import { MAX_METADATA_BYTES, type DocumentMetadata } from '../../shared/documents/document-metadata.js';
import type { IndexRecord } from '../../shared/indexes/index-schema.js';
import { createLogger } from '../../shared/logging/create-logger.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
/** The internal write path a crawler uses: the push service over a writer of its own. */
let push: PushService;
let index: IndexRecord;
const configs: Record<string, string> = {};

const KETTLE: DocumentMetadata = [
  { selector: '.price', matches: [{ type: 'tag', tag: 'span', attr: { class: 'price', 'data-currency': 'EUR' }, children: [{ type: 'text', data: '29 €' }] }] },
  { selector: '.stock', matches: [] },
];
const TEAPOT: DocumentMetadata = [{ selector: '.price', matches: [] }];

const settled = () => waitFor(async () => {
  const p = (await svc.call('GET', '/v1/admin/indexes/shop')).body.progress;
  return p.pending === 0 ? p : null;
});

async function search(variant: string, query: string) {
  const qs = new URLSearchParams({ uid: configs[variant], 'session-id': 's1', query });
  const res = await fetch(`${svc.url}/v1/${variant}/search?${qs}`);
  expect(res.status).toBe(200);
  return (await res.json()).results as { type: string; title?: string; metadata?: unknown }[];
}
const resultTitled = async (variant: string, query: string, title: string) => {
  const hit = (await search(variant, query)).find((r) => r.title === title);
  expect(hit, `${variant} search '${query}' finds '${title}'`).toBeDefined();
  return hit!;
};

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'shop' })).status).toBe(201);
  const writer = new DocumentWriter((w) => svc.storage.documents.applyWrites(w), svc.queues, createLogger('silent', 'test'), { batchSize: svc.config.pipeline.batchSize });
  push = new PushService(svc.storage, writer);
  index = await push.pushIndex('shop');
  await push.upsert(index, 'kettle', { title: 'Electric kettle', content: '<p>Boils water for tea in two minutes.</p>', source_url: 'https://shop.example.com/kettle' }, KETTLE);
  await push.upsertMany(index, [
    { uid: 'teapot', doc: { title: 'Porcelain teapot', content: '<p>Brews loose leaf tea for four cups.</p>' }, metadata: TEAPOT },
    { uid: 'mug', doc: { title: 'Stoneware mug', content: '<p>Holds coffee or cocoa.</p>' } },
  ]);
  await settled();
  for (const variant of ['tool', 'ui']) {
    const r = await svc.call('POST', '/v1/admin/configurations', { variant, name: variant, indexes: ['shop'], result_count: 5 });
    expect(r.status).toBe(201);
    configs[variant] = r.body.uid;
  }
}, 60_000);
afterAll(() => svc.close());

describe('paragraph results carry their page fragments as metadata', () => {
  it('returns the fragments written with a page, matches [] included, on both variants', async () => {
    for (const variant of ['tool', 'ui']) {
      expect((await resultTitled(variant, 'kettle', 'Electric kettle')).metadata).toEqual(KETTLE);
      expect((await resultTitled(variant, 'teapot', 'Porcelain teapot')).metadata).toEqual(TEAPOT);
    }
  });

  it('leaves metadata out on a page written without any', async () => {
    for (const variant of ['tool', 'ui']) {
      const mug = await resultTitled(variant, 'mug coffee', 'Stoneware mug');
      expect('metadata' in mug).toBe(false);
    }
  });

  it('serves the fragments of the newest version: changed, then dropped with a write without them', async () => {
    const cheaper: DocumentMetadata = [{ selector: '.price', matches: [{ type: 'text', data: '19 €' }] }];
    const doc = { title: 'Porcelain teapot', content: '<p>Brews loose leaf tea for four cups.</p>' };
    expect((await push.upsert(index, 'teapot', doc, cheaper)).version).not.toBeNull();
    await settled();
    expect((await resultTitled('tool', 'teapot', 'Porcelain teapot')).metadata).toEqual(cheaper);
    expect((await push.upsert(index, 'teapot', doc)).version).not.toBeNull();
    await settled();
    expect('metadata' in (await resultTitled('ui', 'teapot', 'Porcelain teapot'))).toBe(false);
  });

  it('gives a page that gains fragments its metadata once that version is live', async () => {
    const mugFragments: DocumentMetadata = [{ selector: '.price', matches: [{ type: 'text', data: '8 €' }] }];
    await push.upsert(index, 'mug', { title: 'Stoneware mug', content: '<p>Holds coffee or cocoa.</p>' }, mugFragments);
    await settled();
    expect((await resultTitled('ui', 'mug coffee', 'Stoneware mug')).metadata).toEqual(mugFragments);
    await push.upsert(index, 'mug', { title: 'Stoneware mug', content: '<p>Holds coffee or cocoa.</p>' });
    await settled();
    expect('metadata' in (await resultTitled('tool', 'mug coffee', 'Stoneware mug'))).toBe(false);
  });

  it('refuses metadata that is malformed or over the size limit, storing nothing', async () => {
    const doc = { title: 'Huge page', content: '<p>Too many fragments.</p>' };
    const huge: DocumentMetadata = [{ selector: 'p', matches: [{ type: 'text', data: 'x'.repeat(MAX_METADATA_BYTES) }] }];
    await expect(push.upsert(index, 'huge', doc, huge)).rejects.toMatchObject({ kind: 'invalid_document', message: expect.stringContaining('over the limit of 262144') });
    const broken = [{ selector: 'p', matches: [{ type: 'tag' }] }] as unknown as DocumentMetadata;
    await expect(push.upsert(index, 'huge', doc, broken)).rejects.toMatchObject({ message: expect.stringContaining("entry 0 match 0 must have type 'tag'") });
    expect(await svc.storage.documents.get(index.id, 'huge')).toBeNull();
  });

  it('is not accepted from the public push API', async () => {
    const r = await svc.call('PUT', '/v2/indexes/shop/documents/mug', { title: 'Stoneware mug', content: '<p>Holds coffee.</p>', metadata: KETTLE });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('metadata');
  });
});
