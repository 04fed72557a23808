import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { widgetCall } from '../helpers/widget-client.js';

/**
 * Names users choose that are also members of every JavaScript object (docs/security.md, review of
 * 40020bc finding 3). Each is a plain name everywhere: a schema field, a document field, a filter
 * field, a projected field, a configuration key.
 */
const NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'] as const;

let svc: TestService;
const setupWrites: [string, number][] = [];
/** Bodies go out as JSON text: a `__proto__` key in an object literal would set its prototype instead. */
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
const record = (entries: [string, unknown][]) => Object.fromEntries(entries) as Record<string, unknown>;
const body = (value: unknown) => JSON.stringify(value);

/** `named`: title and body, and each name as a string field (`__proto__` multi-valued). */
const namedSchema = { fields: record([['title', { type: 'text' }], ['body', { type: 'html' }], ...NAMES.map((n): [string, unknown] => [n, n === '__proto__' ? { type: 'string', multi_valued: true } : { type: 'string' }])]) };
/** `typed`: the names with the other types a filter reads differently. */
const typedSchema = { fields: record([['title', { type: 'text' }], ['constructor', { type: 'int' }], ['__proto__', { type: 'text' }], ['toString', { type: 'date' }], ['valueOf', { type: 'float' }], ['hasOwnProperty', { type: 'boolean' }]]) };
/** `plain`: none of the names. */
const plainSchema = { fields: { title: { type: 'text' }, status: { type: 'string' } } };

const write = (index: string, uid: string, fields: Record<string, unknown>) => svc.call('POST', `/v1/content/indexes/${index}/documents`, body({ uid, fields }));
const settled = (index: string) => waitFor(async () => {
  const p = (await svc.call('GET', `/v1/admin/indexes/${index}`)).body.progress;
  return p.pending === 0 && p.pending_deletes === 0 ? p : null;
});
const search = (index: string, filter: string, extra: Record<string, unknown> = {}) =>
  svc.call('POST', '/v1/content/search', body({ index_uid: index, query: '', boosting: 'title', filter, fields: [], limit: 50, ...extra }));
const uids = async (index: string, filter: string) => {
  const r = await search(index, filter);
  expect(r.status, `${filter}: ${JSON.stringify(r.body)}`).toBe(200);
  return (r.body.results as { uid: string }[]).map((x) => x.uid).sort();
};

beforeAll(async () => {
  svc = await startTestService();
  for (const [uid, schema] of [['named', namedSchema], ['typed', typedSchema], ['plain', plainSchema]] as const) {
    const r = await svc.call('POST', '/v1/content/indexes', body({ uid, language_code: 'en', schema }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  // n-all has every name, n-none none of them, n-<name> only that one. Statuses are checked by the
  // tests, so that each fails on its own where these names were not plain data.
  const writes: [string, string, Record<string, unknown>][] = [
    ['named', 'n-all', record([['title', 'all names'], ...NAMES.map((n): [string, unknown] => [n, n === '__proto__' ? ['alpha', 'beta'] : 'alpha'])])],
    ['named', 'n-none', { title: 'no names', body: '<p>plain</p>' }],
    ...NAMES.map((n): [string, string, Record<string, unknown>] => ['named', `n-${n}`, record([['title', `only ${n}`], [n, n === '__proto__' ? ['zulu'] : 'zulu']])]),
    ['typed', 't-all', json('{"title":"typed","constructor":7,"__proto__":"Quarterly report","toString":"2026-05-01","valueOf":2.5,"hasOwnProperty":true}')],
    ['typed', 't-none', { title: 'untyped' }],
    ['plain', 'p-1', { title: 'plain', status: 'ok' }],
  ];
  for (const [index, uid, fields] of writes) setupWrites.push([uid, (await write(index, uid, fields)).status]);
  for (const i of ['named', 'typed', 'plain']) await settled(i);
});
afterAll(() => svc.close());

describe('built-in property names as schema fields', () => {
  it('are declared and shown like any field, __proto__ included', async () => {
    for (const [uid, schema] of [['named', namedSchema], ['typed', typedSchema]] as const) {
      const view = (await svc.call('GET', `/v1/admin/indexes/${uid}`)).body;
      expect(Object.keys(view.schema.fields).sort()).toEqual(Object.keys(schema.fields).sort());
      expect(view.schema.fields.__proto__ ?? null).not.toBeNull();
    }
  });

  it('other names are still checked, and the 400 says what a name may be', async () => {
    const r = await svc.call('POST', '/v1/content/indexes', `{"uid":"bad","language_code":"en","schema":{"fields":{"__proto__":{"type":"text"},"bad-name":{"type":"text"},"constructor":{"type":"nope"}}}}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('schema.fields.bad-name: invalid name: field names start with a letter or _ and use letters, digits or _');
    expect(r.body.message).toContain('schema.fields.constructor.type: Invalid option');
  });

  it('a write without them is accepted; one with them stores and projects them', async () => {
    expect(setupWrites).toEqual(setupWrites.map(([uid]) => [uid, 204]));
    expect((await write('named', 'n-none', { title: 'no names', body: '<p>plain</p>' })).status).toBe(204);
    const r = await search('named', '', { fields: [...NAMES] });
    expect(r.status).toBe(200);
    const hit = (uid: string) => r.body.results.find((x: { uid: string }) => x.uid === uid);
    expect(hit('n-all').fields).toEqual(record(NAMES.map((n) => [n, n === '__proto__' ? ['alpha', 'beta'] : 'alpha'])));
    expect(Object.keys(hit('n-all').fields).sort()).toEqual([...NAMES].sort());
    expect(Object.keys(hit('n-none').fields)).toEqual([]);
  });

  it('keep their types: a wrong value is a 400 naming the field', async () => {
    for (const [fields, field] of [['{"__proto__":"x"}', '__proto__'], ['{"constructor":5}', 'constructor'], ['{"valueOf":true}', 'valueOf']] as const) {
      const r = await svc.call('POST', '/v1/content/indexes/named/documents', `{"uid":"bad","fields":${fields}}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(`fields.${field}:`);
    }
  });

  it('removing one is refused like removing any field; declaring the same schema again is fine', async () => {
    expect((await svc.call('POST', '/v1/content/indexes', body({ uid: 'named', language_code: 'en', schema: namedSchema }))).status).toBe(200);
    for (const n of NAMES) {
      const fields = record(Object.entries(namedSchema.fields).filter(([k]) => k !== n));
      const r = await svc.call('POST', '/v1/content/indexes', body({ uid: 'named', language_code: 'en', schema: { fields } }));
      expect(r.status).toBe(409);
      expect(r.body.message).toBe(`Field '${n}' of index 'named' cannot be removed; create a new index instead`);
    }
  });

  it('are unknown fields of an index that does not declare them', async () => {
    for (const n of NAMES) {
      const r = await svc.call('POST', '/v1/content/indexes/plain/documents', `{"uid":"x","fields":{${JSON.stringify(n)}:"v"}}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(`Invalid request: fields: unknown field(s) '${n}'`);
    }
  });
});

describe('built-in property names in filters', () => {
  it.each(NAMES)('%s: term, exists and range match only documents that hold the field', async (n) => {
    expect(await uids('named', `${n}:alpha`)).toEqual(['n-all']);
    expect(await uids('named', `${n}:zulu`)).toEqual([`n-${n}`]);
    expect(await uids('named', `${n}:*`)).toEqual(['n-all', `n-${n}`].sort());
    expect(await uids('named', `${n}:[a TO b]`)).toEqual(['n-all']);
    expect(await uids('named', `-${n}:*`)).not.toContain(`n-${n}`);
  });

  it('each type reads only the document\'s own value', async () => {
    expect(await uids('typed', 'constructor:7')).toEqual(['t-all']);
    expect(await uids('typed', 'constructor:[1 TO 10]')).toEqual(['t-all']);
    expect(await uids('typed', '__proto__:quarterly')).toEqual(['t-all']);
    expect(await uids('typed', 'toString:[2026-01-01 TO 2026-12-31]')).toEqual(['t-all']);
    expect(await uids('typed', 'valueOf:[2 TO 3]')).toEqual(['t-all']);
    expect(await uids('typed', 'hasOwnProperty:true')).toEqual(['t-all']);
    for (const n of NAMES) expect(await uids('typed', `${n}:*`)).toEqual(['t-all']);
  });

  it.each(NAMES)('%s on an index without it: 400 naming the field, never 500 nor a match', async (n) => {
    for (const filter of [`${n}:x`, `${n}:*`, `${n}:[a TO z]`, `-${n}:*`]) {
      const r = await search('plain', filter);
      expect(r.status, filter).toBe(400);
      expect(r.body.message).toContain(`unknown field '${n}'; the index has: status, title`);
    }
  });

  it.each(NAMES)('%s as a projected or boosted field of an index without it: 400', async (n) => {
    const projected = await search('plain', '', { fields: [n] });
    expect(projected.status).toBe(400);
    expect(projected.body.message).toBe(`Invalid request: fields: '${n}' is not a field of index 'plain'`);
    const boosted = await search('plain', '', { boosting: n, query: 'plain' });
    expect(boosted.status).toBe(400);
    expect(boosted.body.message).toContain(`'${n}' is not a text or html field`);
  });
});

describe('built-in property names in the search interface and document push', () => {
  it('a text field named __proto__ is searched and a configuration key of any name is kept', async () => {
    const config = await svc.call('POST', '/v1/admin/configurations', body({ variant: 'ui', name: 'names', indexes: ['typed'] }));
    expect(config.status).toBe(201);
    const configuration = json('{"__proto__":{"polluted":true},"constructor":"c","toString":"t","valueOf":1,"hasOwnProperty":false}');
    const answer = await svc.call('POST', `/v1/admin/configurations/${config.body.uid}/instant-answers`, body({ title: 'Reports', content: '<p>Every quarter.</p>', keywords: ['quarterly report'], configuration }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.configuration).toEqual(configuration);
    expect(Object.keys(answer.body.configuration)).toEqual(Object.keys(configuration));
    const r = await widgetCall(svc.url, 'GET', '/v1/ui/search', { uid: config.body.uid, 'session-id': 's', query: 'quarterly report' });
    expect(r.status).toBe(200);
    const kinds = r.body.results.map((x: { type: string }) => x.type);
    expect(kinds).toContain('paragraph');
    expect(r.body.results.find((x: { type: string }) => x.type === 'instant_answer')?.configuration).toEqual(configuration);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a batch document with a __proto__ or constructor field is rejected by name, like the single PUT', async () => {
    const index = await svc.call('POST', '/v1/content/indexes', body({ uid: 'pages', language_code: 'en', schema: { fields: { title: { type: 'text' }, content: { type: 'html' }, source_url: { type: 'string' }, last_modified: { type: 'date' } } } }));
    expect(index.status).toBe(200);
    for (const n of NAMES) {
      const doc = `{"uid":"d","title":"T","content":"<p>c</p>",${JSON.stringify(n)}:"x"}`;
      const batch = await svc.call('POST', '/v2/indexes/pages/documents', `{"documents":[${doc}]}`);
      expect(batch.status).toBe(200);
      expect(batch.body.results[0]).toMatchObject({ status: 'rejected', code: 400, message: `body: unknown field(s) '${n}'` });
      const put = await svc.call('PUT', '/v2/indexes/pages/documents/d', `{"title":"T","content":"<p>c</p>",${JSON.stringify(n)}:"x"}`);
      expect(put.status).toBe(400);
      expect(put.body.message).toBe(`Invalid request: body: unknown field(s) '${n}'`);
    }
  });
});
